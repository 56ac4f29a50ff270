/**
 * Shared building blocks of the contract: branded ids, calendar dates, time zones,
 * provider values and the date-range query used by every range read.
 */
import * as Schema from "effect/Schema"

export const AppId = Schema.UUID.pipe(Schema.brand("AppId")).annotations({ identifier: "AppId" })
export type AppId = typeof AppId.Type

export const UserId = Schema.UUID.pipe(Schema.brand("UserId")).annotations({ identifier: "UserId" })
export type UserId = typeof UserId.Type

export const ConnectionId = Schema.UUID.pipe(Schema.brand("ConnectionId")).annotations({ identifier: "ConnectionId" })
export type ConnectionId = typeof ConnectionId.Type

export const JournalEntryId = Schema.UUID.pipe(Schema.brand("JournalEntryId")).annotations({
  identifier: "JournalEntryId"
})
export type JournalEntryId = typeof JournalEntryId.Type

export const ApiKeyId = Schema.UUID.pipe(Schema.brand("ApiKeyId")).annotations({ identifier: "ApiKeyId" })
export type ApiKeyId = typeof ApiKeyId.Type

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

export const isTimeZone = (s: string): boolean => {
  if (s.length === 0 || s.length > 64) return false
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: s })
    return true
  } catch {
    return false
  }
}

/** An IANA time zone name, e.g. `Europe/Berlin`. */
export const TimeZone = Schema.String.pipe(
  Schema.filter(isTimeZone, { message: () => "must be an IANA time zone name such as Europe/Berlin" })
).annotations({ identifier: "TimeZone", description: "IANA time zone name", examples: ["Europe/Berlin"] })

/** ISO 8601 timestamp in UTC with `Z`. */
export const Timestamp = Schema.Date.annotations({
  identifier: "Timestamp",
  description: "ISO 8601 timestamp in UTC",
  jsonSchema: { type: "string", format: "date-time" }
})

/** The providers PulseBridge ships, each written as the provider's product name. */
export const BuiltinProvider = Schema.Literal("Fitbit", "Garmin", "WHOOP", "Dexcom").annotations({
  identifier: "BuiltinProvider",
  description: "A provider PulseBridge ships"
})
export type BuiltinProvider = typeof BuiltinProvider.Type
export const providers: ReadonlyArray<BuiltinProvider> = BuiltinProvider.literals

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
  description: "A wearable provider, written as the provider's product name (Fitbit, Garmin, WHOOP, Dexcom, or " +
    "a provider plug-in this deployment registers); a provider this deployment does not know is a 400"
})
export type Provider = typeof Provider.Type

/** Query of every range read: `from` and `to` inclusive, at most 366 days apart. */
export const MaxRangeDays = 366

export const dayNumber = (date: string): number => Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000)

const checkRange = (r: { readonly from: string; readonly to: string }) => {
  if (r.from > r.to) return "`from` must not be after `to`"
  if (dayNumber(r.to) - dayNumber(r.from) + 1 > MaxRangeDays) {
    return `the range may cover at most ${MaxRangeDays} days`
  }
  return true
}

export const DateRange = Schema.Struct({
  from: LocalDate.annotations({ description: "First day, inclusive (YYYY-MM-DD)" }),
  to: LocalDate.annotations({ description: "Last day, inclusive (YYYY-MM-DD)" })
}).pipe(Schema.filter(checkRange))

export const ProviderDateRange = Schema.Struct({
  from: LocalDate.annotations({ description: "First day, inclusive (YYYY-MM-DD)" }),
  to: LocalDate.annotations({ description: "Last day, inclusive (YYYY-MM-DD); at most 366 days after from" }),
  provider: Schema.optional(Provider.annotations({ description: "Only this provider" }))
}).pipe(Schema.filter(checkRange))
