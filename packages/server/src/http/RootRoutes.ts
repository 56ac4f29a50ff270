/**
 * The routes outside the contract that every deployment has: `/` names the service and its
 * documents, `/health` answers a load balancer's probe.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"

export const RootRoutesLive = HttpApiBuilder.Router.use((router) =>
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
