/**
 * The Oura simulator's user collections: bearer auth (401 `Invalid Access token` / `Expired Token`), the
 * per-user limits (300 a minute, 5,000 a day: 429 `Request Rate Limit Exceeded` with `Retry-After`), the scope
 * of each collection (403 `Missing Scopes`), `start_date`/`end_date` validation (422 as FastAPI answers a
 * malformed date, 400 when the start is after the end), `{data, next_token}` pages of `PAGE_SIZE` documents
 * with an opaque token bound to its query, by-id reads and `personal_info`.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { AccessRecord } from "../core/OAuth2.js"
import { authenticate } from "../core/OAuth2.js"
import { DAY_MS, parseDay, sha256Hex } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { OuraData } from "./Data.js"
import type { OuraCollection, OuraCore } from "./Shapes.js"
import { COLLECTIONS, DAY_LIMIT, MINUTE_LIMIT, PAGE_SIZE, problem, style, tooMany, validationError } from "./Shapes.js"

/** A page token: the query it continues and the offset, with a check so a hand-made one is refused. */
const pageToken = (kind: string, start: number, end: number, offset: number) => {
  const body = `${kind}.${start}.${end}.${offset}`
  return Buffer.from(`${body}.${sha256Hex("oura-page", body).slice(0, 8)}`).toString("base64url")
}

const readPageToken = (token: string) => {
  const m = /^([a-z_0-9]+)\.(\d+)\.(\d+)\.(\d+)\.([0-9a-f]{8})$/.exec(Buffer.from(token, "base64url").toString())
  if (m === null || sha256Hex("oura-page", `${m[1]}.${m[2]}.${m[3]}.${m[4]}`).slice(0, 8) !== m[5]) return undefined
  return { kind: m[1]!, start: Number(m[2]), end: Number(m[3]), offset: Number(m[4]) }
}

/** How a document is served (the simulator's malformed-records fault rewrites some). */
export type Served = (
  kind: OuraCollection,
  doc: { readonly day: number; readonly body: Record<string, unknown> },
  userId: string
) => Record<string, unknown>

export const makeOuraApi = (core: OuraCore, data: OuraData, served: Served) => {
  const api = (
    req: SimRequestShape,
    scope: string,
    f: (record: AccessRecord) => HttpServerResponse.HttpServerResponse
  ): HttpServerResponse.HttpServerResponse => {
    const now = core.nowMs()
    const bearer = /^bearer\s+(\S+)$/i.exec((req.headers["authorization"] ?? "").trim())?.[1]
    const auth = authenticate(core.state, bearer, now)
    switch (auth._tag) {
      case "Missing":
      case "Invalid":
        return problem(401, "Invalid Access token", "Access token not provided or is invalid.")
      case "Expired":
        return style.expiredToken(req)
    }
    const record = auth.record
    req.identify({ clientId: record.clientId, userId: record.userId })
    const who = `${record.clientId}:${record.userId}`
    const minute = core.rates.hit(`minute:${who}`, 60_000, MINUTE_LIMIT, now)
    const day = core.rates.hit(`day:${who}`, DAY_MS, DAY_LIMIT, now)
    if (minute.limited || day.limited) {
      return tooMany(Math.max(minute.limited ? minute.resetSeconds : 0, day.limited ? day.resetSeconds : 0))
    }
    if (!record.scope.split(" ").includes(scope)) {
      return problem(403, "Missing Scopes", `Missing required scopes: ${scope}`)
    }
    return f(record)
  }

  const collection = (kind: OuraCollection) => (req: SimRequestShape) =>
    api(req, COLLECTIONS[kind], (record) => {
      const q = req.query
      const today = Math.floor(core.nowMs() / DAY_MS)
      const dateParam = (name: string): number | undefined | "invalid" => {
        const value = q.get(name)
        if (value === null || value === "") return undefined
        return parseDay(value) ?? "invalid"
      }
      const startParam = dateParam("start_date")
      if (startParam === "invalid") return validationError("start_date", "invalid date format")
      const endParam = dateParam("end_date")
      if (endParam === "invalid") return validationError("end_date", "invalid date format")
      // defaults as the docs give them: the end is today, the start the day before the end
      const end = endParam ?? (startParam === undefined ? today : Math.max(startParam + 1, today))
      const start = startParam ?? end - 1
      if (start > end) return problem(400, "Start date is greater than end date")
      let offset = 0
      const token = q.get("next_token")
      if (token !== null && token !== "") {
        const read = readPageToken(token)
        if (read === undefined || read.kind !== kind || read.start !== start || read.end !== end) {
          return problem(400, "Invalid next_token")
        }
        offset = read.offset
      }
      const docs = data.list(record.userId, kind, start, end, core.nowMs())
      const page = docs.slice(offset, offset + PAGE_SIZE)
      const next = offset + PAGE_SIZE < docs.length ? pageToken(kind, start, end, offset + PAGE_SIZE) : null
      return json({ data: page.map((doc) => served(kind, doc, record.userId)), next_token: next })
    })

  const byId = (kind: OuraCollection) => (req: SimRequestShape, params: Readonly<Record<string, string | undefined>>) =>
    api(req, COLLECTIONS[kind], (record) => {
      const doc = data.byId(record.userId, kind, params["id"] ?? "", core.nowMs())
      return doc === undefined
        ? problem(404, "Not Found", "Document not found.")
        : json(served(kind, doc, record.userId))
    })

  const personalInfo = (req: SimRequestShape) =>
    api(req, "personal", (record) => {
      const info = data.personalInfo(record.userId, core.state.users[record.userId]?.name ?? "sandbox-user")
      // the email is only given with the `email` scope
      const { email, ...rest } = info
      return json(record.scope.split(" ").includes("email") ? { ...rest, email } : rest)
    })

  return { collection, byId, personalInfo }
}
