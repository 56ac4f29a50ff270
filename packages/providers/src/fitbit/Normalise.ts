/**
 * The Google Health API's daily roll-ups as Google writes them, and their pure normalisation into
 * `DailyActivityRecord`s keyed by their civil date: a connection holds one user, and the key
 * does not change when the user's id does (a connection made with the retired Web API, connected
 * again through Google, gets its days replaced, not doubled). Nothing here reads the network: the input
 * is the decoded `rollupDataPoints` of `dataPoints:dailyRollUp`, one list per data type.
 *
 * Google writes int64 values as JSON strings (`"countSum": "8123"`) and, as proto3 JSON does,
 * leaves out a value that is zero; durations are strings of seconds (`"3600s"`). Each point's
 * day is its `civilStartTime.date`, the user's own calendar day.
 */
import * as Schema from "effect/Schema"
import type { DailyActivityRecord } from "../Canonical.js"
import { keepUnknownFields, utcMidnight } from "../Shared.js"

/** An int64 as Google writes it (a string of digits); a number is accepted too. */
const Int64 = Schema.Union(
  Schema.NonNegativeInt,
  Schema.String.pipe(Schema.pattern(/^\d{1,15}$/))
)
const NonNegative = Schema.Number.pipe(Schema.nonNegative())
/** A `google.protobuf.Duration` in JSON: seconds with up to 9 decimals and an `s`. */
const Duration = Schema.String.pipe(Schema.pattern(/^\d{1,12}(\.\d{1,9})?s$/))

const GoogleDate = Schema.Struct({ year: Schema.Int, month: Schema.Int, day: Schema.Int })
const CivilDateTime = Schema.Struct({
  date: GoogleDate,
  time: Schema.optional(Schema.Struct({
    hours: Schema.optional(Schema.Int),
    minutes: Schema.optional(Schema.Int),
    seconds: Schema.optional(Schema.Int),
    nanos: Schema.optional(Schema.Int)
  }))
})

const point = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct({ civilStartTime: CivilDateTime, civilEndTime: Schema.optional(CivilDateTime), ...fields })
    .annotations(keepUnknownFields)

/** The data types daily activity is made of, with the roll-up field each point carries. */
export const fitbitDataTypes = [
  "steps",
  "distance",
  "floors",
  "total-calories",
  "active-energy-burned",
  "active-minutes",
  "sedentary-period"
] as const
export type FitbitDataType = typeof fitbitDataTypes[number]

export const RollupPoints = {
  steps: point({ steps: Schema.optional(Schema.Struct({ countSum: Schema.optional(Int64) })) }),
  distance: point({ distance: Schema.optional(Schema.Struct({ millimetersSum: Schema.optional(Int64) })) }),
  floors: point({ floors: Schema.optional(Schema.Struct({ countSum: Schema.optional(Int64) })) }),
  "total-calories": point({
    totalCalories: Schema.optional(Schema.Struct({ kcalSum: Schema.optional(NonNegative) }))
  }),
  "active-energy-burned": point({
    activeEnergyBurned: Schema.optional(Schema.Struct({ kcalSum: Schema.optional(NonNegative) }))
  }),
  "active-minutes": point({
    activeMinutes: Schema.optional(Schema.Struct({
      activeMinutesRollupByActivityLevel: Schema.optional(Schema.Array(Schema.Struct({
        activityLevel: Schema.optional(Schema.String),
        activeMinutesSum: Schema.optional(Int64)
      })))
    }))
  }),
  "sedentary-period": point({
    sedentaryPeriod: Schema.optional(Schema.Struct({ durationSum: Schema.optional(Duration) }))
  })
} as const

export type RollupPoint<T extends FitbitDataType> = typeof RollupPoints[T]["Type"]

const int64 = (value: number | string | undefined): number => value === undefined ? 0 : Number(value)

const pad = (n: number, width: number) => String(n).padStart(width, "0")

/** The `YYYY-MM-DD` of a Google date; throws on an impossible one (the point is then quarantined). */
export const civilDate = (date: { readonly year: number; readonly month: number; readonly day: number }): string => {
  const text = `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}`
  if (Number.isNaN(utcMidnight(text))) throw new Error(`civilStartTime.date is not a calendar date: ${text}`)
  return text
}

/** What one day's points say, each value in the canonical unit. */
export interface FitbitDayValues {
  steps?: number
  distanceMeters?: number
  floors?: number
  caloriesOut?: number
  activeCalories?: number
  lightActiveMinutes?: number
  moderateActiveMinutes?: number
  vigorousActiveMinutes?: number
  sedentaryMinutes?: number
  /** The raw points, by data type, for `rawJson`. */
  readonly raw: Record<string, unknown>
}

const minutesOf = (
  levels: ReadonlyArray<
    { readonly activityLevel?: string | undefined; readonly activeMinutesSum?: number | string | undefined }
  >,
  level: string
): number => int64(levels.find((l) => l.activityLevel === level)?.activeMinutesSum)

/** One data type's point as the values it contributes to its day. Pure; throws on a bad date. */
export const valuesOf = (
  dataType: FitbitDataType,
  decoded: RollupPoint<FitbitDataType>
): { readonly date: string; readonly values: Omit<FitbitDayValues, "raw"> } => {
  const date = civilDate(decoded.civilStartTime.date)
  const p = decoded as Record<string, any>
  switch (dataType) {
    case "steps":
      return { date, values: { steps: int64(p.steps?.countSum) } }
    case "distance":
      // millimetres to metres, kept to the millimetre
      return { date, values: { distanceMeters: int64(p.distance?.millimetersSum) / 1000 } }
    case "floors":
      return { date, values: { floors: int64(p.floors?.countSum) } }
    case "total-calories":
      return { date, values: { caloriesOut: p.totalCalories?.kcalSum ?? 0 } }
    case "active-energy-burned":
      return { date, values: { activeCalories: p.activeEnergyBurned?.kcalSum ?? 0 } }
    case "active-minutes": {
      const levels = p.activeMinutes?.activeMinutesRollupByActivityLevel ?? []
      return {
        date,
        values: {
          lightActiveMinutes: minutesOf(levels, "LIGHT"),
          moderateActiveMinutes: minutesOf(levels, "MODERATE"),
          vigorousActiveMinutes: minutesOf(levels, "VIGOROUS")
        }
      }
    }
    case "sedentary-period": {
      const seconds = Number((p.sedentaryPeriod?.durationSum ?? "0s").slice(0, -1))
      return { date, values: { sedentaryMinutes: Math.round(seconds / 60) } }
    }
  }
}

/**
 * A day as a canonical record. Fields without a source in the Google Health API become 0 (the
 * contract's numbers) or null where the contract allows it; docs/providers/fitbit.md lists them.
 * A day of zeros is kept: Google writes true zeros (a tracker worn but still records explicit
 * zero steps), and leaves out the time it was not worn, so a day it returned points for was worn.
 */
export const normaliseFitbitDay = (date: string, day: FitbitDayValues): DailyActivityRecord => ({
  providerRecordId: date,
  date,
  steps: day.steps ?? 0,
  caloriesOut: Math.round((day.caloriesOut ?? 0) * 100) / 100,
  activeCalories: day.activeCalories === undefined ? null : Math.round(day.activeCalories * 100) / 100,
  distanceMeters: day.distanceMeters ?? 0,
  lightActiveMinutes: day.lightActiveMinutes ?? 0,
  moderateActiveMinutes: day.moderateActiveMinutes ?? 0,
  vigorousActiveMinutes: day.vigorousActiveMinutes ?? 0,
  sedentaryMinutes: day.sedentaryMinutes ?? 0,
  floorsClimbed: day.floors ?? 0,
  // another data type's (`daily-resting-heart-rate`): the window's read fills it in when granted
  restingHeartRate: null,
  rawJson: JSON.stringify(day.raw)
})
