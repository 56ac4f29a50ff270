/**
 * What every request passes through before and after the API: a request id and structured
 * request logs; the proxy rule of `TRUST_PROXY`; the request path (valid percent-encoding, bounded
 * segments); the body rules (`BodyRules`) and the scan upload's reader (`ScanUpload`) before any
 * handler; the JSON error body for everything the API itself does not answer (unknown routes,
 * body-parse failures, defects); the short `message` of schema-decode errors; and the headers every
 * answer gets (`ResponseHeaders`: HSTS, `Cache-Control`); the request's deadline (`Deadline`).
 *
 * Every request passes here, so the bookkeeping is done in plain calls on the request's own fiber: one
 * pre-response handler for all the answer's headers, metrics updated in place, the deadline a timer; a request
 * without a body to check reaches the app with no effect of this middleware's own between.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Unauthorized } from "@pulsebridge/domain"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import type * as http from "node:http"
import { checkBody, isJsonApi } from "./BodyRules.js"
import { compressResponse } from "./Compression.js"
import type { DeadlineOptions } from "./Deadline.js"
import { deadlineMsOf, overDeadline, startDeadline } from "./Deadline.js"
import { errorResponse } from "./ErrorResponse.js"
import { annotateRequestLogs, untracedRequest } from "./RequestFiber.js"
import { recordRequest, routeCapture } from "./RequestMetrics.js"
import { withResponseHeaders } from "./ResponseHeaders.js"
import { checkScan, readScan } from "./ScanUpload.js"

/** The status a request whose client closed its connection before the answer is logged and counted with. */
export const ClientClosedRequest = 499

/** The longest segment of an API path: ids are UUIDs, dates ten characters. */
export const MaxPathSegmentLength = 100

export const httpsRequiredMessage =
  "HTTPS is required: this server only accepts requests made over TLS. Use https:// instead of http://."

/**
 * Refuses API paths the router cannot match although their route exists: a segment that is not
 * valid percent-encoded UTF-8, or one longer than any id (the router gives up on those with a 404).
 */
const checkPath = (request: HttpServerRequest.HttpServerRequest) => {
  if (!isJsonApi(request.url)) return Option.none<HttpServerResponse.HttpServerResponse>()
  const path = request.url.split("?")[0]!
  for (const segment of path.split("/")) {
    if (segment.length > MaxPathSegmentLength) {
      return Option.some(errorResponse(
        400,
        "BadRequest",
        `A path segment may be at most ${MaxPathSegmentLength} characters; ids are UUIDs`
      ))
    }
    try {
      decodeURIComponent(segment)
    } catch {
      return Option.some(errorResponse(400, "BadRequest", "The request path is not valid percent-encoded UTF-8"))
    }
  }
  return Option.none()
}

/** The first issue of a decode error, in one short line ("externalUserId: expected a non-empty string"). */
export const shortDecodeMessage = (issues: ReadonlyArray<{ readonly path?: unknown; readonly message?: unknown }>) => {
  const first = issues[0]
  if (first === undefined) return "The request did not match the expected schema"
  const path = Array.isArray(first.path) ? first.path.map(String).join(".") : ""
  const text = String(first.message ?? "is invalid")
  const line = `${path === "" ? "request" : path}: ${text.charAt(0).toLowerCase()}${text.slice(1)}`
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
  return line.length > 200 ? `${line.slice(0, 199)}…${more}` : `${line}${more}`
}

/**
 * Gives a schema-decode error a short human `message` beside its `issues` (the platform puts the
 * whole formatted tree there, which repeats the value that failed).
 */
const withShortDecodeMessage = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 400 || response.body._tag !== "Uint8Array") return response
  let body: { _tag?: unknown; issues?: unknown }
  try {
    body = JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return response
  }
  if (body?._tag !== "HttpApiDecodeError" || !Array.isArray(body.issues)) return response
  return HttpServerResponse.unsafeJson({ ...body, message: shortDecodeMessage(body.issues) }, {
    status: 400,
    headers: response.headers
  })
}

/** Error responses produced below the API (router, platform) come without a body; give them one. */
const emptyErrorBody = (status: number, requestId: string) => {
  if (status === 404) return errorResponse(404, "NotFound", "No such route")
  if (status === 405) return errorResponse(405, "MethodNotAllowed", "Method not allowed on this route")
  if (status === 413) return errorResponse(413, "PayloadTooLarge", "The request body is too large")
  if (status === 400) return errorResponse(400, "BadRequest", "The request could not be parsed")
  if (status < 500) return errorResponse(status, "BadRequest", "The request was not accepted")
  return errorResponse(status, "InternalServerError", "Internal server error", { requestId })
}

/**
 * Whether the request's client went away before its answer was written out: its connection closed with the answer
 * unfinished. The platform then interrupts the request, or its streamed body fails ("Premature close").
 */
const clientGone = (request: HttpServerRequest.HttpServerRequest): boolean => {
  // A request not served by Node's HTTP server (none is, today) has no such response.
  const response = NodeHttpServerRequest.toServerResponse(request) as http.ServerResponse | undefined
  return response !== undefined && response.destroyed && !response.writableFinished
}

/**
 * The status the platform answered a failed request with (it maps its own errors itself), or 499 (as proxies log
 * it) for a request whose client closed its connection first: not a failure of the server.
 */
const failureStatus = (request: HttpServerRequest.HttpServerRequest, cause: Cause.Cause<unknown>): number => {
  if (clientGone(request)) return ClientClosedRequest
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && HttpServerError.isServerError(failure.value)) {
    if (failure.value._tag === "RouteNotFound") return 404
    if (failure.value._tag === "RequestError") return 400
  }
  return 500
}

/**
 * What a wrapper of the app (the rate limiter) leaves for the request's answer, set while the request runs and read
 * by the middleware's one pre-response handler: headers for every answer the app gives, and an effect to run before
 * a 401 is written (the failure charge). A wrapper sets these rather than adding a pre-response handler of its own,
 * which would cost each request another copy of its fiber's references.
 */
export interface AnswerHooks {
  headers: Readonly<Record<string, string>> | undefined
  beforeUnauthorized: Effect.Effect<void> | undefined
}

export interface MiddlewareOptions {
  readonly trustProxy: boolean
  /** The `Strict-Transport-Security` value every answer carries (`hstsHeader`); none when undefined. */
  readonly hsts?: string | undefined
  /**
   * Whether spans are exported (default true). When they are not, a request makes none at all (each would be
   * built, timed and dropped): the router's route name, which the request metrics need, goes to a stand-in.
   */
  readonly tracing?: boolean
  /** The request's deadline (`REQUEST_TIMEOUT_MS`, `UPLOAD_TIMEOUT_MS`); none when undefined. */
  readonly deadline?: DeadlineOptions | undefined
  /**
   * The credential check of the upload route (the user-token check, memoised per request so the
   * API's own check reuses it): run before the upload's envelope is checked, so that 401 comes
   * before 413 or 415.
   */
  readonly authenticateUpload?: Effect.Effect<unknown, Unauthorized, HttpServerRequest.HttpServerRequest>
  /**
   * Wraps the checks and the app with the request rate limits (`RateLimiter.middleware`), which put their headers
   * and failure charge on the answer through `hooks`.
   */
  readonly rateLimit?: <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
    hooks: AnswerHooks
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>
}

export const makeAppMiddleware =
  (options: MiddlewareOptions) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R | HttpServerRequest.HttpServerRequest> => {
    const headers = withResponseHeaders(options.hsts)
    /** The request's checks before the app: the proxy rule, the path, and for a body its rules and the upload. */
    const checked = (request: HttpServerRequest.HttpServerRequest) => {
      if (options.trustProxy && request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() !== "https") {
        return Effect.succeed(errorResponse(400, "HttpsRequired", httpsRequiredMessage))
      }
      const badPath = checkPath(request)
      if (Option.isSome(badPath)) return Effect.succeed(badPath.value)
      // Requests without a body (most of them) have nothing more to check.
      if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return app
      return Effect.gen(function*() {
        const rejected = yield* checkBody(request)
        if (Option.isSome(rejected)) return rejected.value
        const refusedScan = yield* checkScan(request, options.authenticateUpload)
        if (Option.isSome(refusedScan)) return refusedScan.value
        const unreadable = yield* readScan(request)
        if (Option.isSome(unreadable)) return unreadable.value
        return yield* app
      })
    }
    const limited = (request: HttpServerRequest.HttpServerRequest, hooks: AnswerHooks) =>
      options.rateLimit === undefined ? checked(request) : options.rateLimit(checked(request), hooks)

    return Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, unknown, unknown>((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const requestId = crypto.randomUUID()
      const started = Date.now()
      const deadline = options.deadline === undefined
        ? undefined
        : startDeadline(fiber, deadlineMsOf(options.deadline, request))
      const idHeader = { "x-request-id": requestId }
      const hooks: AnswerHooks = { headers: undefined, beforeUnauthorized: undefined }
      const finish = (response: HttpServerResponse.HttpServerResponse) => headers(request.url, response, idHeader)
      /** The answer the pre-response handler made, which the platform writes; none until it ran. */
      let sent: HttpServerResponse.HttpServerResponse | undefined
      // Responses of the router and of the platform's error handling (unknown route, defects, the deadline's
      // interruption) are sent from inside the app; a pre-response handler, the first and only one, reaches them
      // all, and compresses them last (`Compression.ts`).
      const preResponse: HttpApp.PreResponseHandler = (_request, response) => {
        deadline?.stop()
        // Whatever the app made of its interruption (the platform's 503, a mounted simulator's own 500).
        const answer = deadline?.passed() === true
          ? overDeadline(deadline.ms)
          : response.status >= 400 && response.body._tag === "Empty"
          ? emptyErrorBody(response.status, requestId)
          : withShortDecodeMessage(response)
        const extra = hooks.headers === undefined ? idHeader : { ...hooks.headers, ...idHeader }
        const compressed = compressResponse(request, headers(request.url, answer, extra))
        const written = Effect.map(compressed, (final) => (sent = final))
        // Before the answer is written: a client's next guess must find its failure already charged.
        return answer.status === 401 && hooks.beforeUnauthorized !== undefined
          ? Effect.zipRight(hooks.beforeUnauthorized, written)
          : written
      }
      // Logs the path without its query string: OAuth callbacks carry codes there.
      const logged = (status: number, cause?: Cause.Cause<unknown>) => {
        const durationMs = Date.now() - started
        recordRequest(fiber, request, status, durationMs)
        return Effect.zipRight(
          annotateRequestLogs({
            "http.method": request.method,
            "http.path": request.url.split("?")[0],
            "http.status": status,
            "http.durationMs": durationMs
          }),
          cause !== undefined
            ? Effect.logError("Request failed", cause)
            : Effect.log(status === ClientClosedRequest ? "Client closed the request" : "Sent HTTP response")
        )
      }
      const served = Effect.zipRight(
        Effect.zipRight(
          annotateRequestLogs({ requestId }),
          options.tracing === false
            ? Effect.zipRight(untracedRequest(routeCapture()), HttpApp.appendPreResponseHandler(preResponse))
            : HttpApp.appendPreResponseHandler(preResponse)
        ),
        Effect.matchCauseEffect(limited(request, hooks), {
          onFailure: (cause) => {
            deadline?.stop()
            const overdue = deadline?.passed() === true
            const status = overdue ? 503 : failureStatus(request, cause)
            return Effect.zipRight(
              logged(status, status >= 500 && !overdue ? cause : undefined),
              Effect.failCause(cause)
            )
          },
          onSuccess: (response) => {
            deadline?.stop()
            // An answer the pre-response handler made is the one written (the platform ignores what is returned
            // here then); responses returned here before reaching the app do not pass the pre-response handlers.
            const answer = sent ?? finish(response)
            return Effect.as(logged(clientGone(request) ? ClientClosedRequest : answer.status), answer)
          }
        })
      )
      return served
    }) as HttpApp.Default<never, R | HttpServerRequest.HttpServerRequest>
  }
