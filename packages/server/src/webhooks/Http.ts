/**
 * The provider webhook routes, outside the `/api/v1` contract: providers call them, apps never
 * do. Every answer is JSON or empty; a rejected delivery changes nothing.
 */
import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { WebhookOutcome } from "./Webhooks.js"
import { Webhooks } from "./Webhooks.js"

const errorTags = { 400: "BadRequest", 401: "Unauthorized", 404: "NotFound" } as const

const answer = (outcome: WebhookOutcome, okStatus: number) =>
  outcome._tag === "Accepted"
    ? HttpServerResponse.empty({ status: okStatus })
    : HttpServerResponse.unsafeJson({ _tag: errorTags[outcome.status], message: outcome.message }, {
      status: outcome.status
    })

/** The raw body (signatures cover the exact bytes); an unreadable one is a 400 answer. */
const readBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.text.pipe(
    Effect.catchTag("RequestError", () =>
      Effect.fail(HttpServerResponse.unsafeJson({ _tag: "BadRequest", message: "Unreadable body" }, { status: 400 })))
  )

const header = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => request.headers[name]

export const WebhookRoutesLive = Layer.unwrapEffect(Effect.gen(function*() {
  const webhooks = yield* Webhooks
  return HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      yield* router.get(
        "/webhooks/fitbit/:appId",
        Effect.gen(function*() {
          const { appId } = yield* HttpRouter.params
          const request = yield* HttpServerRequest.HttpServerRequest
          const code = new URL(request.url, "http://x").searchParams.get("verify") ?? undefined
          const ok = yield* webhooks.fitbitVerify(appId ?? "", code)
          return ok
            ? HttpServerResponse.empty({ status: 204 })
            : HttpServerResponse.unsafeJson({ _tag: "NotFound", message: "Wrong verification code" }, { status: 404 })
        })
      )
      yield* router.post(
        "/webhooks/fitbit/:appId",
        Effect.gen(function*() {
          const { appId } = yield* HttpRouter.params
          const request = yield* HttpServerRequest.HttpServerRequest
          const body = yield* readBody(request)
          return answer(yield* webhooks.fitbit(appId ?? "", body, header(request, "x-fitbit-signature")), 204)
        })
      )
      yield* router.post(
        "/webhooks/whoop/:appId",
        Effect.gen(function*() {
          const { appId } = yield* HttpRouter.params
          const request = yield* HttpServerRequest.HttpServerRequest
          const body = yield* readBody(request)
          return answer(
            yield* webhooks.whoop(
              appId ?? "",
              body,
              header(request, "x-whoop-signature"),
              header(request, "x-whoop-signature-timestamp")
            ),
            204
          )
        })
      )
      yield* router.post(
        "/webhooks/garmin/:appId",
        Effect.gen(function*() {
          const { appId } = yield* HttpRouter.params
          const request = yield* HttpServerRequest.HttpServerRequest
          const body = yield* readBody(request)
          return answer(yield* webhooks.garmin(appId ?? "", body, header(request, "garmin-client-id")), 200)
        })
      )
    })
  )
}))
