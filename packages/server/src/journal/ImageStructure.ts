/**
 * Whether an uploaded photo is built as the type it claims: the structure of a PNG (chunks with
 * valid CRCs, IHDR first, IDAT, IEND), a JPEG (SOI, a frame header with dimensions, a scan, EOI) or
 * a WebP file (RIFF sizes, one VP8/VP8L image, or VP8X with one) is walked, in one linear pass and
 * without decoding pixels, so that a known signature followed by anything else is refused.
 */
import * as zlib from "node:zlib"

export type ImageKind = "png" | "jpg" | "webp"

export interface ImageShape {
  readonly width: number
  readonly height: number
}

/** The shape of a well-formed image, or the reason it is not one. */
export type StructureCheck =
  | { readonly _tag: "Valid"; readonly shape: ImageShape }
  | { readonly _tag: "Invalid"; readonly reason: string }

const valid = (width: number, height: number): StructureCheck => ({ _tag: "Valid", shape: { width, height } })
const invalid = (reason: string): StructureCheck => ({ _tag: "Invalid", reason })

export const checkImageStructure = (kind: ImageKind, bytes: Uint8Array): StructureCheck => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  switch (kind) {
    case "png":
      return checkPng(bytes, view)
    case "jpg":
      return checkJpeg(bytes, view)
    case "webp":
      return checkWebp(bytes, view)
  }
}

// ---- PNG ----

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
/** Bit depths allowed for each colour type (PNG spec, table 11.1). */
const pngDepths: Record<number, ReadonlyArray<number>> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16]
}

const checkPng = (bytes: Uint8Array, view: DataView): StructureCheck => {
  if (bytes.length < 8 || pngSignature.some((b, i) => bytes[i] !== b)) return invalid("no PNG signature")
  let offset = 8
  let shape: ImageShape | undefined
  let idat: "none" | "open" | "closed" = "none"
  for (let index = 0;; index++) {
    if (offset + 12 > bytes.length) return invalid("the file ends before its IEND chunk")
    const length = view.getUint32(offset)
    const typeBytes = bytes.subarray(offset + 4, offset + 8)
    const type = String.fromCharCode(...typeBytes)
    if (!/^[A-Za-z]{4}$/.test(type)) return invalid("a chunk has an invalid type")
    if (length > 0x7fffffff || offset + 12 + length > bytes.length) return invalid(`the ${type} chunk is truncated`)
    const crc = view.getUint32(offset + 8 + length)
    if (zlib.crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== crc) {
      return invalid(`the ${type} chunk fails its CRC`)
    }
    if (index === 0) {
      if (type !== "IHDR" || length !== 13) return invalid("the first chunk is not IHDR")
      const width = view.getUint32(offset + 8)
      const height = view.getUint32(offset + 12)
      const [depth, colour, compression, filter, interlace] = bytes.subarray(offset + 16, offset + 21)
      if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) {
        return invalid("the image has no valid dimensions")
      }
      if (!(pngDepths[colour!] ?? []).includes(depth!) || compression !== 0 || filter !== 0 || interlace! > 1) {
        return invalid("the IHDR chunk is invalid")
      }
      shape = { width, height }
    } else if (type === "IHDR") {
      return invalid("more than one IHDR chunk")
    }
    if (type === "IDAT") {
      if (idat === "closed") return invalid("the IDAT chunks are not consecutive")
      idat = "open"
    } else if (idat === "open") {
      idat = "closed"
    }
    offset += 12 + length
    if (type === "IEND") {
      if (length !== 0) return invalid("the IEND chunk is not empty")
      if (idat === "none") return invalid("the image has no IDAT chunk")
      return valid(shape!.width, shape!.height)
    }
  }
}

// ---- JPEG ----

/** Start-of-frame markers (SOF0-SOF15 but DHT, JPG and DAC): they carry the dimensions. */
const isFrameMarker = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc

const checkJpeg = (bytes: Uint8Array, view: DataView): StructureCheck => {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return invalid("no JPEG start-of-image marker")
  let offset = 2
  let shape: ImageShape | undefined
  let scans = 0
  while (true) {
    if (offset >= bytes.length || bytes[offset] !== 0xff) return invalid("a marker is missing where one must be")
    // Any number of 0xFF fill bytes may precede a marker.
    while (offset < bytes.length && bytes[offset] === 0xff) offset++
    if (offset >= bytes.length) return invalid("the file ends before its end-of-image marker")
    const marker = bytes[offset]!
    offset++
    if (marker === 0xd9) {
      if (shape === undefined || scans === 0) return invalid("the image has no frame or no scan")
      return valid(shape.width, shape.height)
    }
    if (marker === 0x00 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      return invalid("a marker is out of place")
    }
    if (marker === 0x01) continue
    if (offset + 2 > bytes.length) return invalid("a segment is truncated")
    const length = view.getUint16(offset)
    if (length < 2 || offset + length > bytes.length) return invalid("a segment is truncated")
    if (isFrameMarker(marker)) {
      if (shape !== undefined) return invalid("more than one frame header")
      const components = bytes[offset + 7]
      if (length < 8 || components === undefined || components < 1 || components > 4 || length !== 8 + 3 * components) {
        return invalid("the frame header is invalid")
      }
      const height = view.getUint16(offset + 3)
      const width = view.getUint16(offset + 5)
      if (width === 0 || height === 0) return invalid("the image has no valid dimensions")
      shape = { width, height }
    }
    offset += length
    if (marker === 0xda) {
      if (shape === undefined) return invalid("a scan comes before the frame header")
      scans++
      // The entropy-coded data runs to the next marker other than a stuffed 0xFF00 or a restart marker.
      while (true) {
        const next = bytes.indexOf(0xff, offset)
        if (next === -1 || next + 1 >= bytes.length) return invalid("the file ends inside a scan")
        const following = bytes[next + 1]!
        if (following === 0x00 || (following >= 0xd0 && following <= 0xd7) || following === 0xff) {
          offset = following === 0xff ? next + 1 : next + 2
          continue
        }
        offset = next
        break
      }
    }
  }
}

// ---- WebP ----

const fourCc = (bytes: Uint8Array, offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4))

const checkVp8 = (bytes: Uint8Array, view: DataView, offset: number, length: number): StructureCheck => {
  if (length < 10) return invalid("the VP8 chunk is truncated")
  const frameTag = bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16)
  if ((frameTag & 1) !== 0) return invalid("the VP8 image does not start with a key frame")
  if (bytes[offset + 3] !== 0x9d || bytes[offset + 4] !== 0x01 || bytes[offset + 5] !== 0x2a) {
    return invalid("the VP8 start code is missing")
  }
  if ((frameTag >>> 5) > length - 10) return invalid("the VP8 frame is truncated")
  const width = view.getUint16(offset + 6, true) & 0x3fff
  const height = view.getUint16(offset + 8, true) & 0x3fff
  return width === 0 || height === 0 ? invalid("the image has no valid dimensions") : valid(width, height)
}

const checkVp8l = (bytes: Uint8Array, view: DataView, offset: number, length: number): StructureCheck => {
  if (length < 5 || bytes[offset] !== 0x2f) return invalid("the VP8L signature is missing")
  const bits = view.getUint32(offset + 1, true)
  if ((bits >>> 29) !== 0) return invalid("the VP8L version is unknown")
  return valid((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1)
}

const checkWebp = (bytes: Uint8Array, view: DataView): StructureCheck => {
  if (bytes.length < 20 || fourCc(bytes, 0) !== "RIFF" || fourCc(bytes, 8) !== "WEBP") {
    return invalid("no RIFF WEBP header")
  }
  const riffEnd = 8 + view.getUint32(4, true)
  if (riffEnd > bytes.length || riffEnd < 20) return invalid("the RIFF size does not match the file")
  const chunks: Array<{ readonly type: string; readonly offset: number; readonly length: number }> = []
  let offset = 12
  while (offset < riffEnd) {
    if (offset + 8 > riffEnd) return invalid("a chunk header is truncated")
    const length = view.getUint32(offset + 4, true)
    if (offset + 8 + length > riffEnd) return invalid("a chunk is truncated")
    chunks.push({ type: fourCc(bytes, offset), offset: offset + 8, length })
    offset += 8 + length + (length % 2)
  }
  if (offset !== riffEnd) return invalid("the chunks do not fill the RIFF size")
  const first = chunks[0]!
  if (first.type === "VP8 ") return checkVp8(bytes, view, first.offset, first.length)
  if (first.type === "VP8L") return checkVp8l(bytes, view, first.offset, first.length)
  if (first.type !== "VP8X" || first.length < 10) return invalid("the first chunk is not VP8, VP8L or VP8X")
  const width = 1 + (bytes[first.offset + 4]! | (bytes[first.offset + 5]! << 8) | (bytes[first.offset + 6]! << 16))
  const height = 1 + (bytes[first.offset + 7]! | (bytes[first.offset + 8]! << 8) | (bytes[first.offset + 9]! << 16))
  const animated = (bytes[first.offset]! & 0x02) !== 0
  const image = chunks.find((c) => c.type === "VP8 " || c.type === "VP8L")
  if (animated) {
    return chunks.some((c) => c.type === "ANMF") ? valid(width, height) : invalid("the animation has no frame")
  }
  if (image === undefined) return invalid("the file has no image data")
  const inner = image.type === "VP8 "
    ? checkVp8(bytes, view, image.offset, image.length)
    : checkVp8l(bytes, view, image.offset, image.length)
  return inner._tag === "Invalid" ? inner : valid(width, height)
}
