/**
 * The end-to-end harness: the real server layer (handlers, middleware, TLS listener) on a free
 * loopback port over a test database, and an `HttpClient` that trusts its certificate.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Client from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpServer from "@effect/platform/HttpServer"
import { Api, CreateUserPayload } from "@pulsebridge/domain"
import { ProviderRegistry } from "@pulsebridge/providers"
import type { SimulatorRegistry } from "@pulsebridge/sandbox"
import {
  Apps,
  clientSecureContext,
  defaultRateLimits,
  loadOrCreateCertificate,
  ServerConfig,
  Users
} from "@pulsebridge/server"
import type { ServerConfigShape } from "@pulsebridge/server"
import { AppLive, SandboxSimulators } from "@pulsebridge/server/App"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as tls from "node:tls"
import { testCacheDir } from "./Cache.js"
import { TestDatabaseLive } from "./TestDatabase.js"

export class TestServer extends Context.Tag("@pulsebridge/testing/TestServer")<TestServer, {
  readonly baseUrl: string
  readonly port: number
  readonly dataDir: string
  readonly ca: string
}>() {}

/** A temporary data dir, removed when the scope closes. */
export const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), prefix))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * The configuration's defaults (no `/metrics` on the public port, no metrics listener, no telemetry export) on a
 * free loopback port over `dataDir`, with `overrides` over them.
 */
export const testConfig = (dataDir: string, overrides: Partial<ServerConfigShape> = {}): ServerConfigShape =>
  ServerConfig.make({
    port: 0,
    host: "127.0.0.1",
    dataDir,
    analyzer: "offline",
    // The suite sends many requests quickly with one key; rate-limit tests turn the limits on.
    rateLimits: { ...defaultRateLimits, enabled: false },
    otelServiceName: "pulsebridge-test",
    ...overrides
  })

/**
 * Puts the harness's self-signed certificate into `dataDir/tls`, where the server looks before it
 * generates one: an RSA key per test server costs CPU and tests nothing that the TLS tests and the
 * child-process servers do not. The certificate is made once, by the server's own code, in the cache.
 */
const seedCertificate = (dataDir: string) =>
  Effect.gen(function*() {
    const { cert, key } = yield* loadOrCreateCertificate({ dataDir: testCacheDir }).pipe(Effect.orDie)
    const dir = path.join(dataDir, "tls")
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    fs.writeFileSync(path.join(dir, "key.pem"), key, { mode: 0o600 })
    fs.writeFileSync(path.join(dir, "cert.pem"), cert, { mode: 0o644 })
  })

/**
 * The server and everything a test needs: `TestServer`, an `HttpClient` trusting the server's
 * certificate, and the `Apps`/`Users` services over the same database.
 */
/**
 * The TLS context of a client that trusts only `ca` (the test server's certificate), made once per certificate: a
 * `ca` option is parsed again for every connection, which was a fifth of the suite's CPU.
 */
export const trusting = (ca: string): tls.SecureContext => {
  let context = trustingContexts.get(ca)
  if (context === undefined) {
    context = clientSecureContext(ca, { withSystemRoots: false })
    trustingContexts.set(ca, context)
  }
  return context
}
const trustingContexts = new Map<string, tls.SecureContext>()

export const makeTestServer = (
  overrides: Partial<ServerConfigShape> = {},
  registries: {
    /** The provider plug-ins (the built-in ones unless a test registers others). */
    readonly providers?: Layer.Layer<ProviderRegistry> | undefined
    /** The simulators sandbox mode may mount (the built-in ones unless a test registers others). */
    readonly simulators?: SimulatorRegistry | undefined
    /** The server's least log level (Warning: the suite's output stays short). */
    readonly logLevel?: LogLevel.LogLevel | undefined
  } = {}
) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const dataDir = yield* tempDir("pulsebridge-test-")
    const config = testConfig(dataDir, overrides)
    if (Option.isNone(config.tlsCertFile) && !config.trustProxy) yield* seedCertificate(dataDir)
    const ConfigLive = Layer.succeed(ServerConfig, config)
    const Http = AppLive.pipe(
      Layer.provideMerge(registries.providers ?? ProviderRegistry.Default),
      Layer.provideMerge(
        registries.simulators === undefined ? Layer.empty : Layer.succeed(SandboxSimulators, registries.simulators)
      ),
      Layer.provideMerge(TestDatabaseLive),
      Layer.provideMerge(ConfigLive)
    )
    const Info = Layer.effect(
      TestServer,
      Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const port = server.address._tag === "TcpAddress" ? server.address.port : 0
        const scheme = config.trustProxy ? "http" : "https"
        const ca = config.trustProxy ? "" : fs.readFileSync(path.join(dataDir, "tls", "cert.pem"), "utf8")
        return { baseUrl: `${scheme}://127.0.0.1:${port}`, port, dataDir, ca }
      })
    )
    // Behind a TLS proxy (`trustProxy`) the server serves only what the proxy marks as https: the client
    // marks every request so unless the test sets the header itself.
    const AsProxied = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (client) =>
        Client.mapRequest(client, (request) =>
          request.headers["x-forwarded-proto"] === undefined
            ? HttpClientRequest.setHeader(request, "x-forwarded-proto", "https")
            : request))
    )
    const ClientLive = Layer.unwrapEffect(Effect.map(TestServer, (info) => {
      const client = NodeHttpClient.layerWithoutAgent.pipe(
        Layer.provide(NodeHttpClient.makeAgentLayer(info.ca === "" ? {} : { secureContext: trusting(info.ca) }))
      )
      return config.trustProxy ? Layer.provide(AsProxied, client) : client
    }))
    return ClientLive.pipe(
      Layer.provideMerge(Info),
      Layer.provideMerge(Http),
      Layer.provide(Logger.minimumLogLevel(registries.logLevel ?? LogLevel.Warning))
    )
  }))

/** The typed client of the API with a credential sent as bearer token (or none). */
export const apiClient = (credential?: string) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer
    return yield* HttpApiClient.make(Api, {
      baseUrl,
      transformClient: (client: HttpClient.HttpClient) =>
        credential === undefined ? client : client.pipe(Client.mapRequest(HttpClientRequest.bearerToken(credential)))
    })
  })

/** A new app with a full-permission API key. */
export const createApp = (name = "test app") => Effect.flatMap(Apps, (apps) => apps.create(name))

/** A new app and one user of it, with the user's token. */
export const createUser = (externalUserId = "user-1") =>
  Effect.gen(function*() {
    const { apiKey, app } = yield* createApp()
    const users = yield* Users
    const created = yield* users.create(app.id, new CreateUserPayload({ externalUserId }))
    return { app, apiKey, user: created.user, token: created.token }
  })
