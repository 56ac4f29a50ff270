/**
 * The simulator's `dataPoints` list (`GET /v4/users/{user}/dataTypes/{dataType}/dataPoints`), pure: Google's
 * `filter` (AIP-160: `field >= "x" AND field < "y"`, on the fields the reference names per kind of data type),
 * `pageSize` (25 at most for `sleep` and `exercise`, 10,000 for the others; more is refused), page tokens it issued
 * itself, and the points newest first by interval start, as the live API orders them.
 */
import { parseDay } from "../core/Random.js"
import type { ListedPoint } from "./Points.js"
import { bodyPointsOf, dailyFields, dailyPointOf, daysWithData, exercisePointsOf, sleepPointsOf } from "./Points.js"
import { MAX_PAGE_SIZE, SESSION_PAGE_SIZE } from "./Shapes.js"

/** What a list request asks for, or why Google would refuse it. */
export type ListQuery =
  | {
    readonly _tag: "Query"
    readonly field: string
    readonly from: string | undefined
    readonly until: string | undefined
    readonly pageSize: number
    readonly offset: number
    /** What its page tokens are good for: the same data type, filter and page size. */
    readonly key: string
  }
  | { readonly _tag: "Invalid"; readonly message: string }

const snake = (dataType: string) => dataType.replaceAll("-", "_")

/** The filter fields the reference lists for a data type: civil ones compare local text, physical ones instants. */
export const filterFields = (dataType: string): ReadonlyArray<string> => {
  const f = snake(dataType)
  if (dataType === "sleep") return ["sleep.interval.civil_end_time", "sleep.interval.end_time"]
  if (dataType === "exercise") return ["exercise.interval.civil_start_time", "exercise.interval.start_time"]
  if (dataType in dailyFields) return [`${f}.date`]
  if (dataType === "weight" || dataType === "body-fat") {
    return [`${f}.sample_time.civil_time`, `${f}.sample_time.physical_time`]
  }
  return [`${f}.interval.civil_start_time`, `${f}.interval.start_time`]
}

const clause = /^\s*([a-z_.]+)\s*(>=|<)\s*"([^"]*)"\s*$/

const tokenOf = (key: string, offset: number) => Buffer.from(JSON.stringify({ key, offset })).toString("base64url")

const offsetOfToken = (key: string, token: string): number | undefined => {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { key?: unknown; offset?: unknown }
    return parsed.key === key && typeof parsed.offset === "number" ? parsed.offset : undefined
  } catch {
    return undefined
  }
}

/** The request's key for its page tokens: a token is good only for the same data type, filter and page size. */
const queryKey = (dataType: string, filter: string, pageSize: number) => `${dataType}|${filter}|${pageSize}`

/** Reads the query string of a list request for `dataType`. */
export const readListQuery = (dataType: string, params: URLSearchParams): ListQuery => {
  const session = dataType === "sleep" || dataType === "exercise"
  const max = session ? SESSION_PAGE_SIZE : MAX_PAGE_SIZE
  const sizeText = params.get("pageSize") ?? params.get("page_size")
  const pageSize = sizeText === null ? (session ? SESSION_PAGE_SIZE : 1440) : Number(sizeText)
  if (!Number.isInteger(pageSize) || pageSize < 0) {
    return { _tag: "Invalid", message: "page_size must be a non-negative integer" }
  }
  if (pageSize > max) {
    return { _tag: "Invalid", message: `page_size must be at most ${max} for data type ${dataType}` }
  }
  const filter = params.get("filter") ?? ""
  const fields = filterFields(dataType)
  let field: string | undefined
  let from: string | undefined
  let until: string | undefined
  if (filter.trim() !== "") {
    for (const part of filter.split(/\s+AND\s+/)) {
      const m = clause.exec(part)
      if (m === null) return { _tag: "Invalid", message: `Invalid filter: ${filter}` }
      const [, name, op, value] = m
      if (!fields.includes(name!) || (field !== undefined && field !== name)) {
        return { _tag: "Invalid", message: `Invalid filter field: ${name}` }
      }
      field = name
      if (op === ">=") from = value
      else until = value
    }
  }
  const token = params.get("pageToken") ?? params.get("page_token") ?? ""
  const key = queryKey(dataType, filter, pageSize)
  const offset = token === "" ? 0 : offsetOfToken(key, token)
  if (offset === undefined) return { _tag: "Invalid", message: "Invalid page token" }
  return {
    _tag: "Query",
    field: field ?? fields[0]!,
    from,
    until,
    pageSize: pageSize === 0 ? max : pageSize,
    offset,
    key
  }
}

const pad = (n: number) => String(n).padStart(2, "0")

/** A `CivilDateTime` as the text a civil filter compares (`YYYY-MM-DDTHH:mm:ss`). */
const civilText = (c: any): string =>
  `${c.date.year}-${pad(c.date.month)}-${pad(c.date.day)}T${pad(c.time?.hours ?? 0)}:${pad(c.time?.minutes ?? 0)}:${
    pad(c.time?.seconds ?? 0)
  }`

/** The value of the filter's field on a point (text compared as civil text, date text, or an instant). */
const valueOf = (field: string, point: Record<string, any>): string | number => {
  const body = Object.values(point).find((v) => typeof v === "object" && v !== null && v !== point["dataSource"]) as any
  if (field.endsWith(".date")) return `${body.date.year}-${pad(body.date.month)}-${pad(body.date.day)}`
  if (field.endsWith("civil_end_time")) return civilText(body.interval.civilEndTime)
  if (field.endsWith("civil_start_time")) return civilText(body.interval.civilStartTime)
  if (field.endsWith("civil_time")) return civilText(body.sampleTime.civilTime)
  if (field.endsWith("end_time")) return Date.parse(body.interval.endTime)
  if (field.endsWith("start_time")) return Date.parse(body.interval.startTime)
  return Date.parse(body.sampleTime.physicalTime)
}

/** A bound as the field compares it: a civil literal `YYYY-MM-DD[THH:mm:ss]` as text, a timestamp as an instant. */
const boundOf = (field: string, literal: string): string | number => {
  if (field.endsWith(".date")) return literal.slice(0, 10)
  if (field.includes("civil")) return literal.length === 10 ? `${literal}T00:00:00` : literal
  return Date.parse(literal)
}

/** The civil day a bound falls on, to know which days to generate (a day either side for the time zones). */
const dayOfBound = (literal: string): number | undefined => parseDay(literal.slice(0, 10))

/** The points of a data type the simulator makes for a user on a civil day. */
const pointsOfDay = (seed: string, userId: string, dataType: string, date: string): ReadonlyArray<ListedPoint> => {
  switch (dataType) {
    case "sleep":
      return sleepPointsOf(seed, userId, date)
    case "exercise":
      return exercisePointsOf(seed, userId, date)
    case "weight":
    case "body-fat":
      return bodyPointsOf(seed, userId, dataType, date)
    default: {
      if (!(dataType in dailyFields)) return []
      const p = dailyPointOf(seed, userId, dataType as keyof typeof dailyFields, date)
      return p === undefined ? [] : [p]
    }
  }
}

/** How far back a list without a lower bound reaches. */
const unboundedDays = 365

/**
 * One page of a list: the matching points newest first, from the query's offset, and the next page's token when
 * more remain. `today` is the user's own civil day and `nowMs` the simulator's now: nothing later exists yet.
 */
export const listPage = (
  seed: string,
  userId: string,
  dataType: string,
  query: Extract<ListQuery, { _tag: "Query" }>,
  today: number,
  nowMs: number
): { readonly dataPoints: ReadonlyArray<Record<string, unknown>>; readonly nextPageToken?: string } => {
  const fromDay = query.from === undefined ? today - unboundedDays : (dayOfBound(query.from) ?? today) - 1
  const toDay = query.until === undefined ? today : (dayOfBound(query.until) ?? today) + 1
  const lower = query.from === undefined ? undefined : boundOf(query.field, query.from)
  const upper = query.until === undefined ? undefined : boundOf(query.field, query.until)
  const matching = daysWithData(userId, fromDay, toDay, today)
    .flatMap((date) => pointsOfDay(seed, userId, dataType, date))
    .filter((p) => {
      // what has not happened yet is not there either
      if (p.sortMs > nowMs) return false
      const v = valueOf(query.field, p.point)
      return (lower === undefined || v >= lower) && (upper === undefined || v < upper)
    })
    .sort((a, b) => b.sortMs - a.sortMs)
  const page = matching.slice(query.offset, query.offset + query.pageSize).map((p) => p.point)
  const next = query.offset + query.pageSize
  return next < matching.length
    ? { dataPoints: page, nextPageToken: tokenOf(query.key, next) }
    : { dataPoints: page }
}
