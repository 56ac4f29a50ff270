/**
 * The body rules of the JSON APIs (the contract's and the portal's), checked before routing so that
 * no handler or schema reads a body that breaks them: a JSON content type, at most 1 MiB (announced
 * or streamed), a JSON object, nested at most `MaxJsonDepth` deep. The scan upload is not JSON and
 * has its own reader (`ScanUpload`).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { drain, hasBody, MaxDrainBytes } from "./Drain.js"
import { errorResponse } from "./ErrorResponse.js"
import { isScanRoute } from "./ScanUpload.js"

export const MaxJsonBodyBytes = 1024 * 1024

/** How deeply a JSON body may nest arrays and objects; no field of the contract comes near. */
export const MaxJsonDepth = 32

const isJsonContentType = (contentType: string) => {
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase()
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)
}

/** The routes of the contract's API and of the portal's JSON API. */
export const isJsonApi = (url: string) => url.startsWith("/api/") || url.startsWith("/portal/api/")

/** Reads and checks a JSON body before routing; the parsed text stays cached on the request. */
export const checkBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") {
      return Option.none<HttpServerResponse.HttpServerResponse>()
    }
    // Only the API (and the portal's API) speaks JSON; the sandbox providers parse their own (form) bodies.
    if (!isJsonApi(request.url) || isScanRoute(request.url) || !hasBody(request.headers)) {
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
