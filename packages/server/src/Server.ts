/**
 * The composition of the server: the API with its handlers, the docs and OpenAPI routes,
 * the request middleware, the services over the database, and the HTTPS listener.
 */
import { HttpApiBuilder, HttpApiScalar, HttpServerResponse } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { Api } from "@pulsebridge/domain"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as http from "node:http"
import * as tls from "node:tls"
import { ConnectFlow } from "./connections/ConnectFlow.js"
import { ConnectionTokens } from "./connections/ConnectionTokens.js"
import { ConnectionsHttpLive } from "./connections/Http.js"
import { OAuthHttpLive } from "./connections/OAuthHttp.js"
import { ProviderAccess } from "./connections/ProviderAccess.js"
import { JournalHttpLive } from "./http/Journal.js"
import { makeAppMiddleware } from "./http/Middleware.js"
import { ScoresHttpLive } from "./http/Scores.js"
import { ServerBases } from "./platform/ServerBases.js"
import { ServerConfig } from "./platform/ServerConfig.js"
import { loadOrCreateCertificate, makeHttpsServer } from "./platform/Tls.js"
import { SyncLive } from "./sync/SyncCluster.js"
import { UsersHttpLive } from "./users/Http.js"
import { WebhookRoutesLive } from "./webhooks/Http.js"
import { Webhooks } from "./webhooks/Webhooks.js"

export { ServicesLive } from "./Services.js"

/** The certificate this server presents, so it can call itself (the sandbox providers). */
export class ServerCertificate extends Context.Tag("@pulsebridge/server/ServerCertificate")<ServerCertificate, {
  readonly cert: string | null
}>() {}

/**
 * The HTTP client for provider calls. It trusts the public CAs and this server's own
 * certificate, which the sandbox providers mounted on this server present.
 */
export const ProviderHttpClientLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { cert } = yield* ServerCertificate
  const ca = cert === null ? undefined : [...tls.rootCertificates, cert]
  return NodeHttpClient.layerWithoutAgent.pipe(
    Layer.provide(NodeHttpClient.makeAgentLayer(ca === undefined ? {} : { ca }))
  )
}))

/** The connect flow and what it needs beside the data model: it runs inside a listening server. */
export const ConnectServicesLive = Layer.mergeAll(ConnectFlow.Default, Webhooks.Default).pipe(
  Layer.provideMerge(SyncLive),
  Layer.provideMerge(ConnectionTokens.Default),
  Layer.provideMerge(ProviderAccess.Default),
  Layer.provideMerge(ProviderRegistry.Default),
  Layer.provideMerge(ServerBases.layer),
  Layer.provideMerge(ProviderHttpClientLive)
)

export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([UsersHttpLive, ConnectionsHttpLive, JournalHttpLive, ScoresHttpLive, OAuthHttpLive])
)

const RootRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    yield* router.get(
      "/",
      Effect.succeed(HttpServerResponse.unsafeJson({
        name: "PulseBridge",
        api: "/api/v1",
        docs: "/docs",
        openapi: "/openapi.json"
      }))
    )
    yield* router.get("/health", Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" })))
  })
)

/**
 * The whole HTTP application, to be given an `HttpServer` and the services. `extraRoutes`
 * registers more routes on the same router (`HttpApiBuilder.Router.use`), e.g. the sandbox
 * providers.
 */
export const makeHttpAppLive = <E, R>(extraRoutes: Layer.Layer<never, E, R>) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* ServerConfig
    return HttpApiBuilder.serve(makeAppMiddleware({ trustProxy: config.trustProxy })).pipe(
      Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
      Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
      Layer.provide(RootRoutes),
      Layer.provide(WebhookRoutesLive),
      Layer.provide(extraRoutes),
      Layer.provide(ApiLive)
    )
  }))

export const HttpAppLive = makeHttpAppLive(Layer.empty)

/**
 * The listener: TLS on `PORT` (plain HTTP refused on the same port), or plain HTTP behind a
 * TLS-terminating proxy when `TRUST_PROXY=true`.
 */
export const HttpServerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  if (config.trustProxy) {
    return NodeHttpServer.layer(() => http.createServer(), { port: config.port, host: config.host }).pipe(
      Layer.merge(Layer.succeed(ServerCertificate, { cert: null }))
    )
  }
  const certificate = yield* loadOrCreateCertificate({
    dataDir: config.dataDir,
    certFile: Option.getOrUndefined(config.tlsCertFile),
    keyFile: Option.getOrUndefined(config.tlsKeyFile)
  })
  return NodeHttpServer.layer(() => makeHttpsServer(certificate), { port: config.port, host: config.host }).pipe(
    Layer.merge(Layer.succeed(ServerCertificate, { cert: certificate.cert }))
  )
}))
