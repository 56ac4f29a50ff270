/**
 * The provider webhook routes, outside the `/api/v1` contract: providers call them, apps never
 * do. `GET` and `HEAD` (a provider's verification of the subscriber) and `POST` (deliveries) on
 * `/webhooks/<provider slug>/<appId>`. Every answer is JSON or empty; a rejected delivery changes
 * nothing.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { WebhookOutcome } from "./Webhooks.js"
import { Webhooks } from "./Webhooks.js"

const errorTags = { 400: "BadRequest", 401: "Unauthorized", 404: "NotFound" } as const

const answer = (outcome: WebhookOutcome) => {
  switch (outcome._tag) {
    case "Verified":
      return outcome.body === undefined
        ? HttpServerResponse.empty({ status: outcome.status ?? 204 })
        : HttpServerResponse.unsafeJson(outcome.body, { status: outcome.status ?? 200 })
    case "Accepted":
      return HttpServerResponse.empty({ status: outcome.status })
    case "Rejected":
      return HttpServerResponse.unsafeJson({ _tag: errorTags[outcome.status], message: outcome.message }, {
        status: outcome.status
      })
    case "Unavailable":
      return HttpServerResponse.unsafeJson({ _tag: "ServiceUnavailable", message: outcome.message }, {
        status: 503,
        headers: { "retry-after": "300" }
      })
  }
}

/** The raw body (signatures cover the exact bytes); an unreadable one is a 400 answer. */
const readBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.text.pipe(
    Effect.catchTag("RequestError", () =>
      Effect.fail(HttpServerResponse.unsafeJson({ _tag: "BadRequest", message: "Unreadable body" }, { status: 400 })))
  )

export const WebhookRoutesLive = Layer.unwrapEffect(Effect.gen(function*() {
  const webhooks = yield* Webhooks
  const handle = (method: "GET" | "HEAD" | "POST") =>
    Effect.gen(function*() {
      const { appId, slug } = yield* HttpRouter.params
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = method === "POST" ? yield* readBody(request) : ""
      // A HEAD (Withings checks a callback with one before it subscribes it) is the GET without its body, which
      // the platform leaves out of the answer.
      const outcome = yield* webhooks.receive(slug ?? "", appId ?? "", {
        method: method === "HEAD" ? "GET" : method,
        query: new URL(request.url, "http://x").searchParams,
        headers: request.headers,
        body
      })
      return answer(outcome)
    })
  return HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      yield* router.get("/webhooks/:slug/:appId", handle("GET"))
      yield* router.head("/webhooks/:slug/:appId", handle("HEAD"))
      yield* router.post("/webhooks/:slug/:appId", handle("POST"))
    })
  )
}))
