/**
 * The composition of the server: the API with its handlers, the docs and OpenAPI routes,
 * the request middleware, the services over the database, and the HTTPS listener.
 */
import { HttpApiBuilder, HttpApiScalar, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Api } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Apps } from "./Apps.js"
import { Connections } from "./Connections.js"
import { ConnectionsHttpLive } from "./http/Connections.js"
import { JournalHttpLive } from "./http/Journal.js"
import { makeAppMiddleware } from "./http/Middleware.js"
import { OAuthHttpLive } from "./http/OAuth.js"
import { ScoresHttpLive } from "./http/Scores.js"
import { UsersHttpLive } from "./http/Users.js"
import { ServerConfig } from "./ServerConfig.js"
import { loadOrCreateCertificate, makeHttpsServer } from "./Tls.js"
import { Users } from "./Users.js"

/** The domain services; they need a migrated `SqlClient`. */
export const ServicesLive = Layer.mergeAll(Apps.Default, Users.Default, Connections.Default)

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

/** The whole HTTP application, to be given an `HttpServer` and the services. */
export const HttpAppLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  return HttpApiBuilder.serve(makeAppMiddleware({ trustProxy: config.trustProxy })).pipe(
    Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(RootRoutes),
    Layer.provide(ApiLive)
  )
}))

/**
 * The listener: TLS on `PORT` (plain HTTP refused on the same port), or plain HTTP behind a
 * TLS-terminating proxy when `TRUST_PROXY=true`.
 */
export const HttpServerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  if (config.trustProxy) {
    const http = yield* Effect.promise(() => import("node:http"))
    return NodeHttpServer.layer(() => http.createServer(), { port: config.port, host: config.host })
  }
  const tls = yield* loadOrCreateCertificate({
    dataDir: config.dataDir,
    certFile: Option.getOrUndefined(config.tlsCertFile),
    keyFile: Option.getOrUndefined(config.tlsKeyFile)
  })
  return NodeHttpServer.layer(() => makeHttpsServer(tls), { port: config.port, host: config.host })
}))
