/**
 * The HTTP answer of a range read (endpoints 10, 12 and 14), built from `RangeReads`:
 *
 * - **ETag.** A weak ETag from the read's version (count and row versions of what the range covers) and the query;
 *   taken before the rows are read, so it never names newer data than the body it goes with. `If-None-Match`
 *   naming it (or `*`) gets 304 with no body, and the rows are not read at all. An unconditional read of a short
 *   range (`RangeRead.wholeDays`) takes the same version from the rows it serves, which saves the version query on
 *   the most common read. A page (`limit`) is priced as a page: its ETag is a digest of the page itself (its body
 *   and its next link), so a page costs its own keyset statement and nothing over the whole range, and a change
 *   outside the page leaves it valid; a page that still matches gets 304 with no body.
 * - **Paging.** With `limit`, one page of at most `limit` items in the contract's shape (glucose fills its page
 *   with readings, then events, then calibrations), and `Link: <...>; rel="next"` while more remain. The cursor
 *   is the key of the page's last item (opaque to clients: base64url JSON), so pages walk every item once
 *   however the data around them changes.
 * - **Streaming.** Without `limit`, an answer of more than `StreamPageRows` rows in some section is streamed in
 *   pages of that many rows, so the whole body is never held at once; smaller answers go in one piece.
 *
 * Compression is the server's (`http/Compression.ts`).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { UserId } from "@pulsebridge/domain"
import { dayNumber, parseTimestamp } from "@pulsebridge/domain"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as crypto from "node:crypto"
import type { RangeQuery } from "./HealthDataRepo.js"
import type { PageKey, RangeRead, Row } from "./RangeReads.js"
import { versionOfRows } from "./RangeReads.js"

/** Rows per statement when an answer is streamed; answers within it go in one piece. */
export const StreamPageRows = 10_000

/** Bumped when the bytes of an answer change for the same rows, so that older ETags stop matching. */
const representation = "1"

export class BadCursor extends Data.TaggedError("BadCursor")<{ readonly reason: string }> {
  override get message() {
    return `cursor: ${this.reason}; use the cursor of a Link header's next-page URL as given`
  }
}

interface Cursor {
  /** The section the page starts in. */
  readonly section: number
  /** The key of the item before the page, in that section; null from the section's start. */
  readonly key: PageKey | null
}

const encodeCursor = (read: RangeRead, cursor: Cursor) =>
  Buffer.from(JSON.stringify({ r: read.name, s: cursor.section, k: cursor.key })).toString("base64url")

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const exactTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const isDate = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && parseTimestamp(`${s}T00:00:00Z`) !== undefined

/** A cursor of `read`, checked value by value: nothing from it reaches SQL unless it is what the key holds. */
const decodeCursor = (read: RangeRead, text: string): Effect.Effect<Cursor, BadCursor> => {
  const fail = (reason: string) => Effect.fail(new BadCursor({ reason }))
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return fail("not a cursor of this API")
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"))
  } catch {
    return fail("not a cursor of this API")
  }
  if (typeof value !== "object" || value === null) return fail("not a cursor of this API")
  const { k, r, s } = value as { r?: unknown; s?: unknown; k?: unknown }
  if (r !== read.name) return fail("a cursor of another read")
  if (typeof s !== "number" || !Number.isInteger(s) || s < 0 || s >= read.sections.length) {
    return fail("not a cursor of this API")
  }
  if (k === null) return Effect.succeed({ section: s, key: null })
  const section = read.sections[s]!
  if (!Array.isArray(k) || k.length !== section.keyLength || !k.every((v) => typeof v === "string")) {
    return fail("not a cursor of this API")
  }
  const valid = section.keyKinds.every((kind, i) => {
    const v = k[i] as string
    if (v.length > 1024 || v.includes("\u0000")) return false
    return kind === "date"
      ? isDate(v)
      : kind === "uuid"
      ? uuid.test(v)
      : kind === "time"
      ? exactTime.test(v) && parseTimestamp(v) !== undefined
      : true
  })
  return valid ? Effect.succeed({ section: s, key: k as PageKey }) : fail("not a cursor of this API")
}

/** Whether an `If-None-Match` header names `etag` (weak comparison) or is `*`. */
export const noneMatch = (header: string | undefined, etag: string): boolean => {
  if (header === undefined) return false
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "")
  const wanted = opaque(etag)
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === wanted)
}

/** One page of sections: the rows of each, and where the next page starts (none on the last page). */
const readPage = (read: RangeRead, userId: UserId, query: RangeQuery, start: Cursor, limit: number) =>
  Effect.gen(function*() {
    const sections: Array<Array<Row>> = read.sections.map(() => [])
    let budget = limit
    let next: Cursor | undefined
    for (let s = start.section; s < read.sections.length; s++) {
      const section = read.sections[s]!
      const after = s === start.section ? start.key : null
      // One row more than the page takes tells whether more remain.
      const rows = yield* section.page(userId, query, after, budget + 1, true)
      if (rows.length > budget) {
        const taken = rows.slice(0, budget)
        next = { section: s, key: taken.length === 0 ? after : section.keyOf(taken[taken.length - 1]!) }
        section.strip(taken)
        sections[s] = taken
        break
      }
      section.strip(rows)
      sections[s] = rows
      budget -= rows.length
    }
    return { sections, next }
  })

/** Every row of the sections from `start` on, each section in one statement. */
const readAll = (read: RangeRead, userId: UserId, query: RangeQuery, start: Cursor) =>
  Effect.forEach(read.sections, (section, s) =>
    s < start.section
      ? Effect.succeed<Array<Row>>([])
      : Effect.tap(
        section.page(userId, query, s === start.section ? start.key : null, undefined, false),
        (rows) => section.strip(rows)
      ))

/** The JSON text of a whole answer (or page) from its sections' rows. */
const bodyOf = (read: RangeRead, sections: ReadonlyArray<Array<Row>>) =>
  read.sections[0]!.name === undefined
    ? JSON.stringify(sections[0])
    : `{${read.sections.map((section, i) => `"${section.name}":${JSON.stringify(sections[i])}`).join(",")}}`

/** The whole answer as a stream of JSON text, `StreamPageRows` rows per statement. */
const streamOf = (read: RangeRead, userId: UserId, query: RangeQuery) => {
  const named = read.sections[0]!.name !== undefined
  interface State {
    readonly section: number
    readonly after: PageKey | null
  }
  const pages = Stream.paginateEffect<State, string, never, never>(
    { section: 0, after: null },
    ({ after, section: s }) =>
      Effect.gen(function*() {
        const section = read.sections[s]!
        const rows = yield* section.page(userId, query, after, StreamPageRows, true)
        const full = rows.length === StreamPageRows
        const key = full ? section.keyOf(rows[rows.length - 1]!) : null
        section.strip(rows)
        const items = JSON.stringify(rows).slice(1, -1)
        const last = s === read.sections.length - 1
        // Opening bracket (and name) of the section on its first page; its end when it has no more.
        const open = after === null ? `${named ? `${s === 0 ? "{" : ""}"${section.name}":` : ""}[` : ""
        const comma = after !== null && items !== "" ? "," : ""
        const close = full ? "" : `]${named ? (last ? "}" : ",") : ""}`
        const chunk = open + comma + items + close
        const nextState: Option.Option<State> = full
          ? Option.some({ section: s, after: key })
          : last
          ? Option.none()
          : Option.some({ section: s + 1, after: null })
        return [chunk, nextState] as const
      })
  )
  return pages.pipe(Stream.map((text) => Buffer.from(text, "utf8") as Uint8Array))
}

const json = "application/json"

/** The query of a range read that may be paged. */
export interface PagedQuery extends RangeQuery {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** The answer of `read` for the request in context (see the module's first lines). */
export const rangeResponse = (read: RangeRead, userId: UserId, query: PagedQuery) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const start = query.cursor === undefined
      ? { section: 0, key: null }
      : yield* decodeCursor(read, query.cursor)
    const etagOf = (versions: ReadonlyArray<{ readonly version: string }>) =>
      `W/"${
        crypto.createHash("sha256")
          .update(JSON.stringify([
            representation,
            read.name,
            userId,
            query.from,
            query.to,
            query.provider ?? null,
            query.cursor ?? null,
            versions.map((v) => v.version)
          ]))
          .digest("base64url")
          .slice(0, 27)
      }"`
    const conditional = request.headers["if-none-match"]
    if (query.limit !== undefined) {
      const page = yield* readPage(read, userId, query, start, query.limit)
      const headers: Record<string, string> = { "cache-control": "private, no-cache" }
      if (page.next !== undefined) {
        const url = new URL(request.url, "http://localhost")
        url.searchParams.set("cursor", encodeCursor(read, page.next))
        headers["link"] = `<${url.pathname}${url.search}>; rel="next"`
      }
      const body = Buffer.from(bodyOf(read, page.sections), "utf8")
      headers["etag"] = `W/"${
        crypto.createHash("sha256")
          .update(JSON.stringify([representation, read.name, userId, query.from, query.to, query.provider ?? null]))
          .update(headers["link"] ?? "")
          .update(body)
          .digest("base64url")
          .slice(0, 27)
      }"`
      if (noneMatch(conditional, headers["etag"])) {
        return HttpServerResponse.empty({ status: 304, headers })
      }
      return HttpServerResponse.uint8Array(body, { contentType: json, headers })
    }
    if (
      conditional === undefined && query.cursor === undefined &&
      dayNumber(query.to) - dayNumber(query.from) + 1 <= read.wholeDays
    ) {
      // The whole answer of a short range, unconditionally: its version comes with its rows, no query of its own.
      const rows = yield* Effect.forEach(read.sections, (section) =>
        section.page(userId, query, null, undefined, false, true))
      const etag = etagOf(rows.map(versionOfRows))
      rows.forEach((sectionRows, s) =>
        read.sections[s]!.strip(sectionRows)
      )
      return HttpServerResponse.uint8Array(Buffer.from(bodyOf(read, rows), "utf8"), {
        contentType: json,
        headers: { etag, "cache-control": "private, no-cache" }
      })
    }
    const versions = yield* read.version(userId, query)
    const etag = etagOf(versions)
    const headers: Record<string, string> = { etag, "cache-control": "private, no-cache" }
    if (noneMatch(conditional, etag)) {
      return HttpServerResponse.empty({ status: 304, headers })
    }
    // From a cursor without a limit: the rest of the range, in one piece.
    if (query.cursor !== undefined || versions.every((v) => v.count <= StreamPageRows)) {
      const sections = yield* readAll(read, userId, query, start)
      return HttpServerResponse.uint8Array(Buffer.from(bodyOf(read, sections), "utf8"), {
        contentType: json,
        headers
      })
    }
    return HttpServerResponse.stream(streamOf(read, userId, query), { contentType: json, headers })
  })
