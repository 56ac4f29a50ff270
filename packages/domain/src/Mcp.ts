/**
 * The MCP server's tools over one user's data: their inputs, the envelope of their answers, and the
 * glucose summary (the one answer that is not a contract type already). Every answer is bounded: a
 * range tool takes at most its number of days, and an answer that would still exceed
 * `McpMaxAnswerChars` is cut at a day boundary and says where to continue (`continueFrom`).
 */
import * as Schema from "effect/Schema"
import { checkDateRange, ConnectionId, LocalDate, Provider, TimeZone, UserId } from "./Common.js"

/** The most characters of JSON one tool answer holds (about 12,000 tokens of a language model). */
export const McpMaxAnswerChars = 48_000

/** The longest range, in days, of each kind of range tool. */
export const McpMaxDays = {
  /** One record or summary a day and provider: a quarter. */
  daily: 92,
  /** Several records a day (journal entries, meal responses) or a wide record (coverage): a month. */
  detailed: 31,
  /** Weekly scores: a year. */
  weekly: 366
} as const

/** A day of a tool's input, described in its JSON Schema (a refinement alone would show as a bare string). */
const dayInput = (description: string) =>
  LocalDate.annotations({ description, jsonSchema: { type: "string", format: "date", description } })

/**
 * How a tool's answer is given as text: `compact` (the default), a summary and a table made for a language model,
 * rounded to what the figures mean; `json`, the structured content's JSON as it is. The structured content is the
 * full typed data either way.
 */
export const McpAnswerFormat = Schema.Literal("compact", "json").annotations({
  // No identifier: the listing shows the argument in place rather than as a reference.
  jsonSchema: {
    type: "string",
    enum: ["compact", "json"],
    default: "compact",
    description: "The answer's text: `compact` (default) a summary and a table, numbers rounded to their meaning; " +
      "`json` the full data as JSON"
  }
})
export type McpAnswerFormat = typeof McpAnswerFormat.Type

/** The argument every tool takes: how its answer is given as text. */
export const mcpFormatField = { format: Schema.optional(McpAnswerFormat) }

const rangeFields = (maxDays: number) => ({
  from: dayInput("First day, inclusive (YYYY-MM-DD)"),
  to: dayInput(`Last day, inclusive (YYYY-MM-DD); the range may cover at most ${maxDays} days`),
  ...mcpFormatField
})

/** The input of a range tool: `from`/`to` inclusive, at most `maxDays` days, `to` not after `lastDate`. */
export const McpRange = (maxDays: number, options?: { readonly lastDate?: string }) =>
  Schema.Struct(rangeFields(maxDays)).pipe(Schema.filter(checkDateRange(maxDays, options?.lastDate)))

/** The input of a range tool of provider records, which may name one provider. */
export const McpProviderRange = (maxDays: number) =>
  Schema.Struct({
    ...rangeFields(maxDays),
    provider: Schema.optional(
      Provider.annotations({
        jsonSchema: { type: "string", description: "Only this provider (Fitbit, Garmin, WHOOP, Dexcom, ...)" }
      })
    )
  }).pipe(Schema.filter(checkDateRange(maxDays)))

/**
 * The input of a tool without data arguments: an object with at most `format` (`Schema.Struct` alone would take
 * any other key).
 */
export const McpNoInput = Schema.Struct(mcpFormatField).pipe(
  Schema.filter((args) => {
    const names = Object.keys(args).filter((name) => name !== "format")
    return names.length === 0 || `this tool takes no arguments but \`format\` (got ${names.slice(0, 5).join(", ")})`
  })
)

/** The fields every range answer has; the tool's own list goes beside them. */
export const mcpRangeFields = {
  from: LocalDate,
  to: LocalDate,
  continueFrom: Schema.NullOr(LocalDate).annotations({
    description: "null when the answer holds the whole range. Otherwise the answer was cut to stay within its " +
      "size bound after the day before this one: call the tool again with this as `from` for the rest"
  }),
  partialDay: Schema.NullOr(Schema.Struct({
    date: LocalDate,
    shown: Schema.Int,
    total: Schema.Int
  })).annotations({
    description: "null, or the one day that alone holds more than an answer can: its first `shown` items of " +
      "`total` are in the answer; the REST API serves the whole day"
  })
}

export class McpProfile extends Schema.Class<McpProfile>("McpProfile")({
  userId: UserId,
  timezone: TimeZone,
  today: LocalDate.annotations({ description: "The user's date now, in their time zone" })
}, { description: "The user the tools read, and their today" }) {}

export const GlucoseBands = Schema.Struct({
  veryLow: Schema.Number.annotations({ description: "Percent of readings below 54 mg/dL (3.0 mmol/L)" }),
  low: Schema.Number.annotations({ description: "Percent of readings from 54 to 69 mg/dL" }),
  inRange: Schema.Number.annotations({ description: "Percent of readings from 70 to 180 mg/dL (3.9-10.0 mmol/L)" }),
  high: Schema.Number.annotations({ description: "Percent of readings from 181 to 250 mg/dL" }),
  veryHigh: Schema.Number.annotations({ description: "Percent of readings above 250 mg/dL (13.9 mmol/L)" })
}).annotations({
  identifier: "GlucoseBands",
  description: "Time in ranges after the international consensus (Battelino et al., Diabetes Care 2019), as " +
    "percent of the readings; each reading stands for its five minutes"
})

export class GlucoseStats extends Schema.Class<GlucoseStats>("GlucoseStats")({
  readings: Schema.Int.annotations({ description: "Readings with a value" }),
  coveragePercent: Schema.Number.annotations({
    description: "Readings over the 288 five-minute slots of each day of the span, capped at 100"
  }),
  meanMgDl: Schema.Number,
  sdMgDl: Schema.Number.annotations({ description: "Standard deviation (population)" }),
  cvPercent: Schema.Number.annotations({
    description: "Coefficient of variation: SD / mean x 100 (stable: 36 or less)"
  }),
  minMgDl: Schema.Number,
  maxMgDl: Schema.Number,
  gmiPercent: Schema.Number.annotations({
    description: "Glucose management indicator: 3.31 + 0.02392 x mean mg/dL (Bergenstal et al., Diabetes Care " +
      "2018), an estimate of HbA1c; meaningful over 14 days or more"
  }),
  timeInRanges: GlucoseBands
}, { description: "Glucose statistics in mg/dL; readings at the sensor's bound (Low, High) count as 40 and 400" }) {}

export class GlucoseDay extends Schema.Class<GlucoseDay>("GlucoseDay")({
  date: LocalDate.annotations({ description: "The device's own day (the date of the readings' display time)" }),
  connectionId: ConnectionId,
  provider: Provider,
  stats: GlucoseStats
}) {}

export class GlucoseConnectionSummary extends Schema.Class<GlucoseConnectionSummary>("GlucoseConnectionSummary")({
  connectionId: ConnectionId,
  provider: Provider,
  days: Schema.Int.annotations({ description: "Days of the range with readings" }),
  stats: GlucoseStats.annotations({ description: "Over every reading of the range (not cut by `continueFrom`)" })
}) {}

export class GlucoseSummary extends Schema.Class<GlucoseSummary>("GlucoseSummary")({
  ...mcpRangeFields,
  unit: Schema.Literal("mg/dL"),
  targetRange: Schema.Struct({ lowMgDl: Schema.Number, highMgDl: Schema.Number }),
  connections: Schema.Array(GlucoseConnectionSummary),
  days: Schema.Array(GlucoseDay).annotations({
    description: "By date, then connection; days without readings left out"
  })
}, { description: "Glucose of a range of days, summarised per connection and per day: never the raw readings" }) {}
