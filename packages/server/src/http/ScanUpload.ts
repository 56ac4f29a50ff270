/**
 * The scan upload, the one route whose body is a multipart form rather than JSON, read before the
 * API parses it. The route is the contract's (`journal.scan`: its method and path), and so are the
 * form's limits (`ScanPayload`). Its credential is checked first, then its envelope (multipart with a boundary, the
 * announced size), then its form is parsed while the bytes received are watched: what goes wrong is
 * the client's error (401, 413, 415, 400), not the platform's 500 or a parse that never ends.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Multipart from "@effect/platform/Multipart"
import { JournalGroup, ScanPayload } from "@pulsebridge/domain"
import type { Unauthorized } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { IncomingMessage } from "node:http"
import { drain } from "./Drain.js"
import { errorResponse } from "./ErrorResponse.js"

/** The contract's scan endpoint. */
const scanEndpoint = JournalGroup.endpoints.scan

const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Whether a request URL is on a contract path: a `:param` segment is any non-empty segment, the
 * others are literal; a trailing slash and a query string may follow.
 */
export const routeMatcher = (path: string) => {
  const segments = path.split("/").map((segment) => segment.startsWith(":") ? "[^/]+" : escapeRegExp(segment))
  const pattern = new RegExp(`^${segments.join("/")}/?(\\?|$)`)
  return (url: string): boolean => pattern.test(url)
}

/** Whether a URL is the scan upload's route (whatever the method: its body is never JSON). */
export const isScanRoute = routeMatcher(scanEndpoint.path)

/** A scan's whole body: the 10 MiB image plus room for the form's other fields. */
export const MaxScanBodyBytes = 10 * 1024 * 1024 + 64 * 1024

const scanTooLarge = () => errorResponse(413, "PayloadTooLarge", "The image may be at most 10 MiB")

/** Checks a scan upload's envelope before the API parses it (with the limits of its contract). */
export const checkScan = (
  request: HttpServerRequest.HttpServerRequest,
  authenticate: Effect.Effect<unknown, Unauthorized, HttpServerRequest.HttpServerRequest> | undefined
) =>
  Effect.gen(function*() {
    if (request.method !== scanEndpoint.method || !isScanRoute(request.url)) {
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
export const readScan = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (request.method !== scanEndpoint.method || !isScanRoute(request.url)) {
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
