/**
 * What the data readers share: calendar arithmetic on `YYYY-MM-DD` dates and UTC instants,
 * time-zone offsets, the window check, schema options that keep a provider's unknown fields
 * (so `rawJson` is the provider's record), following a paged collection, decoding a stored
 * notification, and decoding a page record by record.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ProviderError } from "./Adapter.js"
import type { CanonicalBatch, DateWindow, QuarantinedRecord } from "./Canonical.js"
import { emptyBatch } from "./Canonical.js"
import { flatDecoder } from "./internal/FlatDecode.js"
import type { CallContext } from "./internal/ProviderHttp.js"
import * as ProviderHttp from "./internal/ProviderHttp.js"

export const dayMs = 86_400_000
export const hourMs = 3_600_000

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/

/** UTC midnight (ms) starting a `YYYY-MM-DD` date; NaN when it is not a real date. */
export const utcMidnight = (date: string): number => {
  const m = datePattern.exec(date)
  if (m === null) return Number.NaN
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  return new Date(ms).toISOString().slice(0, 10) === date ? ms : Number.NaN
}

/** The UTC calendar date of an instant. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

export const addDays = (date: string, days: number): string => utcDate(utcMidnight(date) + days * dayMs)

/** Every date from `from` to `to`, both inclusive. */
export const datesOf = (window: DateWindow): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let ms = utcMidnight(window.from); ms <= utcMidnight(window.to); ms += dayMs) out.push(utcDate(ms))
  return out
}

/** Refuses a window whose dates are not real dates or whose `from` is after its `to`. */
export const checkWindow = (ctx: CallContext, window: DateWindow): Effect.Effect<void, ProviderError> => {
  const from = utcMidnight(window.from)
  const to = utcMidnight(window.to)
  if (Number.isNaN(from) || Number.isNaN(to)) {
    return ProviderHttp.refuse(ctx, `invalid date window ${window.from}..${window.to} (expected YYYY-MM-DD)`)
  }
  return from > to ?
    ProviderHttp.refuse(ctx, `date window ${window.from}..${window.to} ends before it starts`) :
    Effect.void
}

const offsetPattern = /^([+-])(\d{2}):?(\d{2})$/

/** Minutes east of UTC of `Z`, `±hh:mm` or `±hhmm`; undefined for anything else. */
export const offsetMinutes = (offset: string): number | undefined => {
  if (offset === "Z" || offset === "z") return 0
  const m = offsetPattern.exec(offset)
  if (m === null) return undefined
  const minutes = Number(m[2]) * 60 + Number(m[3])
  return m[1] === "-" ? -minutes : minutes
}

const zonePattern = /(?:[zZ]|[+-]\d{2}:?\d{2})$/
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?/

/**
 * The instant (ms) of an ISO 8601 date-time; one without a zone is read as UTC (JavaScript would
 * read it as the machine's local time). NaN when it is not a date-time.
 */
export const parseInstant = (text: string): number => {
  if (!dateTimePattern.test(text)) return Number.NaN
  if (!zonePattern.test(text)) return Date.parse(`${text}Z`)
  // `+hhmm` is ISO 8601 but not every engine parses it
  return Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"))
}

/** An ISO 8601 date-time as the provider wrote it (kept as text so `rawJson` stays the provider's). */
export const DateTimeString = Schema.String.pipe(
  Schema.filter((text) => !Number.isNaN(parseInstant(text)), { message: () => "expected an ISO 8601 date-time" })
)

export const DateString = Schema.String.pipe(
  Schema.filter((text) => !Number.isNaN(utcMidnight(text)), { message: () => "expected a YYYY-MM-DD date" })
)

/** The local calendar date of an instant at a fixed offset east of UTC. */
export const localDate = (ms: number, minutesEast: number): string => utcDate(ms + minutesEast * 60_000)

/**
 * Struct annotations that keep fields the schema does not name: the decoded record is then the
 * provider's record, and its JSON text is `rawJson`.
 */
export const keepUnknownFields = { parseOptions: { onExcessProperty: "preserve" } } as const

export const kilocaloriesFromKilojoules = (kilojoules: number): number => kilojoules / 4.184

export const millisToMinutes = (millis: number): number => millis / 60_000

/** A batch with the given lists and every other list empty. */
export const batchOf = (lists: Partial<CanonicalBatch>): CanonicalBatch => ({ ...emptyBatch, ...lists })

/** The items with one per key, the last one seen winning (and standing where it was seen). */
export const lastByKey = <A>(items: Iterable<A>, key: (item: A) => string): ReadonlyArray<A> => {
  const byKey = new Map<string, A>()
  for (const item of items) {
    const k = key(item)
    byKey.delete(k)
    byKey.set(k, item)
  }
  return Array.from(byKey.values())
}

/** A page of a token-paged collection. */
export interface Page<A> {
  readonly records: ReadonlyArray<A>
  readonly next: string | undefined
}

/** More pages than any window can have: a provider repeating itself, not data. */
const maxPages = 1000

/** Follows `next` tokens until a page has none. A token seen twice fails instead of looping. */
export const collectPages = <A, R>(
  ctx: CallContext,
  fetchPage: (token: string | undefined) => Effect.Effect<Page<A>, ProviderError, R>
): Effect.Effect<ReadonlyArray<A>, ProviderError, R> =>
  Effect.gen(function*() {
    const out: Array<A> = []
    const seen = new Set<string>()
    let token: string | undefined
    for (let pages = 0; pages < maxPages; pages++) {
      const page = yield* fetchPage(token)
      for (const record of page.records) out.push(record)
      if (page.next === undefined) return out
      if (seen.has(page.next)) {
        return yield* ProviderHttp.refuse(ctx, "the provider returned the same page token twice")
      }
      seen.add(page.next)
      token = page.next
    }
    return yield* ProviderHttp.refuse(ctx, `more than ${maxPages} pages in one window`)
  })

/**
 * Decodes a notification (plain JSON, possibly read back from storage) with the provider's
 * schema; one that does not decode is a `ProviderError`. The message names what was expected
 * but never echoes the value: a Garmin push carries the user's access token.
 */
/** The code of a notification no retry can make readable. */
export const InvalidNotification = "invalid_notification"

export const decodeNotification = <A, I>(provider: string, schema: Schema.Schema<A, I>, expected: string) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (notification: unknown): Effect.Effect<A, ProviderError> =>
    Either.match(decode(notification), {
      onLeft: () =>
        Effect.fail(
          new ProviderError({
            provider,
            operation: "notification",
            message: `${provider} notification: not ${expected}`,
            code: InvalidNotification
          })
        ),
      onRight: Effect.succeed
    })
}

// ---- record by record ----

/** The provider's id of a raw record: its `id`, `summaryId` or `recordId`, when a string or number. */
export const defaultRecordId = (raw: unknown): string | null => {
  if (typeof raw !== "object" || raw === null) return null
  for (const key of ["id", "summaryId", "recordId"]) {
    const value = (raw as Record<string, unknown>)[key]
    if (typeof value === "string" && value !== "") return value
    if (typeof value === "number" && Number.isFinite(value)) return String(value)
  }
  return null
}

const maxReasonLength = 300

/** Names the first field that failed, never its value (a record may carry a token or personal data). */
const decodeReason = (error: ParseResult.ParseError): string => {
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (first === undefined) return "malformed record"
  const where = first.path.length === 0 ? "record" : first.path.join(".")
  return `${where}: ${first._tag === "Missing" ? "is missing" : "is malformed"}`
}

const rawJsonOf = (raw: unknown): string => {
  try {
    return JSON.stringify(raw) ?? "null"
  } catch {
    return "null"
  }
}

export interface DecodedEach<R> {
  readonly records: ReadonlyArray<R>
  readonly quarantined: ReadonlyArray<QuarantinedRecord>
}

/**
 * Decodes and normalises each record on its own: one malformed record (or one the normaliser
 * cannot place, such as an impossible date) is quarantined with its raw JSON and the failing
 * field, and the others are read. A page is therefore decoded as an envelope of unknown items.
 */
export const decodeEach = <A, I, R>(options: {
  readonly kind: string
  readonly schema: Schema.Schema<A, I>
  readonly items: ReadonlyArray<unknown>
  /** May throw: the record is then quarantined too. */
  readonly normalise: (decoded: A, raw: unknown) => R
  /** The provider's id of a raw item (default: `defaultRecordId`). */
  readonly idOf?: ((raw: unknown) => string | null) | undefined
}): DecodedEach<R> => {
  const decode = Schema.decodeUnknownEither(options.schema)
  const decodeFlat = flatDecoder(options.schema)
  const idOf = options.idOf ?? defaultRecordId
  const records: Array<R> = []
  const quarantined: Array<QuarantinedRecord> = []
  const quarantine = (raw: unknown, reason: string) =>
    quarantined.push({
      kind: options.kind,
      providerRecordId: idOf(raw),
      reason: reason.slice(0, maxReasonLength),
      rawJson: rawJsonOf(raw)
    })
  for (const raw of options.items) {
    let value = decodeFlat?.(raw)
    if (value === undefined) {
      const decoded = decode(raw)
      if (Either.isLeft(decoded)) {
        quarantine(raw, decodeReason(decoded.left))
        continue
      }
      value = decoded.right
    }
    try {
      records.push(options.normalise(value, raw))
    } catch (error) {
      quarantine(raw, `cannot be normalised: ${error instanceof Error ? error.message : "unknown error"}`)
    }
  }
  return { records, quarantined }
}

/**
 * Lets the event loop run what is ready (sockets' callbacks, due timers) before going on: `setImmediate`, which runs
 * right after the loop's I/O. `Effect.sleep` of zero is a timer, which Node holds for at least a millisecond: a year
 * of readings is some 200 slices, and on a loaded machine that wait was 1.6 ms a slice.
 */
export const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * `decodeEach` over a long list (a window of CGM readings: some 8,000), a slice of `slice` items at a time with the
 * event loop let go between slices: decoding and normalising run synchronously, and a whole window at once held the
 * server's loop for about 100 ms, delaying every request that arrived meanwhile.
 */
export const decodeEachInSlices = <A, I, R>(
  options: Parameters<typeof decodeEach<A, I, R>>[0],
  slice = 500
): Effect.Effect<DecodedEach<R>> =>
  Effect.gen(function*() {
    const records: Array<R> = []
    const quarantined: Array<QuarantinedRecord> = []
    for (let at = 0; at < options.items.length; at += slice) {
      // a macrotask, not a microtask: the sockets' callbacks run before the next slice
      if (at > 0) yield* yieldToEventLoop
      const part = decodeEach({ ...options, items: options.items.slice(at, at + slice) })
      for (const record of part.records) records.push(record)
      for (const record of part.quarantined) quarantined.push(record)
    }
    return { records, quarantined }
  })
