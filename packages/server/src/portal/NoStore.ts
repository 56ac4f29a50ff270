/**
 * `Cache-Control: no-store` on every answer of the portal's JSON API (`/portal/api/...`): they carry the
 * session's CSRF token, operators, keys' prefixes and users' health data, which no browser or proxy
 * cache may keep. Errors too, whoever answers them: the API's handlers, its session check, the body rules
 * and rate limits in front of it, or the platform's answer to a failure.
 */
import type { HttpApp } from "@effect/platform"
import { HttpApp as App, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"

const isPortalApi = (url: string) => url === "/portal/api" || /^\/portal\/api[/?]/.test(url)

const noStore = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeader(response, "cache-control", "no-store")

/**
 * Wraps the application's middleware. What the app answers is sent from inside it, through the pre-response
 * handlers, so the header is added by one registered after the middleware's own (which may replace an error's
 * response); what the middleware answers itself, before the app, is returned through it.
 */
export const withPortalNoStore = <E, R, E2, R2>(
  middleware: (app: HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest>) => HttpApp.Default<E2, R2>
) =>
(app: HttpApp.Default<E, R>): HttpApp.Default<E2, R2 | HttpServerRequest.HttpServerRequest> => {
  const inner = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (isPortalApi(request.url)) {
      yield* App.appendPreResponseHandler((_request, response) => Effect.succeed(noStore(response)))
    }
    return yield* app
  })
  const outer = middleware(inner)
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    return isPortalApi(request.url) ? noStore(yield* outer) : yield* outer
  })
}
