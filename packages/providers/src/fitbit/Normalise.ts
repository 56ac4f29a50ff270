/**
 * Fitbit's daily activity summary as Fitbit writes it, and its pure normalisation into a
 * `DailyActivityRecord` keyed `<providerUserId>:<date>`. Nothing here reads the network: the
 * input is the decoded JSON of `GET /1/user/-/activities/date/{date}.json`.
 */
import * as Schema from "effect/Schema"
import type { DailyActivityRecord } from "../Canonical.js"
import { keepUnknownFields } from "../Shared.js"

/**
 * The unit systems `Accept-Language` selects: `en_US` imperial (miles), `en_GB` kilometres (but
 * stone), anything else metric. We always ask for metric.
 */
export type FitbitUnitSystem = "en_US" | "en_GB" | "METRIC"

const NonNegative = Schema.Number.pipe(Schema.nonNegative())

/** The part of the daily summary we read; everything else is kept for `rawJson`. */
export const FitbitDailySummary = Schema.Struct({
  summary: Schema.Struct({
    steps: NonNegative,
    caloriesOut: NonNegative,
    activityCalories: Schema.optional(Schema.Number),
    distances: Schema.optional(Schema.Array(Schema.Struct({ activity: Schema.String, distance: Schema.Number }))),
    lightlyActiveMinutes: NonNegative,
    fairlyActiveMinutes: NonNegative,
    veryActiveMinutes: NonNegative,
    sedentaryMinutes: NonNegative,
    // only devices with an altimeter report floors
    floors: Schema.optional(NonNegative),
    // only with heart-rate data
    restingHeartRate: Schema.optional(Schema.NullOr(Schema.Number))
  }).annotations(keepUnknownFields)
}).annotations(keepUnknownFields)
export type FitbitDailySummary = typeof FitbitDailySummary.Type

const metersPer = { METRIC: 1000, en_GB: 1000, en_US: 1609.344 } as const

/** A Fitbit distance (km, or miles for `en_US`) in metres, to the millimetre. */
export const fitbitDistanceMeters = (distance: number, units: FitbitUnitSystem = "METRIC"): number =>
  Math.round(distance * metersPer[units] * 1000) / 1000

/** One day's summary as a canonical record; `date` is the date in the request path. */
export const normaliseFitbitDay = (
  providerUserId: string,
  date: string,
  day: FitbitDailySummary,
  units: FitbitUnitSystem = "METRIC"
): DailyActivityRecord => {
  const s = day.summary
  const total = s.distances?.find((d) => d.activity === "total")
  return {
    providerRecordId: `${providerUserId}:${date}`,
    date,
    steps: s.steps,
    caloriesOut: s.caloriesOut,
    activeCalories: s.activityCalories ?? null,
    distanceMeters: total === undefined ? 0 : fitbitDistanceMeters(total.distance, units),
    lightActiveMinutes: s.lightlyActiveMinutes,
    moderateActiveMinutes: s.fairlyActiveMinutes,
    vigorousActiveMinutes: s.veryActiveMinutes,
    sedentaryMinutes: s.sedentaryMinutes,
    floorsClimbed: s.floors ?? 0,
    restingHeartRate: s.restingHeartRate ?? null,
    rawJson: JSON.stringify(day)
  }
}

/**
 * Whether a day holds anything the tracker recorded. Fitbit answers every date, and a date with
 * no data (before the user had a device, a day it was not worn, a day yet to come) as all zeros;
 * stored, such a day would read as a day spent still, so it is left out.
 */
export const fitbitDayHasData = (record: DailyActivityRecord): boolean =>
  record.steps > 0 || record.distanceMeters > 0 || record.lightActiveMinutes > 0 ||
  record.moderateActiveMinutes > 0 || record.vigorousActiveMinutes > 0 || record.restingHeartRate !== null
