/**
 * Oura API v2 documents (cloud.ouraring.com/v2/docs) as Oura writes them, and their pure normalisation into
 * daily activity, sleep, workout and body-measurement records (the day's recovery is assembled in
 * `NormaliseRecovery.ts`).
 *
 * Dates: every document carries `day`, the user's local date as Oura assigns it (a sleep's is the morning it
 * ends into, a workout's the day it starts); that is the record's date, never a date worked out from an instant
 * in UTC (a peer dropped the offsets and shifted days). Instants (`bedtime_start`, `start_datetime`, ...) carry
 * their offset (`2022-08-10T02:20:41-04:00`): it gives both the UTC instant and the record's `utcOffsetMinutes`.
 *
 * Units: durations in seconds (made minutes), distances in metres, energy in kcal, heart rate in bpm, HRV
 * (`average_hrv`) the RMSSD in ms. A zero Oura writes is a zero measured and is kept as one.
 */
import * as Schema from "effect/Schema"
import type { BodyMeasurementSnapshot, DailyActivityRecord, SleepRecord, WorkoutRecord } from "../Canonical.js"
import { activityTypeOfName } from "../Canonical.js"
import { DateString, DateTimeString, keepUnknownFields, offsetMinutes, parseInstant, utcDate } from "../Shared.js"

const Count = Schema.Number.pipe(Schema.nonNegative())
const optionalCount = Schema.optional(Schema.NullOr(Count))
const optionalNumber = Schema.optional(Schema.NullOr(Schema.Number))

/** Minutes east of UTC written at the end of an ISO 8601 date-time; null when it has none. */
export const isoOffsetMinutes = (text: string): number | null => {
  const m = /(?:[zZ]|[+-]\d{2}:?\d{2})$/.exec(text)
  if (m === null || !/T\d{2}:\d{2}/.test(text)) return null
  return offsetMinutes(m[0]) ?? null
}

/** A date-time Oura writes with its offset (the offset is the user's clock at that instant). */
export const OffsetDateTime = DateTimeString.pipe(
  Schema.filter((text) => isoOffsetMinutes(text) !== null, { message: () => "expected a date-time with an offset" })
)

// ---- provider shapes ----

/** `daily_activity` (Multiple Daily Activity Documents): one per local day, updated through the day. */
export const OuraDailyActivity = Schema.Struct({
  id: Schema.NonEmptyString,
  day: DateString,
  score: optionalNumber,
  steps: Count,
  total_calories: Count,
  active_calories: optionalCount,
  equivalent_walking_distance: optionalCount,
  high_activity_time: optionalCount,
  medium_activity_time: optionalCount,
  low_activity_time: optionalCount,
  sedentary_time: optionalCount,
  resting_time: optionalCount,
  non_wear_time: optionalCount,
  timestamp: Schema.optional(DateTimeString)
}).annotations(keepUnknownFields)
export type OuraDailyActivity = typeof OuraDailyActivity.Type

/** The sleep types Oura documents; `long_sleep` is the night's main sleep, `deleted` a period removed. */
export const ouraSleepTypes = ["deleted", "sleep", "long_sleep", "late_nap", "rest"] as const

/** `sleep` (Multiple Sleep Documents): one per sleep period; a day may have several. */
export const OuraSleep = Schema.Struct({
  id: Schema.NonEmptyString,
  day: DateString,
  bedtime_start: OffsetDateTime,
  bedtime_end: OffsetDateTime,
  type: Schema.optional(Schema.NullOr(Schema.String)),
  time_in_bed: Count,
  total_sleep_duration: optionalCount,
  awake_time: optionalCount,
  light_sleep_duration: optionalCount,
  deep_sleep_duration: optionalCount,
  rem_sleep_duration: optionalCount,
  efficiency: Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.between(0, 100)))),
  latency: optionalCount,
  average_heart_rate: optionalCount,
  lowest_heart_rate: optionalCount,
  average_hrv: optionalCount,
  average_breath: optionalCount,
  restless_periods: optionalCount
}).annotations(keepUnknownFields)
export type OuraSleep = typeof OuraSleep.Type

/** `daily_sleep`: the day's sleep score (0-100) and its contributors. */
export const OuraDailySleep = Schema.Struct({
  id: Schema.NonEmptyString,
  day: DateString,
  score: Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.between(0, 100))))
}).annotations(keepUnknownFields)
export type OuraDailySleep = typeof OuraDailySleep.Type

/** `workout`: auto-detected and user-entered workouts. */
export const OuraWorkout = Schema.Struct({
  id: Schema.NonEmptyString,
  day: DateString,
  activity: Schema.String,
  start_datetime: OffsetDateTime,
  end_datetime: OffsetDateTime,
  calories: optionalCount,
  distance: optionalCount,
  intensity: Schema.optional(Schema.NullOr(Schema.String)),
  label: Schema.optional(Schema.NullOr(Schema.String)),
  source: Schema.optional(Schema.NullOr(Schema.String))
}).annotations(keepUnknownFields)
export type OuraWorkout = typeof OuraWorkout.Type

/** `personal_info` (a bare object, not a page): height in metres, weight in kilograms. */
export const OuraPersonalInfo = Schema.Struct({
  id: Schema.NonEmptyString,
  age: optionalNumber,
  weight: optionalCount,
  height: optionalCount,
  biological_sex: Schema.optional(Schema.NullOr(Schema.String))
}).annotations(keepUnknownFields)
export type OuraPersonalInfo = typeof OuraPersonalInfo.Type

// ---- normalisers ----

const minutes = (seconds: number | null | undefined): number | null =>
  seconds === null || seconds === undefined ? null : seconds / 60

const instant = (text: string): Date => {
  const ms = parseInstant(text)
  if (Number.isNaN(ms)) throw new Error("a date-time does not read")
  return new Date(ms)
}

/**
 * A day of activity, keyed by its day (Oura keeps one document per day and updates it). High, medium and low
 * activity time are Oura's vigorous, moderate and light minutes. Oura reports no floors: 0.
 */
export const normaliseOuraDailyActivity = (
  activity: OuraDailyActivity,
  restingHeartRate: number | null = null
): DailyActivityRecord => ({
  providerRecordId: activity.day,
  date: activity.day,
  steps: activity.steps,
  caloriesOut: activity.total_calories,
  activeCalories: activity.active_calories ?? null,
  distanceMeters: activity.equivalent_walking_distance ?? 0,
  lightActiveMinutes: minutes(activity.low_activity_time) ?? 0,
  moderateActiveMinutes: minutes(activity.medium_activity_time) ?? 0,
  vigorousActiveMinutes: minutes(activity.high_activity_time) ?? 0,
  sedentaryMinutes: minutes(activity.sedentary_time) ?? 0,
  floorsClimbed: 0,
  restingHeartRate,
  rawJson: JSON.stringify(activity)
})

/** Whether a sleep period is the night's main sleep. */
export const isOuraMainSleep = (sleep: Pick<OuraSleep, "type">): boolean => sleep.type === "long_sleep"

/**
 * A sleep period, dated by Oura's `day`. Its offset is the one written on `bedtime_end` (the clock of the
 * morning it is dated by). `score` is the day's `daily_sleep` score, given for the main sleep only (Oura scores
 * the day's sleep, which its main sleep is). Awake, latency and stage durations are seconds; `average_breath`
 * is breaths per minute (the model calls it "breaths/second", but its values, about 15, are per minute).
 */
export const normaliseOuraSleep = (sleep: OuraSleep, score: number | null = null): SleepRecord => {
  const light = minutes(sleep.light_sleep_duration)
  const deep = minutes(sleep.deep_sleep_duration)
  const rem = minutes(sleep.rem_sleep_duration)
  const staged = sleep.light_sleep_duration != null && sleep.deep_sleep_duration != null &&
      sleep.rem_sleep_duration != null
    ? minutes(sleep.light_sleep_duration + sleep.deep_sleep_duration + sleep.rem_sleep_duration)
    : null
  const main = isOuraMainSleep(sleep)
  const providerScore = main ? score : null
  return {
    providerRecordId: sleep.id,
    date: sleep.day,
    start: instant(sleep.bedtime_start),
    end: instant(sleep.bedtime_end),
    utcOffsetMinutes: isoOffsetMinutes(sleep.bedtime_end),
    nap: !main,
    scoreState: "SCORED",
    inBedMinutes: minutes(sleep.time_in_bed),
    asleepMinutes: minutes(sleep.total_sleep_duration) ?? staged,
    awakeMinutes: minutes(sleep.awake_time),
    lightMinutes: light,
    deepMinutes: deep,
    remMinutes: rem,
    efficiencyPercent: sleep.efficiency ?? null,
    latencyMinutes: minutes(sleep.latency),
    averageHeartRate: sleep.average_heart_rate ?? null,
    lowestHeartRate: sleep.lowest_heart_rate ?? null,
    hrvRmssdMs: sleep.average_hrv ?? null,
    respiratoryRate: sleep.average_breath ?? null,
    // Oura's nightly SpO2 is its own document (`daily_spo2`), kept on the day's recovery
    spo2Percent: null,
    providerScore,
    providerScoreScale: providerScore === null ? null : "OuraScore0To100",
    sleepNeedMinutes: null,
    performancePercent: null,
    consistencyPercent: null,
    disturbanceCount: sleep.restless_periods ?? null,
    rawJson: JSON.stringify(sleep)
  }
}

/**
 * A workout, dated by Oura's `day` (the local day it starts), at the offset of its start. `calories` is the
 * workout's energy as Oura reports it (the docs do not say whether resting energy is included). Oura's
 * `intensity` (easy, moderate, hard) has no canonical field and stays in the raw JSON, as do `label` and
 * `source`.
 */
export const normaliseOuraWorkout = (workout: OuraWorkout): WorkoutRecord => {
  const start = instant(workout.start_datetime)
  const end = instant(workout.end_datetime)
  if (end.getTime() < start.getTime()) throw new Error("end_datetime is before start_datetime")
  return {
    providerRecordId: workout.id,
    date: workout.day,
    start,
    end,
    utcOffsetMinutes: isoOffsetMinutes(workout.start_datetime),
    activityType: activityTypeOfName(workout.activity),
    sportName: workout.activity,
    durationMinutes: (end.getTime() - start.getTime()) / 60_000,
    scoreState: "SCORED",
    strain: null,
    loadScoreScale: null,
    averageHeartRate: null,
    maxHeartRate: null,
    energyKilocalories: workout.calories ?? null,
    distanceMeters: workout.distance ?? null,
    steps: null,
    zoneDurationsJson: "{}",
    rawJson: JSON.stringify(workout)
  }
}

/**
 * Height and weight as read on `asOf`'s UTC date, one snapshot per user and day: `personal_info` says neither
 * when they were measured nor entered, so (as WHOOP's body measurement) it is filed under the day it was read.
 */
export const normaliseOuraPersonalInfo = (info: OuraPersonalInfo, asOf: Date): BodyMeasurementSnapshot => ({
  providerRecordId: `${info.id}:${utcDate(asOf.getTime())}`,
  measuredAt: asOf,
  heightMeters: info.height ?? null,
  weightKilograms: info.weight ?? null,
  bodyFatPercent: null,
  bmi: null,
  leanMassKilograms: null,
  maxHeartRate: null,
  // the email (scope `email`) is never asked for; drop it should a token carry it anyway
  rawJson: JSON.stringify({ ...info, email: undefined })
})
