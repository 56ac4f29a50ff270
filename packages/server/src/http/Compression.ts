/**
 * Response compression for the whole server: a body of a compressible type (JSON, NDJSON, text, JavaScript, SVG)
 * of at least `MinCompressBytes`, or streamed, is sent with the `Content-Encoding` the client prefers among `br`
 * and `gzip` by its `Accept-Encoding` (q-values honoured, `*` included, `q=0` refusing a coding; without the
 * header, or when neither is acceptable, the body goes as it is). Every such response says
 * `Vary: Accept-Encoding`. Compression runs in Node's zlib streams, off the event loop's thread, and the
 * compressed bytes are streamed as they come.
 *
 * The levels are those fit for content made per request: brotli quality 4 and gzip level 6 (zlib's default).
 * On the 30-day glucose read (2.9 MB of JSON) brotli 4 takes about 60 ms and shrinks it 11.7 times; quality 11,
 * the library's default, takes seconds.
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Readable } from "node:stream"
import * as zlib from "node:zlib"

/** Bodies smaller than this go uncompressed: the saving would not pay for the work. */
export const MinCompressBytes = 1024

export const BrotliQuality = 4
export const GzipLevel = 6

export type Encoding = "br" | "gzip" | "identity"

/**
 * The coding to answer with, from an `Accept-Encoding` header: the acceptable one (`q` > 0) of `br` and `gzip`
 * with the highest q-value, `br` on a tie; `identity` when the header is absent or accepts neither.
 */
export const negotiateEncoding = (header: string | undefined): Encoding => {
  if (header === undefined) return "identity"
  const q: Record<string, number> = {}
  for (const part of header.split(",")) {
    const [name, ...params] = part.split(";")
    const coding = name!.trim().toLowerCase()
    if (coding === "") continue
    let weight = 1
    for (const param of params) {
      const [key, value] = param.split("=")
      if (key?.trim().toLowerCase() === "q") {
        const parsed = Number(value?.trim())
        weight = value !== undefined && /^\s*(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/.test(value) ? parsed : 0
      }
    }
    // A coding named twice keeps its first weight.
    if (!(coding in q)) q[coding] = weight
  }
  const weightOf = (coding: "br" | "gzip") => q[coding] ?? q["x-" + coding] ?? q["*"] ?? 0
  const br = weightOf("br")
  const gzip = weightOf("gzip")
  if (br <= 0 && gzip <= 0) return "identity"
  return br >= gzip ? "br" : "gzip"
}

const compressibleType = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase()
  if (mediaType === "text/event-stream") return false
  return mediaType.startsWith("text/") || mediaType === "application/json" || mediaType.endsWith("+json") ||
    mediaType === "application/x-ndjson" || mediaType === "application/javascript" ||
    mediaType === "application/xml" || mediaType.endsWith("+xml")
}

/** A zlib stream of `encoding` at the levels above; `sizeHint` helps brotli size its window. */
const compressor = (encoding: "br" | "gzip", sizeHint?: number) =>
  encoding === "br"
    ? zlib.createBrotliCompress({
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: BrotliQuality,
        ...(sizeHint === undefined ? {} : { [zlib.constants.BROTLI_PARAM_SIZE_HINT]: sizeHint })
      }
    })
    : zlib.createGzip({ level: GzipLevel })

const withVary = (vary: string | undefined) =>
  vary === undefined || vary.trim() === ""
    ? "Accept-Encoding"
    : vary.split(",").some((name) => name.trim().toLowerCase() === "accept-encoding" || name.trim() === "*")
    ? vary
    : `${vary}, Accept-Encoding`

/**
 * `response` compressed for `request` when it should be (see the module's first lines); otherwise as it is,
 * with `Vary: Accept-Encoding` when its body could have been compressed.
 */
export const compressResponse = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const body = response.body
  const headers = response.headers
  if (
    request.method === "HEAD" || response.status === 204 || response.status === 304 ||
    headers["content-encoding"] !== undefined || /\bno-transform\b/i.test(headers["cache-control"] ?? "") ||
    !compressibleType(headers["content-type"])
  ) return Effect.succeed(response)
  const size = body._tag === "Uint8Array"
    ? body.body.length
    : body._tag === "Stream"
    ? Infinity
    : 0
  if (size < MinCompressBytes) return Effect.succeed(response)
  const vary = withVary(headers["vary"])
  const encoding = negotiateEncoding(request.headers["accept-encoding"])
  if (encoding === "identity") return Effect.succeed(HttpServerResponse.setHeader(response, "vary", vary))
  const { "content-length": _length, ...rest } = headers
  const options = {
    status: response.status,
    statusText: response.statusText,
    cookies: response.cookies,
    headers: { ...rest, "content-encoding": encoding, vary }
  }
  if (body._tag === "Uint8Array") {
    const zipped = compressor(encoding, body.body.length)
    zipped.end(body.body)
    return Effect.succeed(HttpServerResponse.raw(zipped, options))
  }
  return Effect.map(
    body._tag === "Stream" ? NodeStream.toReadable(Stream.orDie(body.stream)) : Effect.succeed(Readable.from([])),
    (source) => {
      // The server pipes the compressed stream into the socket; an error on the source ends it there too.
      const zipped = compressor(encoding)
      source.on("error", (error) => zipped.destroy(error))
      source.pipe(zipped)
      return HttpServerResponse.raw(zipped, options)
    }
  )
}
