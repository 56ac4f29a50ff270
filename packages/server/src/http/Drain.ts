/**
 * Reading and dropping the rest of a refused request's body, so that a client still uploading
 * sees the answer (413, 415, 429) instead of a reset connection.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import type { IncomingMessage } from "node:http"

/** Bodies up to this size are read to the end before the answer; larger ones are cut off. */
export const MaxDrainBytes = 16 * 1024 * 1024

/** Whether the request announces a body (a length above zero, or a transfer encoding). */
export const hasBody = (headers: Readonly<Record<string, string | undefined>>) => {
  const length = headers["content-length"]
  if (length !== undefined) return Number(length) > 0
  return headers["transfer-encoding"] !== undefined
}

/**
 * Discards the rest of a refused body; a body announced over 16 MiB is not worth reading, and one
 * that turns out longer is cut off there.
 */
export const drain = (
  request: HttpServerRequest.HttpServerRequest,
  announced = Number(request.headers["content-length"] ?? 0)
) =>
  Effect.async<void>((resume) => {
    const source = request.source as IncomingMessage
    if (
      !hasBody(request.headers) || announced > MaxDrainBytes || source.readableEnded || source.destroyed
    ) return resume(Effect.void)
    let seen = 0
    const done = () => resume(Effect.void)
    source.on("data", (chunk: Buffer) => {
      seen += chunk.length
      if (seen > MaxDrainBytes) {
        source.destroy()
        done()
      }
    })
    source.once("end", done)
    source.once("error", done)
    source.once("close", done)
    // A parser that gave up may still be piped to the body and hold it back.
    source.unpipe()
    source.resume()
  })
