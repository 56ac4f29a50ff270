/**
 * The WHOOP simulator's v2 API: bearer auth with per-client minute and day limits and scope
 * checks (401, as WHOOP declares no 403); the collections with `limit`, `start`/`end` and
 * `nextToken`; the by-cycle and by-UUID routes; profile, body measurement and revoke.
 */
import * as Response from "@effect/platform/HttpServerResponse"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { AccessRecord } from "../core/OAuth2.js"
import { authenticate, revokeWhere } from "../core/OAuth2.js"
import { DAY_MS, Rng, userTraits } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { WhoopData } from "./Data.js"
import { readWhoopNextToken } from "./Data.js"
import type { Kind, Rec } from "./Plan.js"
import { cycleBase, nameParts, parseUuid } from "./Plan.js"
import type { WhoopCore } from "./Shapes.js"
import {
  DAY_LIMIT,
  DEFAULT_LIMIT,
  hydraError,
  MAX_LIMIT,
  MINUTE_LIMIT,
  RATE_LIMIT_HEADER,
  style,
  tooMany
} from "./Shapes.js"

export const makeWhoopApi = (core: WhoopCore, data: WhoopData) => {
  const seed = core.seed
  const { page, sleepRecord, workoutRecords } = data

  const api = (
    req: SimRequestShape,
    scope: string | undefined,
    f: (record: AccessRecord, userId: number) => HttpServerResponse.HttpServerResponse
  ): HttpServerResponse.HttpServerResponse => {
    const s = core.state
    const now = core.nowMs()
    const bearer = /^bearer\s+(\S+)$/i.exec((req.headers["authorization"] ?? "").trim())?.[1]
    const auth = authenticate(s, bearer, now)
    switch (auth._tag) {
      case "Missing":
        return hydraError(401, "request_unauthorized", "The request could not be authorized: no bearer token.")
      case "Invalid":
        return hydraError(
          401,
          "invalid_token",
          "Token is inactive because it is malformed, expired or otherwise invalid."
        )
      case "Expired":
        return style.expiredToken(req)
    }
    const record = auth.record
    req.identify({ clientId: record.clientId, userId: record.userId })
    const minute = core.rates.hit(`minute:${record.clientId}`, 60_000, MINUTE_LIMIT, now)
    const day = core.rates.hit(`day:${record.clientId}`, DAY_MS, DAY_LIMIT, now)
    if (minute.limited || day.limited) {
      return tooMany(Math.max(minute.limited ? minute.resetSeconds : 0, day.limited ? day.resetSeconds : 0))
    }
    const headers = {
      "x-ratelimit-limit": RATE_LIMIT_HEADER,
      "x-ratelimit-remaining": String(Math.min(minute.remaining, day.remaining)),
      "x-ratelimit-reset": String(Math.min(minute.resetSeconds, day.resetSeconds))
    }
    if (scope !== undefined && !record.scope.split(" ").includes(scope)) {
      return hydraError(401, "insufficient_scope", `The access token was not granted the scope ${scope}.`, headers)
    }
    return Response.setHeaders(f(record, Number(record.userId)), headers)
  }

  const parseTime = (value: string | null): number | undefined | "invalid" => {
    if (value === null || value === "") return undefined
    const ms = Date.parse(value)
    return Number.isNaN(ms) ? "invalid" : ms
  }

  const collection = (kind: Kind, scope: string) => (req: SimRequestShape) =>
    api(req, scope, (_record, userId) => {
      const q = req.query
      const limitParam = q.get("limit")
      const limit = limitParam === null ? DEFAULT_LIMIT : Number(limitParam)
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
        return hydraError(400, "invalid_request", `limit must be an integer between 1 and ${MAX_LIMIT}`)
      }
      const startMs = parseTime(q.get("start"))
      const endMs = parseTime(q.get("end"))
      if (startMs === "invalid" || endMs === "invalid") {
        return hydraError(400, "invalid_request", "start and end must be ISO 8601 date-times")
      }
      let cursor: { readonly startMs: number; readonly id: string } | undefined
      const nextToken = q.get("nextToken")
      if (nextToken !== null && nextToken !== "") {
        cursor = readWhoopNextToken(nextToken)
        if (cursor === undefined) return hydraError(400, "invalid_request", "nextToken is invalid")
      }
      const now = core.nowMs()
      return json(page(kind, userId, { startMs, endMs: endMs ?? now, cursor, limit }, now))
    })

  const notFound = (what: string) => hydraError(404, "not_found", `${what} not found`)

  const cycleDay = (userId: number, raw: string | undefined) => {
    if (raw === undefined || !/^\d{1,15}$/.test(raw)) return undefined
    const day = Number(raw) - cycleBase(userId)
    return day >= userTraits("whoop", String(userId)).memberSinceDay && day < 100_000 ? day : undefined
  }

  const byCycle =
    (scope: string, pick: (userId: number, day: number, now: number) => Rec | undefined, what: string) =>
    (
      req: SimRequestShape,
      params: Readonly<Record<string, string | undefined>>
    ) =>
      api(req, scope, (_record, userId) => {
        const day = cycleDay(userId, params["id"])
        const rec = day === undefined ? undefined : pick(userId, day, core.nowMs())
        return rec === undefined ? notFound(what) : json(rec.body)
      })

  const byUuid = (scope: string, kinds: ReadonlyArray<"sleep" | "nap" | "workout">, what: string) =>
  (
    req: SimRequestShape,
    params: Readonly<Record<string, string | undefined>>
  ) =>
    api(req, scope, (_record, userId) => {
      const id = params["id"] ?? ""
      const parsed = parseUuid(id)
      if (parsed === undefined || !kinds.includes(parsed.kind)) return notFound(what)
      if (parsed.day < userTraits("whoop", String(userId)).memberSinceDay) return notFound(what)
      const now = core.nowMs()
      const candidates = parsed.kind === "workout"
        ? workoutRecords(userId, parsed.day, now)
        : [sleepRecord(userId, parsed.day, now, parsed.kind)].filter((r): r is Rec => r !== undefined)
      const rec = candidates.find((r) => r.id === id)
      return rec === undefined ? notFound(what) : json(rec.body)
    })

  const profile = (req: SimRequestShape) =>
    api(req, "read:profile", (record, userId) => {
      const name = core.state.users[record.userId]?.name ?? "sandbox-user"
      const parts = nameParts(name)
      return json({
        user_id: userId,
        email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, ".").replace(/^\.|\.$/g, "") || "user"}@sandbox.example`,
        first_name: parts.first,
        last_name: parts.last
      })
    })

  const body = (req: SimRequestShape) =>
    api(req, "read:body_measurement", (record) => {
      const r = new Rng("whoop-body", seed, record.userId)
      return json({
        height_meter: r.float(1.55, 1.95, 4),
        weight_kilogram: r.float(55, 100, 4),
        max_heart_rate: r.int(170, 200)
      })
    })

  const revoke = (req: SimRequestShape) =>
    api(req, undefined, (record) => {
      revokeWhere(core.state, (r) => r.clientId === record.clientId && r.userId === record.userId)
      core.commit()
      return Response.empty({ status: 204 })
    })

  return { collection, byCycle, byUuid, profile, body, revoke }
}
