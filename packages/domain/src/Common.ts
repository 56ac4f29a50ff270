/**
 * Shared building blocks of the contract: branded ids, the contract's string types (bounded, no NUL,
 * no lone surrogates), strict timestamps and calendar dates, time zones, provider values and the
 * date-range query used by every range read.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

// ---- strings ----

/** A UTF-16 code unit of a surrogate pair standing alone: not Unicode text, and refused by PostgreSQL. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
/** Every C0 control character and DEL. */
const controlCharacter = /[\u0000-\u001F\u007F]/
/** C0 controls other than tab, line feed and carriage return, and DEL: refused even in free text. */
const textControlCharacter = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/

/** Replaces lone surrogates with U+FFFD, so that `encodeURIComponent` and friends cannot throw. */
export const toWellFormed = (s: string): string => s.replace(new RegExp(loneSurrogate.source, "g"), "\uFFFD")

export interface ContractStringOptions {
  /** The longest value accepted, in UTF-16 code units (JavaScript characters). */
  readonly maxLength: number
  /** The shortest value accepted; default 0. */
  readonly minLength?: number
  /** Free text may carry tabs and line breaks; identifiers, names and URLs carry no control character. */
  readonly freeText?: boolean
  /** URLs carry no whitespace at all. */
  readonly noWhitespace?: boolean
}

const stringProblem = (s: string, options: ContractStringOptions): string | undefined => {
  const min = options.minLength ?? 0
  if (s.length < min) return min === 1 ? "expected a non-empty string" : `expected at least ${min} characters`
  if (s.length > options.maxLength) return `expected at most ${options.maxLength} characters`
  if (s.includes("\u0000")) return "must not contain NUL characters"
  if ((options.freeText === true ? textControlCharacter : controlCharacter).test(s)) {
    return options.freeText === true
      ? "must not contain control characters other than tab and line breaks"
      : "must not contain control characters"
  }
  if (loneSurrogate.test(s)) return "must be well-formed Unicode text (no lone surrogates)"
  if (options.noWhitespace === true && /\s/.test(s)) return "must not contain spaces or line breaks"
  return undefined
}

/** The description of a contract string's limits, for OpenAPI. */
const limitsText = (options: ContractStringOptions) =>
  `${(options.minLength ?? 0) > 0 ? `${options.minLength} to ${options.maxLength}` : `At most ${options.maxLength}`} ` +
  `characters; ${
    options.freeText === true
      ? "no NUL or control characters other than tab and line breaks"
      : options.noWhitespace === true
      ? "no spaces or control characters"
      : "no control characters"
  }, no lone surrogates.`

/**
 * The string type of the contract: every string that comes in (payloads, url params, query of the
 * callbacks) has a maximum length and no NUL, other control characters (except tab and line breaks
 * in free text) or lone surrogates. The limits are part of the value's OpenAPI description.
 */
export const ContractString = (options: ContractStringOptions, description?: string) =>
  Schema.String.pipe(
    Schema.filter((s) => stringProblem(s, options) ?? true, { jsonSchema: {} }),
    Schema.maxLength(options.maxLength, { message: () => `expected at most ${options.maxLength} characters` }),
    (self) =>
      (options.minLength ?? 0) > 0
        ? self.pipe(Schema.minLength(options.minLength!, { message: () => "expected a non-empty string" }))
        : self
  ).annotations({
    description: description === undefined ? limitsText(options) : `${description}. ${limitsText(options)}`
  })

/** A URL that comes in: at most 2,048 characters, without spaces or control characters. */
export const MaxUrlLength = 2048

export const UrlString = (description: string) =>
  ContractString({ maxLength: MaxUrlLength, minLength: 1, noWhitespace: true }, description)

/** Whether a JSON value holds a string (or key) a contract string refuses anywhere: NUL or a lone surrogate. */
export const jsonTextProblem = (value: unknown): string | undefined => {
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === "string") {
      if (next.includes("\u0000")) return "must not contain NUL characters"
      if (loneSurrogate.test(next)) return "must be well-formed Unicode text (no lone surrogates)"
    } else if (Array.isArray(next)) {
      pending.push(...next)
    } else if (typeof next === "object" && next !== null) {
      for (const [key, inner] of Object.entries(next)) pending.push(key, inner)
    }
  }
  return undefined
}

// ---- ids ----

/**
 * A UUID of any case, decoded to lower case: every comparison and every SQL statement sees one form
 * (a client may send the user's own id in upper case).
 */
export const uuidId = <B extends string>(brand: B) =>
  Schema.Lowercase.pipe(
    Schema.compose(Schema.UUID.annotations({ message: () => "expected a UUID" })),
    Schema.brand(brand)
  ).annotations({
    identifier: brand,
    description: "A UUID (any case; answered in lower case)",
    jsonSchema: { type: "string", format: "uuid", description: "A UUID (any case; answered in lower case)" }
  })

export const AppId = uuidId("AppId")
export type AppId = typeof AppId.Type

export const UserId = uuidId("UserId")
export type UserId = typeof UserId.Type

export const ConnectionId = uuidId("ConnectionId")
export type ConnectionId = typeof ConnectionId.Type

export const JournalEntryId = uuidId("JournalEntryId")
export type JournalEntryId = typeof JournalEntryId.Type

/** PulseBridge's id of a sleep session, workout, recovery or body measurement. */
export const HealthRecordId = uuidId("HealthRecordId")
export type HealthRecordId = typeof HealthRecordId.Type

export const ApiKeyId = uuidId("ApiKeyId")
export type ApiKeyId = typeof ApiKeyId.Type

// ---- dates and times ----

const isCalendarDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(Date.UTC(y, mo - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}

/** A calendar day `YYYY-MM-DD` (validated: 2026-02-30 is rejected). */
export const LocalDate = Schema.String.pipe(
  Schema.filter(isCalendarDate, { message: () => "must be a calendar date in the form YYYY-MM-DD" })
).annotations({ identifier: "LocalDate", description: "A calendar day, YYYY-MM-DD", examples: ["2026-11-02"] })
export type LocalDate = typeof LocalDate.Type

/**
 * Names already known to be time zones. `Intl` checks a name by building a formatter, some 100 µs, on every user
 * create or update that names a zone; there are some 600 names (letter case aside), so the set stops growing at
 * `knownTimeZonesMax` and a name past it is checked each time. A name that is not a zone is never kept.
 */
const knownTimeZones = new Set<string>()
const knownTimeZonesMax = 2048

export const isTimeZone = (s: string): boolean => {
  if (s.length === 0 || s.length > 64) return false
  if (knownTimeZones.has(s)) return true
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: s })
  } catch {
    return false
  }
  if (knownTimeZones.size < knownTimeZonesMax) knownTimeZones.add(s)
  return true
}

/** An IANA time zone name, e.g. `Europe/Berlin`. */
export const TimeZone = Schema.String.pipe(
  Schema.filter(isTimeZone, { message: () => "must be an IANA time zone name such as Europe/Berlin" })
).annotations({ identifier: "TimeZone", description: "IANA time zone name", examples: ["Europe/Berlin"] })

const isoTimestamp = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/i

/**
 * The instants a timestamp may name: from 1900 through 9998, so that the calendar day of any
 * instant, in any time zone, is a four-digit date (9999-12-31T23:00Z is already the year 10000 in
 * Kiritimati).
 */
export const MinTimestamp = Date.UTC(1900, 0, 1)
export const MaxTimestamp = Date.UTC(9999, 0, 1) - 1

/**
 * Parses an ISO 8601 date-time with a zone, strictly: each field within its range and the day within
 * its month (`Date.parse` turns 2026-02-30 into March 2nd), and the instant from 1900 through 9998.
 */
export const parseTimestamp = (s: string): Date | undefined => {
  if (s.length > 40) return undefined
  const m = isoTimestamp.exec(s)
  if (m === null || !isCalendarDate(`${m[1]}-${m[2]}-${m[3]}`)) return undefined
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)]
  if (hour > 23 || minute > 59 || second > 59) return undefined
  if (m[7] !== undefined && (Number(m[8]) > 14 || Number(m[9]) > 59)) return undefined
  const date = new Date(s)
  const time = date.getTime()
  return Number.isNaN(time) || time < MinTimestamp || time > MaxTimestamp ? undefined : date
}

/** ISO 8601 timestamp (UTC with `Z` in answers), decoded strictly to a `Date`. */
export const Timestamp = Schema.transformOrFail(Schema.String, Schema.DateFromSelf, {
  strict: true,
  decode: (s, _, ast) => {
    const date = parseTimestamp(s)
    return date === undefined
      ? ParseResult.fail(
        new ParseResult.Type(
          ast,
          s,
          "expected an ISO 8601 timestamp with a time zone from the years 1900 to 9998, e.g. 2026-01-05T12:30:00Z"
        )
      )
      : ParseResult.succeed(date)
  },
  encode: (d) => ParseResult.succeed(d.toISOString())
}).annotations({
  identifier: "Timestamp",
  description: "ISO 8601 timestamp in UTC (accepted with any zone offset, from the years 1900 to 9998)",
  jsonSchema: { type: "string", format: "date-time" }
})

/** The providers PulseBridge ships, each written as the provider's product name. */
export const BuiltinProvider = Schema.Literal("Fitbit", "Garmin", "WHOOP", "Dexcom", "Oura", "Withings").annotations({
  identifier: "BuiltinProvider",
  description: "A provider PulseBridge ships"
})
export type BuiltinProvider = typeof BuiltinProvider.Type
export const providers: ReadonlyArray<BuiltinProvider> = BuiltinProvider.literals

/**
 * The providers the service contract names. The others PulseBridge ships (Oura, Withings) are listed outside
 * sandbox mode only to an app whose credentials for them are configured, so a client that follows the contract
 * sees exactly these by default.
 */
export const ContractProvider = Schema.Literal("Fitbit", "Garmin", "WHOOP", "Dexcom")
export type ContractProvider = typeof ContractProvider.Type

/** The name of a provider a deployment registers besides the built-in ones (a provider plug-in). */
export const ProviderName = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(64),
  Schema.pattern(/^[A-Za-z][A-Za-z0-9 ._-]*$/)
).annotations({ description: "A provider registered by this deployment as a plug-in" })

/**
 * A wearable provider: one of the built-in four, or a provider plug-in the deployment registers.
 * A name no registered provider carries is refused with a 400 by the server.
 */
export const Provider = Schema.Union(BuiltinProvider, ProviderName).annotations({
  identifier: "Provider",
  description: "A wearable provider, written as the provider's product name (Fitbit, Garmin, WHOOP, Dexcom, Oura, " +
    "Withings, or a provider plug-in this deployment registers); a provider this deployment does not know is a 400"
})
export type Provider = typeof Provider.Type

/** Query of every range read: `from` and `to` inclusive, at most 366 days apart. */
export const MaxRangeDays = 366

export const dayNumber = (date: string): number => Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000)

/** The check of a `from`/`to` range: `from` not after `to`, at most `maxDays` days, `to` not after `lastDate`. */
export const checkDateRange =
  (maxDays: number, lastDate?: string) => (r: { readonly from: string; readonly to: string }) => {
    if (r.from > r.to) return "`from` must not be after `to`"
    if (dayNumber(r.to) - dayNumber(r.from) + 1 > maxDays) return `the range may cover at most ${maxDays} days`
    if (lastDate !== undefined && r.to > lastDate) return `\`to\` must be on or before ${lastDate}`
    return true
  }

const checkRange = checkDateRange(MaxRangeDays)

export const DateRange = Schema.Struct({
  from: LocalDate.annotations({ description: "First day, inclusive (YYYY-MM-DD)" }),
  to: LocalDate.annotations({ description: "Last day, inclusive (YYYY-MM-DD)" })
}).pipe(Schema.filter(checkRange))

export const ProviderDateRange = Schema.Struct({
  from: LocalDate.annotations({ description: "First day, inclusive (YYYY-MM-DD)" }),
  to: LocalDate.annotations({ description: "Last day, inclusive (YYYY-MM-DD); at most 366 days after from" }),
  provider: Schema.optional(Provider.annotations({ description: "Only this provider" }))
}).pipe(Schema.filter(checkRange))

/** The most items one page of a paged range read may hold. */
export const MaxPageLimit = 10_000
/** The longest page cursor accepted. */
export const MaxCursorLength = 1024

/**
 * Query of the range reads that can be paged (endpoints 10, 12 and 14): the date range, and optionally `limit`
 * and `cursor`. Without `limit` the whole range is answered; with it, at most `limit` items, and a
 * `Link: <...>; rel="next"` header when more remain.
 */
export const PagedProviderDateRange = Schema.Struct({
  from: LocalDate.annotations({ description: "First day, inclusive (YYYY-MM-DD)" }),
  to: LocalDate.annotations({ description: "Last day, inclusive (YYYY-MM-DD); at most 366 days after from" }),
  provider: Schema.optional(Provider.annotations({ description: "Only this provider" })),
  limit: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[1-9][0-9]{0,4}$/, { message: () => `expected a whole number from 1 to ${MaxPageLimit}` }),
      Schema.compose(Schema.NumberFromString),
      Schema.compose(Schema.Int),
      Schema.lessThanOrEqualTo(MaxPageLimit, { message: () => `expected a whole number from 1 to ${MaxPageLimit}` })
    ).annotations({
      description: `Optional paging: at most this many items (1 to ${MaxPageLimit}) in the answer, which keeps its ` +
        "shape. When more remain, the answer carries a `Link: <...>; rel=\"next\"` header with the URL of the next " +
        "page (a path on this server with an opaque `cursor`); the last page has none. Without `limit` the whole " +
        "range is answered"
    })
  ),
  cursor: Schema.optional(
    ContractString(
      { maxLength: MaxCursorLength, minLength: 1, noWhitespace: true },
      "Where the page starts: the `cursor` of a `Link` header's next-page URL, as given (opaque); an unreadable " +
        "cursor is a 400"
    )
  )
}).pipe(Schema.filter(checkRange))
