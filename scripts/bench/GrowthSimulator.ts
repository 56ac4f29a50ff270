/**
 * One provider simulator of the growth benchmark (`Growth.ts`), in a process of its own so that generating and
 * serialising the data of a thousand users runs neither on the event loop of the servers under test nor on the
 * benchmark's. The settings (`GrowthSimulatorSettings`) come as JSON in `PULSEBRIDGE_BENCH_SIMULATOR`.
 *
 * The simulator is the sandbox's own (`@pulsebridge/sandbox`), with its clock held still at `nowMs` (so the records
 * it serves are fixed), its rate limits off, and a store that persists nothing: the default in-memory store copies
 * the whole state (every user's grants) as JSON on each change, which is quadratic over a thousand connections and
 * pointless for a run that never restarts. Besides the provider's routes it answers `GET /_bench/answers`: how
 * many answers it gave by status, which the benchmark reads to find failed provider calls (the call log keeps only
 * the latest calls). Once listening it prints `ready {"baseUrl": ...}`; it exits when its stdin closes.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import type { BuiltinProvider } from "@pulsebridge/domain"
import type { SimulatorStore } from "@pulsebridge/sandbox"
import { makeSimulator, serveHttpApp } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"

export interface GrowthSimulatorSettings {
  readonly provider: BuiltinProvider
  readonly clientId: string
  readonly clientSecret: string
  readonly seed: string
  readonly nowMs: number
}

/** Answers by status, and requests whose handling failed (counted as 500). */
export interface SimulatorAnswers {
  readonly byStatus: Record<string, number>
}

const settings = JSON.parse(process.env["PULSEBRIDGE_BENCH_SIMULATOR"] ?? "{}") as GrowthSimulatorSettings

const nothingKept: SimulatorStore = { get: () => undefined, set: () => {} }

const program = Effect.gen(function*() {
  const simulator = makeSimulator(settings.provider, {
    baseUrl: "http://127.0.0.1",
    clients: [{ clientId: settings.clientId, clientSecret: settings.clientSecret }],
    seed: settings.seed,
    now: () => new Date(settings.nowMs),
    store: nothingKept,
    // A thousand users' backfills at once are far over any provider's allowance; the benchmark measures the server.
    rateLimits: false
  })
  const byStatus: Record<string, number> = {}
  const count = (status: number) => {
    byStatus[status] = (byStatus[status] ?? 0) + 1
  }
  const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.url.startsWith("/_bench/answers")
      ? Effect.succeed(HttpServerResponse.unsafeJson({ byStatus } satisfies SimulatorAnswers))
      : simulator.app.pipe(
        Effect.tap((response) => count(response.status)),
        Effect.tapErrorCause(() => Effect.sync(() => count(500)))
      ))
  const served = yield* serveHttpApp(app)
  simulator.control.setBaseUrl(served.baseUrl)
  process.stdout.write(`ready ${JSON.stringify({ baseUrl: served.baseUrl })}\n`)
  yield* Effect.async<void>((resume) => {
    process.stdin.once("close", () => resume(Effect.void))
    process.stdin.resume()
  })
}).pipe(Effect.scoped)

NodeRuntime.runMain(program, { disablePrettyLogger: true })
