/**
 * The simulator's Google Health API (`/v4`): bearer auth (401 `UNAUTHENTICATED`), the per-user
 * minute quota (429 `RESOURCE_EXHAUSTED`), scopes per method and data type (403
 * `PERMISSION_DENIED`), the `me`-or-own-id path user; `users.getIdentity`, `getSettings`,
 * `getProfile`, `dataPoints:dailyRollUp` with Google's checks: a known data type that rolls up
 * by day, a range of whole civil days that ends after it starts and spans at most 14 days
 * (`total-calories`, `active-minutes`, `heart-rate`, `calories-in-heart-rate-zone`) or 90
 * (the others), else 400 `INVALID_ROLLUP_QUERY_DURATION` with `maxDurationDays` as Google
 * answers, a whole `windowSizeDays` of at least 1 that fits the range, a page size from 0 to
 * 10,000 (larger is refused, and so is a page of windows longer than the range allows), and no
 * page token it did not issue; and the raw `dataPoints` list (List.ts).
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { parseBearer } from "../core/Credentials.js"
import type { AccessRecord } from "../core/OAuth2.js"
import { authenticate } from "../core/OAuth2.js"
import { DAY_MS, formatDay, localDayOf, localMidnight, parseDay, providerUserIds, userTraits } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { json } from "../core/Responses.js"
import { fitbitDailySummary, googleDateOf, rollupValueOf, sumRollupValues, traitsOf } from "./Data.js"
import { listPage, readListQuery } from "./List.js"
import type { FitbitCore } from "./Shapes.js"
import {
  DATA_TYPES,
  DEFAULT_PAGE_SIZE,
  googleError,
  invalidCredentials,
  LONG_RANGE_DAYS,
  MAX_PAGE_SIZE,
  MINUTE_MS,
  RATE_LIMIT,
  rollupTooLong,
  scopes,
  SHORT_RANGE_DAYS,
  SHORT_RANGE_TYPES,
  style
} from "./Shapes.js"

const insufficientScopes = () => googleError(403, "Request had insufficient authentication scopes.")

const isHealthScope = (scope: string) => scope.startsWith("https://www.googleapis.com/auth/googlehealth.")

/** A `google.type.Date` in a request, as `YYYY-MM-DD` (undefined when it is not a calendar date). */
const dateOf = (value: unknown): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const { day, month, year } = value as Record<string, unknown>
  if (![year, month, day].every((n) => typeof n === "number" && Number.isInteger(n))) return undefined
  const text = `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`
  const parsed = parseDay(text)
  return parsed === undefined || formatDay(parsed) !== text ? undefined : text
}

/** A `CivilDateTime` of a whole day: its date, or an error message. */
const civilDayOf = (value: unknown, name: string): string | { readonly error: string } => {
  if (typeof value !== "object" || value === null) return { error: `range.${name} is required` }
  const v = value as Record<string, unknown>
  const date = dateOf(v["date"])
  if (date === undefined) return { error: `range.${name}.date is not a valid date` }
  const time = v["time"] as Record<string, unknown> | undefined
  if (time !== undefined && Object.values(time).some((n) => n !== 0)) {
    return { error: `range.${name} must be aligned with the aggregation window (midnight)` }
  }
  return date
}

export const makeFitbitApi = (core: FitbitCore) => {
  /** Bearer auth, the per-user minute quota, the path user, and the scopes (any one of `anyOf`). */
  const api = (
    req: SimRequestShape,
    pathUser: string,
    anyOf: (scope: string) => boolean,
    f: (record: AccessRecord) => HttpServerResponse.HttpServerResponse
  ): HttpServerResponse.HttpServerResponse => {
    const bearer = parseBearer(req.headers["authorization"])
    const now = core.nowMs()
    const auth = authenticate(core.state, bearer, now)
    switch (auth._tag) {
      case "Missing":
        return googleError(
          401,
          "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."
        )
      case "Invalid":
      case "Expired":
        return googleError(401, invalidCredentials)
    }
    const record = auth.record
    req.identify({ clientId: record.clientId, userId: record.userId })
    const hit = core.rates.hit(`${record.clientId}:${record.userId}`, MINUTE_MS, RATE_LIMIT, now)
    if (hit.limited) return style.rateLimited(hit.resetSeconds)
    if (!record.scope.split(" ").some(anyOf)) return insufficientScopes()
    if (pathUser !== "me" && pathUser !== record.userId) {
      return googleError(403, "The caller does not have permission")
    }
    return f(record)
  }

  const userPath = /^\/v4\/users\/([^/]+)\/(identity|settings|profile)$/

  /** `users.getIdentity`, `users.getSettings`, `users.getProfile`. */
  const userResource = (req: SimRequestShape) => {
    const m = userPath.exec(req.path)
    if (m === null) return googleError(404, `Method not found: GET ${req.path}`)
    const [, pathUser, resource] = m
    const needs = resource === "identity" ?
      isHealthScope :
      (scope: string) => scope === (resource === "settings" ? scopes.settings : scopes.profile)
    return api(req, pathUser!, needs, (record) => {
      const name = core.state.users[record.userId]?.name ?? record.userId
      const t = traitsOf(core.seed, record.userId)
      switch (resource) {
        case "identity":
          return json({
            name: `users/${record.userId}/identity`,
            healthUserId: record.userId,
            // what the retired Fitbit Web API called the same account
            legacyUserId: providerUserIds.fitbit(name)
          })
        case "settings":
          return json({
            name: `users/${record.userId}/settings`,
            timeZone: t.zone.name,
            utcOffset: `${t.zone.offsetMinutes * 60}s`,
            languageLocale: t.locale.replace("_", "-"),
            distanceUnit: t.locale === "en_US" ? "MILES" : "KILOMETERS",
            weightUnit: t.locale === "en_US" ? "POUNDS" : "KILOGRAMS",
            autoStrideEnabled: true
          })
        default:
          return json({
            name: `users/${record.userId}/profile`,
            age: t.age,
            membershipStartDate: googleDateOf(formatDay(t.memberSinceDay))
          })
      }
    })
  }

  const rollUpPath = /^\/v4\/users\/([^/]+)\/dataTypes\/([^/]+)\/dataPoints:dailyRollUp$/

  /**
   * A call on one data type (`/v4/users/{user}/dataTypes/{dataType}/...` matched by `path`): a known data type,
   * then the token's user and the data type's scope (read-only or the full one), then `handle`.
   */
  const onDataType = (
    req: SimRequestShape,
    path: RegExp,
    method: string,
    handle: (
      dataType: string,
      known: (typeof DATA_TYPES)[string],
      record: AccessRecord
    ) => HttpServerResponse.HttpServerResponse
  ) => {
    const m = path.exec(req.path)
    if (m === null) return googleError(404, `Method not found: ${method} ${req.path}`)
    const [, pathUser, dataType] = m
    const known = DATA_TYPES[dataType]
    if (known === undefined) return googleError(400, `Invalid data type: ${dataType}`)
    return api(
      req,
      pathUser!,
      (scope) => scope === known.scope || scope === known.scope.replace(".readonly", ""),
      (record) => handle(dataType, known, record)
    )
  }

  const dailyRollUp = (req: SimRequestShape) =>
    onDataType(req, rollUpPath, "POST", (dataType, known, record) => {
      if (!known.dailyRollUp) {
        return googleError(
          400,
          `DailyRollup is not supported for data type ${dataType}, but the following actions are supported: list, reconcile`
        )
      }
      let body: Record<string, unknown>
      try {
        const parsed: unknown = JSON.parse(req.body === "" ? "{}" : req.body)
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object")
        body = parsed as Record<string, unknown>
      } catch {
        return googleError(400, "Invalid JSON payload received.")
      }
      const range = body["range"] as Record<string, unknown> | undefined
      if (range === undefined || typeof range !== "object" || range === null) {
        return googleError(400, "range is required")
      }
      const start = civilDayOf(range["start"], "start")
      if (typeof start !== "string") return googleError(400, start.error)
      const end = civilDayOf(range["end"], "end")
      if (typeof end !== "string") return googleError(400, end.error)
      const days = parseDay(end)! - parseDay(start)!
      if (days <= 0) return googleError(400, "range.end must be after range.start")
      const maxDays = SHORT_RANGE_TYPES.includes(dataType) ? SHORT_RANGE_DAYS : LONG_RANGE_DAYS
      if (days > maxDays) return rollupTooLong(dataType, maxDays)
      const windowSizeDays = body["windowSizeDays"] ?? 1
      if (typeof windowSizeDays !== "number" || !Number.isInteger(windowSizeDays) || windowSizeDays < 1) {
        return googleError(400, "windowSizeDays must be a positive whole number of days")
      }
      if (windowSizeDays > days) return googleError(400, "windowSizeDays must not exceed the range")
      const pageSize = body["pageSize"] ?? DEFAULT_PAGE_SIZE
      if (typeof pageSize !== "number" || !Number.isInteger(pageSize) || pageSize < 0 || pageSize > MAX_PAGE_SIZE) {
        return googleError(400, "pageSize must be a whole number from 0 to 10000")
      }
      // a page of windows is itself a duration: Google refuses one longer than the data type's range
      if (body["pageSize"] !== undefined && pageSize * windowSizeDays > maxDays) {
        return rollupTooLong(dataType, maxDays)
      }
      // this simulator never issues a page token (its pages hold every window)
      if (body["pageToken"] !== undefined && body["pageToken"] !== "") return googleError(400, "Invalid page token")
      const limit = pageSize === 0 ? DEFAULT_PAGE_SIZE : pageSize
      const { memberSinceDay, zone } = userTraits("fitbit", record.userId)
      const today = localDayOf(core.nowMs(), zone.offsetMinutes)
      const points: Array<unknown> = []
      for (let first = parseDay(start)!; first < parseDay(end)! && points.length < limit; first += windowSizeDays) {
        const last = Math.min(first + windowSizeDays, parseDay(end)!)
        const values: Array<Record<string, unknown>> = []
        let field: string | undefined
        for (let day = first; day < last; day++) {
          // nothing before the user had a device or after the user's own today
          if (day < memberSinceDay || day > today) continue
          const progress = day < today ? 1 : (core.nowMs() - localMidnight(day, zone.offsetMinutes)) / DAY_MS
          const summary = fitbitDailySummary(core.seed, record.userId, formatDay(day), progress, "METRIC").summary
          const value = rollupValueOf(dataType, summary)
          if (value === undefined) continue
          field = value[0]
          values.push(value[1])
        }
        if (field === undefined) continue
        points.push({
          civilStartTime: { date: googleDateOf(formatDay(first)) },
          civilEndTime: { date: googleDateOf(formatDay(last)) },
          [field]: sumRollupValues(values)
        })
      }
      return json({ rollupDataPoints: points })
    })

  const listPath = /^\/v4\/users\/([^/]+)\/dataTypes\/([^/]+)\/dataPoints$/

  /** `dataPoints.list`: the raw points of a data type, filtered, newest first, page by page. */
  const listDataPoints = (req: SimRequestShape) =>
    onDataType(req, listPath, "GET", (dataType, _known, record) => {
      const query = readListQuery(dataType, req.query)
      if (query._tag === "Invalid") return googleError(400, query.message)
      const { zone } = userTraits("fitbit", record.userId)
      const now = core.nowMs()
      return json(listPage(core.seed, record.userId, dataType, query, localDayOf(now, zone.offsetMinutes), now))
    })

  return { userResource, dailyRollUp, listDataPoints }
}
