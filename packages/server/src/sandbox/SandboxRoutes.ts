/**
 * Sandbox mode: the provider simulators (each entry of the simulator registry whose provider has a
 * plug-in) mounted on the PulseBridge server itself under `/sandbox/<slug>`, accepting the sandbox
 * credentials every app uses when it has none of its own. Their grants are kept in `DATA_DIR/sandbox/<slug>.json`, so connections made in the
 * sandbox survive a restart. The meal-analyser simulator (the `sandbox` analyser) is mounted under
 * `/sandbox/analyzer`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpClient from "@effect/platform/HttpClient"
import { ProviderRegistry } from "@pulsebridge/providers"
import type { SimulatorRegistry, SimulatorStore } from "@pulsebridge/sandbox"
import { fileStore, makeAnalyzerSimulator, memoryStore, simulatorRegistry } from "@pulsebridge/sandbox"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProviderAccess } from "../connections/ProviderAccess.js"
import { sandboxAnalyzerPath } from "../journal/MealAnalyzer.js"
import { ServerBases } from "../platform/ServerBases.js"
import { ServerConfig } from "../platform/ServerConfig.js"

/** The meal-analyser simulator alone, for `ANALYZER=sandbox` outside sandbox mode. */
export const AnalyzerSandboxRoutesLive = HttpApiBuilder.Router.use((router) =>
  router.mountApp(sandboxAnalyzerPath, makeAnalyzerSimulator().app)
)

/**
 * The simulators sandbox mode may mount: the built-in ones unless a deployment or a test registers
 * others (a simulator for a provider plug-in of its own).
 */
export class SandboxSimulators extends Context.Reference<SandboxSimulators>()(
  "@pulsebridge/server/SandboxSimulators",
  { defaultValue: (): SimulatorRegistry => simulatorRegistry }
) {}

/**
 * The seed of the mounted simulators' synthetic data: the same seed, user and date give the same records, so a test
 * can know what a simulated user holds before connecting it.
 */
export const sandboxSeed = "pulsebridge-sandbox"

/** Every simulator whose provider has a plug-in (and so sandbox credentials), at its sandbox path. */
const ProviderSandboxRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const simulators = yield* SandboxSimulators
    const config = yield* ServerConfig
    const access = yield* ProviderAccess
    const bases = yield* ServerBases
    const plugins = yield* ProviderRegistry
    // the simulators' own calls (a callback checked before a subscription) go as this server's do, trusting its
    // certificate and marked as its own
    const httpClient = yield* HttpClient.HttpClient
    const dir = path.join(config.dataDir, "sandbox")
    yield* Effect.sync(() => fs.mkdirSync(dir, { recursive: true, mode: 0o700 }))
    for (const entry of simulators) {
      // a simulator without a plug-in has nothing to talk to it
      if (Option.isNone(plugins.find(entry.provider))) continue
      const credentials = access.sandboxCredentials(entry.provider)
      const mount = access.sandboxPath(entry.provider)
      const store: SimulatorStore = config.dataDir === ""
        ? memoryStore()
        : fileStore(path.join(dir, `${mount.split("/").pop()}.json`))
      const simulator = entry.make({
        baseUrl: bases.publicBase + mount,
        clients: [{ clientId: credentials.clientId, clientSecret: Redacted.value(credentials.clientSecret) }],
        seed: sandboxSeed,
        store,
        httpClient
      })
      yield* router.mountApp(mount as `/${string}`, simulator.app)
    }
  })
)

/**
 * What the configuration mounts: in sandbox mode the provider simulators and the meal analyser;
 * with `ANALYZER=sandbox` alone the meal analyser; otherwise nothing.
 */
export const SandboxRoutesLive = Layer.unwrapEffect(Effect.map(ServerConfig, (config) =>
  config.sandbox
    ? Layer.merge(ProviderSandboxRoutesLive, AnalyzerSandboxRoutesLive)
    : config.analyzer === "sandbox"
    ? AnalyzerSandboxRoutesLive
    : Layer.empty))
