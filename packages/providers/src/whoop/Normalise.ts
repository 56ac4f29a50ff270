/**
 * WHOOP's records (API v2) as WHOOP writes them, and their pure normalisation into
 * `DailyLoadRecord` (cycles), `RecoveryRecord`, `SleepRecord`, `WorkoutRecord` and the profile
 * and body measurement snapshots.
 *
 * Dates: WHOOP's day is the one the member wakes into ("your day begins the moment you fall
 * asleep"). A cycle carries the local date, at the cycle's `timezone_offset`, of the END of the
 * sleep that opens it (the cycle's non-nap sleep: it starts when the cycle does); without that
 * sleep, the local date of `start + 12 h`, which is the wake-up day for anyone who falls asleep
 * between noon and noon. The recovery and the sleeps of a cycle carry the cycle's date, so one
 * night's sleep and recovery share a date; a sleep whose cycle is unknown falls on the local date
 * of its own end, which for an opening sleep is the same rule. A workout falls on the local date of
 * its `start`. Energy: kJ / 4.184. Durations: milliseconds / 60000. Also what a `*.deleted`
 * webhook event removes.
 */
import * as Schema from "effect/Schema"
import type {
  BodyMeasurementSnapshot,
  CanonicalDeletion,
  DailyLoadRecord,
  ProfileSnapshot,
  RecoveryRecord,
  SleepRecord,
  WorkoutRecord
} from "../Canonical.js"
import { activityTypeOfName } from "../Canonical.js"
import {
  DateTimeString,
  keepUnknownFields,
  kilocaloriesFromKilojoules,
  localDate,
  millisToMinutes,
  offsetMinutes,
  parseInstant,
  utcDate
} from "../Shared.js"

// ---- provider shapes ----

const TimezoneOffset = Schema.String.pipe(
  Schema.filter((offset) => offsetMinutes(offset) !== undefined, {
    message: () => "expected a time zone offset (+hh:mm, -hh:mm or Z)"
  })
)

/** WHOOP ids: int64 for cycles and users, UUIDs for sleeps and workouts. */
const NumericId = Schema.Union(Schema.Int, Schema.NonEmptyString)
const optionalNumber = Schema.optional(Schema.NullOr(Schema.Number))

export const WhoopCycle = Schema.Struct({
  id: NumericId,
  user_id: Schema.optional(NumericId),
  start: DateTimeString,
  // null (live) or absent (the documentation) while the cycle is in progress
  end: Schema.optional(Schema.NullOr(DateTimeString)),
  timezone_offset: TimezoneOffset,
  score_state: Schema.String,
  // null or absent unless SCORED; the running cycle is SCORED with a running strain
  score: Schema.optional(Schema.NullOr(Schema.Struct({
    strain: Schema.Number,
    kilojoule: Schema.Number,
    average_heart_rate: Schema.Number,
    max_heart_rate: Schema.Number
  })))
}).annotations(keepUnknownFields)
export type WhoopCycle = typeof WhoopCycle.Type

export const WhoopRecovery = Schema.Struct({
  cycle_id: NumericId,
  sleep_id: Schema.optional(Schema.NullOr(Schema.String)),
  score_state: Schema.String,
  score: Schema.optional(Schema.NullOr(Schema.Struct({
    user_calibrating: Schema.optional(Schema.NullOr(Schema.Boolean)),
    recovery_score: optionalNumber,
    resting_heart_rate: optionalNumber,
    hrv_rmssd_milli: optionalNumber,
    // WHOOP 4.0 and later only
    spo2_percentage: optionalNumber,
    skin_temp_celsius: optionalNumber
  })))
}).annotations(keepUnknownFields)
export type WhoopRecovery = typeof WhoopRecovery.Type

/** v2 records still carry the v1 id field, `null` since v1 ids ended (2025-09-01). */
const V1Id = Schema.optional(Schema.NullOr(Schema.Number))

export const WhoopSleep = Schema.Struct({
  id: Schema.NonEmptyString,
  cycle_id: Schema.optional(NumericId),
  v1_id: V1Id,
  start: DateTimeString,
  end: DateTimeString,
  timezone_offset: TimezoneOffset,
  nap: Schema.Boolean,
  score_state: Schema.String,
  score: Schema.optional(Schema.NullOr(Schema.Struct({
    stage_summary: Schema.optional(Schema.Struct({
      total_in_bed_time_milli: optionalNumber,
      total_awake_time_milli: optionalNumber,
      total_light_sleep_time_milli: optionalNumber,
      total_slow_wave_sleep_time_milli: optionalNumber,
      total_rem_sleep_time_milli: optionalNumber,
      disturbance_count: optionalNumber
    })),
    sleep_needed: Schema.optional(Schema.Struct({
      baseline_milli: Schema.Number,
      need_from_sleep_debt_milli: Schema.Number,
      need_from_recent_strain_milli: Schema.Number,
      need_from_recent_nap_milli: Schema.Number
    })),
    respiratory_rate: optionalNumber,
    sleep_performance_percentage: optionalNumber,
    sleep_consistency_percentage: optionalNumber,
    sleep_efficiency_percentage: optionalNumber
  })))
}).annotations(keepUnknownFields)
export type WhoopSleep = typeof WhoopSleep.Type

const ZoneDurations = Schema.Struct({
  zone_zero_milli: optionalNumber,
  zone_one_milli: optionalNumber,
  zone_two_milli: optionalNumber,
  zone_three_milli: optionalNumber,
  zone_four_milli: optionalNumber,
  zone_five_milli: optionalNumber
})

export const WhoopWorkout = Schema.Struct({
  id: Schema.NonEmptyString,
  v1_id: V1Id,
  start: DateTimeString,
  end: DateTimeString,
  timezone_offset: TimezoneOffset,
  sport_name: Schema.optional(Schema.NullOr(Schema.String)),
  score_state: Schema.String,
  score: Schema.optional(Schema.NullOr(Schema.Struct({
    strain: optionalNumber,
    average_heart_rate: optionalNumber,
    max_heart_rate: optionalNumber,
    kilojoule: optionalNumber,
    distance_meter: optionalNumber,
    zone_durations: Schema.optional(Schema.NullOr(ZoneDurations))
  })))
}).annotations(keepUnknownFields)
export type WhoopWorkout = typeof WhoopWorkout.Type

export const WhoopProfile = Schema.Struct({
  user_id: NumericId,
  email: Schema.optional(Schema.NullOr(Schema.String)),
  first_name: Schema.optional(Schema.NullOr(Schema.String)),
  last_name: Schema.optional(Schema.NullOr(Schema.String))
}).annotations(keepUnknownFields)
export type WhoopProfile = typeof WhoopProfile.Type

export const WhoopBodyMeasurement = Schema.Struct({
  height_meter: optionalNumber,
  weight_kilogram: optionalNumber,
  max_heart_rate: optionalNumber
}).annotations(keepUnknownFields)
export type WhoopBodyMeasurement = typeof WhoopBodyMeasurement.Type

// ---- normalisers ----

/** The local date of an instant written in UTC, at the record's `timezone_offset`. */
export const whoopLocalDate = (instant: string, timezoneOffset: string): string =>
  localDate(parseInstant(instant), offsetMinutes(timezoneOffset) ?? 0)

const nullable = <A>(value: A | null | undefined): A | null => value ?? null
const minutes = (millis: number | null | undefined): number | null =>
  millis === null || millis === undefined ? null : millisToMinutes(millis)
const kilocalories = (kilojoules: number | null | undefined): number | null =>
  kilojoules === null || kilojoules === undefined ? null : kilocaloriesFromKilojoules(kilojoules)

/** Twelve hours: `start + 12 h` dates a cycle whose opening sleep is unknown. */
export const whoopFallbackShiftMs = 12 * 3_600_000

/**
 * The sleep that opens a cycle: of `sleeps`, the earliest non-nap one whose `cycle_id` is the
 * cycle's (WHOOP starts a cycle when its main sleep starts).
 */
export const whoopOpeningSleep = <S extends Pick<WhoopSleep, "cycle_id" | "nap" | "start">>(
  cycleId: string | number,
  sleeps: Iterable<S>
): S | undefined => {
  let opening: S | undefined
  for (const sleep of sleeps) {
    if (sleep.nap || sleep.cycle_id === undefined || String(sleep.cycle_id) !== String(cycleId)) continue
    if (opening === undefined || parseInstant(sleep.start) < parseInstant(opening.start)) opening = sleep
  }
  return opening
}

/**
 * The day a cycle belongs to, the day the member wakes into: the local date, at the cycle's
 * `timezone_offset`, of the end of its opening sleep; without that sleep, of `start + 12 h`.
 */
export const whoopCycleDate = (
  cycle: Pick<WhoopCycle, "start" | "timezone_offset">,
  openingSleep?: Pick<WhoopSleep, "end"> | undefined
): string =>
  localDate(
    openingSleep === undefined ? parseInstant(cycle.start) + whoopFallbackShiftMs : parseInstant(openingSleep.end),
    offsetMinutes(cycle.timezone_offset) ?? 0
  )

/**
 * A cycle as a load window, dated by `whoopCycleDate`. Its values count only when WHOOP scored
 * it: a `PENDING_SCORE` or `UNSCORABLE` cycle has null values (the reads leave it out until it is
 * scored). The running cycle is `SCORED` with a running strain and no `end`: its values are the
 * running ones and `windowEnd` is null.
 */
export const normaliseWhoopCycle = (
  cycle: WhoopCycle,
  openingSleep?: Pick<WhoopSleep, "end"> | undefined
): DailyLoadRecord => {
  const score = cycle.score_state === "SCORED" ? cycle.score ?? null : null
  return {
    providerRecordId: String(cycle.id),
    date: whoopCycleDate(cycle, openingSleep),
    windowKind: "PhysiologicalCycle",
    windowStart: new Date(parseInstant(cycle.start)),
    windowEnd: cycle.end === undefined || cycle.end === null ? null : new Date(parseInstant(cycle.end)),
    loadScore: score?.strain ?? null,
    loadScoreScale: "WhoopStrain0To21",
    energyKilocalories: kilocalories(score?.kilojoule),
    averageHeartRate: score?.average_heart_rate ?? null,
    maxHeartRate: score?.max_heart_rate ?? null,
    distanceMeters: null,
    steps: null,
    zoneDurationsJson: "{}",
    sourceConfidence: "ProviderNative",
    scoreState: cycle.score_state,
    rawJson: JSON.stringify(cycle)
  }
}

/**
 * A sleep or nap, dated by its cycle (`cycleDate`: the normalised cycle's `date`) when the cycle
 * is known, else by the local date of its own end.
 */
export const normaliseWhoopSleep = (sleep: WhoopSleep, cycleDate?: string | undefined): SleepRecord => {
  const score = sleep.score ?? null
  const stages = score?.stage_summary
  const need = score?.sleep_needed
  const light = minutes(stages?.total_light_sleep_time_milli)
  const deep = minutes(stages?.total_slow_wave_sleep_time_milli)
  const rem = minutes(stages?.total_rem_sleep_time_milli)
  const asleep = light === null || deep === null || rem === null ? null : light + deep + rem
  return {
    providerRecordId: sleep.id,
    date: cycleDate ?? whoopLocalDate(sleep.end, sleep.timezone_offset),
    start: new Date(parseInstant(sleep.start)),
    end: new Date(parseInstant(sleep.end)),
    utcOffsetMinutes: offsetMinutes(sleep.timezone_offset) ?? null,
    nap: sleep.nap,
    scoreState: sleep.score_state,
    inBedMinutes: minutes(stages?.total_in_bed_time_milli),
    asleepMinutes: asleep,
    awakeMinutes: minutes(stages?.total_awake_time_milli),
    lightMinutes: light,
    deepMinutes: deep,
    remMinutes: rem,
    // WHOOP reports neither sleep latency nor the night's heart rate, HRV or SpO2 on the sleep (its recovery
    // carries the resting heart rate, HRV and SpO2 of the sleep it was measured in).
    latencyMinutes: null,
    averageHeartRate: null,
    lowestHeartRate: null,
    hrvRmssdMs: null,
    spo2Percent: null,
    providerScore: nullable(score?.sleep_performance_percentage),
    providerScoreScale: score?.sleep_performance_percentage == null ? null : "WhoopSleepPerformance0To100",
    sleepNeedMinutes: need === undefined
      ? null
      : millisToMinutes(
        need.baseline_milli + need.need_from_sleep_debt_milli + need.need_from_recent_strain_milli +
          need.need_from_recent_nap_milli
      ),
    respiratoryRate: nullable(score?.respiratory_rate),
    performancePercent: nullable(score?.sleep_performance_percentage),
    consistencyPercent: nullable(score?.sleep_consistency_percentage),
    efficiencyPercent: nullable(score?.sleep_efficiency_percentage),
    disturbanceCount: nullable(stages?.disturbance_count),
    rawJson: JSON.stringify(sleep)
  }
}

/** A recovery, dated by its cycle (`cycleDate`: the normalised cycle's `date`). */
export const normaliseWhoopRecovery = (recovery: WhoopRecovery, cycleDate: string): RecoveryRecord => {
  const score = recovery.score ?? null
  return {
    providerRecordId: String(recovery.cycle_id),
    sleepId: recovery.sleep_id ?? null,
    date: cycleDate,
    scoreState: recovery.score_state,
    calibrating: nullable(score?.user_calibrating),
    recoveryScore: nullable(score?.recovery_score),
    providerScoreScale: score?.recovery_score == null ? null : "WhoopRecovery0To100",
    restingHeartRate: nullable(score?.resting_heart_rate),
    hrvRmssdMs: nullable(score?.hrv_rmssd_milli),
    spo2Percent: nullable(score?.spo2_percentage),
    // The recovery has no respiratory rate (its sleep has) and no deviation of skin temperature.
    respiratoryRate: null,
    skinTempCelsius: nullable(score?.skin_temp_celsius),
    skinTemperatureDeviationCelsius: null,
    rawJson: JSON.stringify(recovery)
  }
}

const zoneNames = ["zero", "one", "two", "three", "four", "five"] as const

/**
 * Minutes per heart-rate zone as JSON text, `{"zone0": m, ..., "zone5": m}` with the zones WHOOP
 * reported (`{}` when none).
 */
export const whoopZoneDurationsJson = (zones: typeof ZoneDurations.Type | null | undefined): string => {
  if (zones === null || zones === undefined) return "{}"
  const out: Record<string, number> = {}
  zoneNames.forEach((name, i) => {
    const millis = zones[`zone_${name}_milli`]
    if (millis !== null && millis !== undefined) out[`zone${i}`] = millisToMinutes(millis)
  })
  return JSON.stringify(out)
}

export const normaliseWhoopWorkout = (workout: WhoopWorkout): WorkoutRecord => {
  const score = workout.score ?? null
  const start = parseInstant(workout.start)
  const end = parseInstant(workout.end)
  return {
    providerRecordId: workout.id,
    date: whoopLocalDate(workout.start, workout.timezone_offset),
    start: new Date(start),
    end: new Date(end),
    utcOffsetMinutes: offsetMinutes(workout.timezone_offset) ?? null,
    activityType: activityTypeOfName(workout.sport_name),
    sportName: workout.sport_name ?? null,
    durationMinutes: millisToMinutes(end - start),
    scoreState: workout.score_state,
    strain: nullable(score?.strain),
    loadScoreScale: score?.strain == null ? null : "WhoopStrain0To21",
    steps: null,
    averageHeartRate: nullable(score?.average_heart_rate),
    maxHeartRate: nullable(score?.max_heart_rate),
    energyKilocalories: kilocalories(score?.kilojoule),
    distanceMeters: nullable(score?.distance_meter),
    zoneDurationsJson: whoopZoneDurationsJson(score?.zone_durations),
    rawJson: JSON.stringify(workout)
  }
}

/** The profile as read on `asOf`'s UTC date: one snapshot per user and day. */
export const normaliseWhoopProfile = (profile: WhoopProfile, asOf: Date): ProfileSnapshot => ({
  providerRecordId: `${profile.user_id}:${utcDate(asOf.getTime())}`,
  firstName: profile.first_name ?? null,
  lastName: profile.last_name ?? null,
  email: profile.email ?? null,
  rawJson: JSON.stringify(profile)
})

/** Body measurements as read on `asOf`'s UTC date: one snapshot per user and day. */
export const normaliseWhoopBodyMeasurement = (
  providerUserId: string,
  body: WhoopBodyMeasurement,
  asOf: Date
): BodyMeasurementSnapshot => ({
  providerRecordId: `${providerUserId}:${utcDate(asOf.getTime())}`,
  measuredAt: asOf,
  heightMeters: body.height_meter ?? null,
  weightKilograms: body.weight_kilogram ?? null,
  bodyFatPercent: null,
  // WHOOP reports no BMI; a BMI is served only as a provider reports it, never worked out here.
  bmi: null,
  leanMassKilograms: null,
  maxHeartRate: body.max_heart_rate ?? null,
  rawJson: JSON.stringify(body)
})

/** A WHOOP v2 webhook event: `type` such as `sleep.updated`, `id` the resource's id. */
export interface WhoopEvent {
  readonly type: string
  readonly id: string
}

/**
 * What a `*.deleted` event removes. v2 events name a recovery by its SLEEP id, so a deleted sleep
 * takes the recoveries of that sleep with it, and `recovery.deleted` removes the recoveries whose
 * sleep it names. Other types delete nothing.
 */
export const whoopDeletions = (event: WhoopEvent): ReadonlyArray<CanonicalDeletion> => {
  switch (event.type) {
    case "sleep.deleted":
      return [{ kind: "RecoveryOfSleep", sleepId: event.id }, { kind: "Sleep", providerRecordId: event.id }]
    case "recovery.deleted":
      return [{ kind: "RecoveryOfSleep", sleepId: event.id }]
    case "workout.deleted":
      return [{ kind: "Workout", providerRecordId: event.id }]
    default:
      return []
  }
}
