/**
 * What every request passes through before and after the API: a request id and structured
 * request logs; the body rules (JSON object, content type, 1 MiB) checked before any handler;
 * the request path (valid percent-encoding, bounded segments); the proxy rule of `TRUST_PROXY`; the
 * JSON error body for everything the API itself does not answer (unknown routes, body-parse
 * failures, defects); and the short `message` of schema-decode errors.
 */
import {
  HttpApiSchema,
  HttpApp,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  Multipart
} from "@effect/platform"
import { ScanPayload } from "@pulsebridge/domain"
import type { Unauthorized } from "@pulsebridge/domain"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import type { IncomingMessage } from "node:http"
import { drain, hasBody, MaxDrainBytes } from "./Drain.js"
import { recordRequest, routeCapture } from "./RequestMetrics.js"

export const MaxJsonBodyBytes = 1024 * 1024

/** How deeply a JSON body may nest arrays and objects; no field of the contract comes near. */
export const MaxJsonDepth = 32

/** The longest segment of an API path: ids are UUIDs, dates ten characters. */
export const MaxPathSegmentLength = 100

const errorResponse = (status: number, tag: string, message: string, extra?: Record<string, unknown>) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message, ...extra }, { status })

export const httpsRequiredMessage =
  "HTTPS is required: this server only accepts requests made over TLS. Use https:// instead of http://."

/** Routes whose body is not JSON (multipart uploads). */
const isMultipartRoute = (url: string) => /^\/api\/v1\/users\/[^/]+\/journal-entries\/scans\/?(\?|$)/.test(url)

/** A scan's whole body: the 10 MiB image plus room for the form's other fields. */
export const MaxScanBodyBytes = 10 * 1024 * 1024 + 64 * 1024

const scanTooLarge = () => errorResponse(413, "PayloadTooLarge", "The image may be at most 10 MiB")

/** Checks a scan upload's envelope before the API parses it (with the limits of its contract). */
const checkScan = (
  request: HttpServerRequest.HttpServerRequest,
  authenticate: MiddlewareOptions["authenticateUpload"]
) =>
  Effect.gen(function*() {
    if (request.method !== "POST" || !isMultipartRoute(request.url)) {
      return Option.none<HttpServerResponse.HttpServerResponse>()
    }
    // Authentication comes first: a request without a valid credential gets its 401 before the form is looked at.
    if (authenticate !== undefined) {
      const authenticated = yield* Effect.either(authenticate)
      if (authenticated._tag === "Left") {
        yield* drain(request)
        return Option.some(errorResponse(401, "Unauthorized", authenticated.left.message))
      }
    }
    const contentType = request.headers["content-type"]?.toLowerCase() ?? ""
    if (!contentType.startsWith("multipart/form-data") || !hasBoundary(contentType)) {
      return Option.some(
        errorResponse(415, "UnsupportedMediaType", "Content-Type must be multipart/form-data with a boundary")
      )
    }
    const length = Number(request.headers["content-length"] ?? 0)
    if (length > MaxScanBodyBytes) {
      yield* drain(request, length)
      return Option.some(scanTooLarge())
    }
    return Option.none()
  })

/** A boundary as RFC 2046 allows it: 1 to 70 characters, quoted or not. */
const hasBoundary = (contentType: string) =>
  /;\s*boundary=(?:"[0-9a-z'()+_,\-./:=? ]{0,69}[0-9a-z'()+_,\-./:=?]"|[0-9a-z'()+_,\-./:=?]{1,70})\s*(?:;|$)/i
    .test(contentType)

const scanLimits = HttpApiSchema.getMultipart(ScanPayload.ast) ?? {}

/**
 * Parses a scan's form with the limits of its contract, before the API does: the platform would
 * turn a failed parse into a 500, while it is the client's error (413 over a size limit, 400 for a
 * body that is not a well-formed form). The parsed form is cached on the request for the API.
 */
const readScan = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (request.method !== "POST" || !isMultipartRoute(request.url)) {
      return Option.none<HttpServerResponse.HttpServerResponse>()
    }
    // Requests are served uninterruptibly; the race must be able to stop its loser.
    const parsed = yield* Effect.interruptible(Effect.raceFirst(
      // Disconnected: a stalled parse is left to be interrupted in the background.
      Effect.disconnect(Effect.either(Multipart.withLimits(request.multipart, scanLimits))),
      Effect.map(watchBody(request), Either.left)
    ))
    if (parsed._tag === "Right") return Option.none()
    // The rest of a refused upload is read and dropped, so that the client gets to see the answer.
    yield* drain(request, Number(request.headers["content-length"] ?? 0))
    return multipartFailure(parsed.left)
  })

const truncated = new Multipart.MultipartError({ reason: "Parse", cause: "the body ended inside a part" })
const overLimit = new Multipart.MultipartError({ reason: "BodyTooLarge", cause: "the body is over the limit" })

/**
 * Watches a scan's body while the platform parses it, for the two cases where its parser (v3) waits
 * forever instead of failing: a part over a size limit (so the limit is enforced here, on the bytes
 * the connection has received, which also covers bodies sent without a length), and a body that ends
 * inside a file part (a parse still running a moment after the last byte arrived).
 */
const watchBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.async<Multipart.MultipartError>((resume) => {
    const source = request.source as IncomingMessage
    const socket = source.socket
    const start = socket?.bytesRead ?? 0
    let stalled: ReturnType<typeof setTimeout> | undefined
    const ended = () => {
      stalled ??= setTimeout(() => resume(Effect.succeed(truncated)), 2000)
    }
    // `complete` turns true once the whole body has arrived, even while the parser leaves it unread.
    const meter = setInterval(() => {
      if (socket !== undefined && socket !== null && socket.bytesRead - start > MaxScanBodyBytes) {
        resume(Effect.succeed(overLimit))
      } else if (source.complete) ended()
    }, 50)
    if (source.complete || source.readableEnded || source.destroyed) ended()
    source.once("end", ended)
    source.once("close", ended)
    return Effect.sync(() => {
      clearInterval(meter)
      if (stalled !== undefined) clearTimeout(stalled)
      source.off("end", ended)
      source.off("close", ended)
    })
  })

const multipartFailure = (error: Multipart.MultipartError) => {
  // A limit reached while a file is written arrives as an InternalError around the parser's ReachedLimit.
  const cause = error.cause as { readonly _tag?: unknown; readonly limit?: unknown } | null | undefined
  const limit = cause !== null && typeof cause === "object" && cause._tag === "ReachedLimit" ? cause.limit : undefined
  if (error.reason === "InternalError" && limit === undefined) {
    return Option.some(errorResponse(400, "BadRequest", "The upload could not be read to its end"))
  }
  if (
    error.reason === "FileTooLarge" || error.reason === "BodyTooLarge" || limit === "MaxPartSize" ||
    limit === "MaxTotalSize"
  ) return Option.some(scanTooLarge())
  return Option.some(errorResponse(
    400,
    "BadRequest",
    error.reason === "TooManyParts" || limit === "MaxParts"
      ? "The form has too many parts"
      : error.reason === "FieldTooLarge" || limit === "MaxFieldSize"
      ? "A form field is too large"
      : "The multipart body is malformed or truncated"
  ))
}

const isJsonContentType = (contentType: string) => {
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase()
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)
}

/** The routes of the contract's API and of the portal's JSON API. */
const isJsonApi = (url: string) => url.startsWith("/api/") || url.startsWith("/portal/api/")

/** Reads and checks a JSON body before routing; the parsed text stays cached on the request. */
const checkBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") {
      return Option.none<HttpServerResponse.HttpServerResponse>()
    }
    // Only the API (and the portal's API) speaks JSON; the sandbox providers parse their own (form) bodies.
    if (!isJsonApi(request.url) || isMultipartRoute(request.url) || !hasBody(request.headers)) {
      return Option.none()
    }
    const length = Number(request.headers["content-length"] ?? 0)
    if (length > MaxJsonBodyBytes) {
      yield* drain(request, length)
      return Option.some(errorResponse(413, "PayloadTooLarge", "The request body may be at most 1 MiB"))
    }
    const contentType = request.headers["content-type"]
    if (contentType === undefined || !isJsonContentType(contentType)) {
      return Option.some(errorResponse(400, "BadRequest", "Content-Type must be application/json"))
    }
    // A body without a length is read up to the drain limit, so an oversize one still gets its 413.
    const text = yield* request.text.pipe(
      HttpServerRequest.withMaxBodySize(Option.some(length > 0 ? MaxJsonBodyBytes : MaxDrainBytes)),
      Effect.either
    )
    if (text._tag === "Left") {
      const tooLarge = String((text.left as { cause?: unknown }).cause).includes("maxBytes")
      return Option.some(
        tooLarge
          ? errorResponse(413, "PayloadTooLarge", "The request body may be at most 1 MiB")
          : errorResponse(400, "BadRequest", "The request body could not be read")
      )
    }
    if (Buffer.byteLength(text.right) > MaxJsonBodyBytes) {
      return Option.some(errorResponse(413, "PayloadTooLarge", "The request body may be at most 1 MiB"))
    }
    let body: unknown
    try {
      body = JSON.parse(text.right)
    } catch (e) {
      return Option.some(errorResponse(400, "BadRequest", `Malformed JSON body: ${(e as Error).message}`))
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return Option.some(errorResponse(400, "BadRequest", "The request body must be a JSON object"))
    }
    // Deeply nested values are refused before any schema walks (and formats) them recursively.
    if (jsonDepthOver(body, MaxJsonDepth)) {
      return Option.some(
        errorResponse(400, "BadRequest", `The request body may nest arrays and objects at most ${MaxJsonDepth} deep`)
      )
    }
    return Option.none()
  })

/** Whether a parsed JSON value nests arrays and objects deeper than `max` (without recursion). */
export const jsonDepthOver = (value: unknown, max: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!
    if (typeof next !== "object" || next === null) continue
    if (depth > max) return true
    for (const inner of Array.isArray(next) ? next : Object.values(next)) pending.push([inner, depth + 1])
  }
  return false
}

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
const emptyErrorBody = (status: number, requestId: string) =>
  Effect.sync(() => {
    if (status === 404) return errorResponse(404, "NotFound", "No such route")
    if (status === 405) return errorResponse(405, "MethodNotAllowed", "Method not allowed on this route")
    if (status === 413) return errorResponse(413, "PayloadTooLarge", "The request body is too large")
    if (status === 400) return errorResponse(400, "BadRequest", "The request could not be parsed")
    if (status < 500) return errorResponse(status, "BadRequest", "The request was not accepted")
    return errorResponse(status, "InternalServerError", "Internal server error", { requestId })
  })

/** The status the platform answered a failed request with (it maps its own errors itself). */
const failureStatus = (cause: Cause.Cause<unknown>): number => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && HttpServerError.isServerError(failure.value)) {
    if (failure.value._tag === "RouteNotFound") return 404
    if (failure.value._tag === "RequestError") return 400
  }
  return 500
}

export interface MiddlewareOptions {
  readonly trustProxy: boolean
  /**
   * Whether spans are exported (default true). When they are not, a request makes none at all (each would be
   * built, timed and dropped): the router's route name, which the request metrics need, goes to a stand-in.
   */
  readonly tracing?: boolean
  /**
   * The credential check of the upload route (the user-token check, memoised per request so the
   * API's own check reuses it): run before the upload's envelope is checked, so that 401 comes
   * before 413 or 415.
   */
  readonly authenticateUpload?: Effect.Effect<unknown, Unauthorized, HttpServerRequest.HttpServerRequest>
  /** Wraps the checks and the app with the request rate limits (`RateLimiter.middleware`). */
  readonly rateLimit?: <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>
}

export const makeAppMiddleware =
  (options: MiddlewareOptions) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R | HttpServerRequest.HttpServerRequest> => {
    const inner = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (options.trustProxy && request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() !== "https") {
        return errorResponse(400, "HttpsRequired", httpsRequiredMessage)
      }
      const badPath = checkPath(request)
      if (Option.isSome(badPath)) return badPath.value
      // Requests without a body (most of them) have nothing more to check.
      if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return yield* app
      const rejected = yield* checkBody(request)
      if (Option.isSome(rejected)) return rejected.value
      const refusedScan = yield* checkScan(request, options.authenticateUpload)
      if (Option.isSome(refusedScan)) return refusedScan.value
      const unreadable = yield* readScan(request)
      if (Option.isSome(unreadable)) return unreadable.value
      return yield* app
    })
    // Logs the path without its query string: OAuth callbacks carry codes there.
    const logged = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = Date.now()
      const exit = yield* Effect.exit(options.rateLimit === undefined ? inner : options.rateLimit(inner))
      const status = exit._tag === "Success" ? exit.value.status : failureStatus(exit.cause)
      yield* recordRequest(request, status, Date.now() - started)
      const annotations = {
        "http.method": request.method,
        "http.path": request.url.split("?")[0],
        "http.status": status,
        "http.durationMs": Date.now() - started
      }
      if (exit._tag === "Failure" && status >= 500) {
        yield* Effect.logError("Request failed", exit.cause).pipe(Effect.annotateLogs(annotations))
      } else {
        yield* Effect.log("Sent HTTP response").pipe(Effect.annotateLogs(annotations))
      }
      return yield* exit
    })
    return Effect.gen(function*() {
      const requestId = crypto.randomUUID()
      // Responses of the router and of the platform's error handling (unknown route, defects)
      // are sent after this middleware returns; a pre-response handler reaches them all.
      yield* HttpApp.appendPreResponseHandler((_request, response) =>
        Effect.map(
          response.status >= 400 && response.body._tag === "Empty"
            ? emptyErrorBody(response.status, requestId)
            : Effect.succeed(withShortDecodeMessage(response)),
          (response) => HttpServerResponse.setHeader(response, "x-request-id", requestId)
        )
      )
      const traced = options.tracing === false
        ? Effect.withTracerEnabled(Effect.withParentSpan(logged, routeCapture()), false)
        : logged
      const response = yield* traced.pipe(Effect.annotateLogs("requestId", requestId))
      // Responses returned here before reaching the app do not pass the pre-response handlers.
      return HttpServerResponse.setHeader(response, "x-request-id", requestId)
    }) as HttpApp.Default<never, R | HttpServerRequest.HttpServerRequest>
  }
