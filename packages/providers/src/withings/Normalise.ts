/**
 * Withings records as the Public API writes them (developer.withings.com/api-reference: `measuregrp_object`,
 * `sleep_summary_object`, `activity_object`, `workout_object`) and their pure normalisation into canonical
 * records. Each record is decoded on its own (`decodeEach`): one that does not read, or names a time zone the
 * runtime does not know, is quarantined with its raw JSON and the others are kept.
 *
 * - Measures (`measure getmeas`): a group (`grpid`) is the measures taken together; each measure's real value is
 *   `value * 10^unit` (computed as a division for negative units, so 65750 and -3 give exactly 65.75). Only real
 *   measures (`category` 1) are kept, never the user's objectives (2). A group with weight (1), height (4), fat-free
 *   mass (5, the lean mass), fat ratio (6) or fat mass (8) is a body measurement measured at `date`, dated in the
 *   answer's `timezone`; its raw JSON is the whole group, so a scale's pulse (11), muscle (76), hydration (77) and
 *   bone mass (88) stay there. A group of blood pressure (9, 10) and pulse (11) only has no canonical kind yet and
 *   is left out (see docs/providers/withings.md).
 * - Sleep summaries (`v2/sleep getsummary`): one night, `startdate` to `enddate`, dated by the local date of its end
 *   (the morning it ends); durations in seconds become minutes, `sleep_efficiency` (a ratio) a percentage. The
 *   sleep score has no canonical scale yet and stays in the raw JSON. Withings does not mark naps.
 * - Daily activity (`v2/measure getactivity`): one day per `date` (the user's local day); `totalcalories` is the
 *   day's energy out, `calories` the active part; soft, moderate and intense seconds become light, moderate and
 *   vigorous minutes; `elevation` is floors climbed. Withings reports no sedentary time (0) and no resting heart
 *   rate (its `hr_min` is not one): null.
 * - Workouts (`v2/measure getworkouts`): `category` names the sport (the reference's table), dated by the local
 *   date of `startdate`; `calories` is the active energy.
 *
 * A zero Withings writes is a real zero and is kept; a field it leaves out is null (0 for the daily counts the
 * canonical record cannot leave empty).
 */
import * as Schema from "effect/Schema"
import type {
  ActivityType,
  BodyMeasurementSnapshot,
  DailyActivityRecord,
  QuarantinedRecord,
  SleepRecord,
  WorkoutRecord
} from "../Canonical.js"
import { activityTypeOfName } from "../Canonical.js"
import { DateString, decodeEach, keepUnknownFields, lastByKey } from "../Shared.js"
import { isKnownZone, withingsLocalDate, zoneOffsetMinutes } from "./Time.js"

const Count = Schema.Number.pipe(Schema.nonNegative())
const optionalCount = Schema.optional(Schema.NullOr(Count))
const Seconds = Schema.Int
const Zone = Schema.String.pipe(Schema.filter(isKnownZone, { message: () => "expected an IANA time zone" }))
const Id = Schema.Union(Schema.Int, Schema.NonEmptyString)

export interface Normalised<R> {
  readonly records: ReadonlyArray<R>
  readonly quarantined: ReadonlyArray<QuarantinedRecord>
}

const minutes = (seconds: number | null | undefined): number | null =>
  seconds === null || seconds === undefined ? null : seconds / 60

const idOf = (key: string) => (raw: unknown): string | null => {
  if (typeof raw !== "object" || raw === null) return null
  const value = (raw as Record<string, unknown>)[key]
  return typeof value === "number" || (typeof value === "string" && value !== "") ? String(value) : null
}

// ---- measures ----

export const WithingsMeasure = Schema.Struct({ value: Schema.Int, type: Schema.Int, unit: Schema.Int }).annotations(
  keepUnknownFields
)

export const WithingsMeasureGroup = Schema.Struct({
  grpid: Id,
  attrib: Schema.optional(Schema.Int),
  date: Seconds,
  category: Schema.Int,
  measures: Schema.Array(WithingsMeasure)
}).annotations(keepUnknownFields)
export type WithingsMeasureGroup = typeof WithingsMeasureGroup.Type

/** Measure types (`meastype`). */
export const WithingsMeasureType = {
  weight: 1,
  height: 4,
  fatFreeMass: 5,
  fatRatio: 6,
  fatMass: 8,
  diastolic: 9,
  systolic: 10,
  pulse: 11
} as const

/** The body composition types: a group with one of them is a body measurement. */
const bodyTypes: ReadonlyArray<number> = [1, 4, 5, 6, 8]

/** `value * 10^unit`, exact for the usual negative units. */
export const withingsMeasureValue = (measure: { readonly value: number; readonly unit: number }): number =>
  measure.unit < 0 ? measure.value / 10 ** -measure.unit : measure.value * 10 ** measure.unit

/** A group's body measurement, or undefined for a group of objectives or without body composition. */
export const normaliseWithingsMeasureGroup = (
  group: WithingsMeasureGroup,
  timezone: string,
  raw: unknown = group
): BodyMeasurementSnapshot | undefined => {
  if (group.category !== 1) return undefined
  if (!group.measures.some((m) => bodyTypes.includes(m.type))) return undefined
  const of = (type: number): number | null => {
    const measure = group.measures.find((m) => m.type === type)
    return measure === undefined ? null : withingsMeasureValue(measure)
  }
  return {
    providerRecordId: String(group.grpid),
    date: withingsLocalDate(group.date, timezone),
    measuredAt: new Date(group.date * 1000),
    heightMeters: of(WithingsMeasureType.height),
    weightKilograms: of(WithingsMeasureType.weight),
    bodyFatPercent: of(WithingsMeasureType.fatRatio),
    bmi: null,
    leanMassKilograms: of(WithingsMeasureType.fatFreeMass),
    maxHeartRate: null,
    rawJson: JSON.stringify(raw)
  }
}

/** The groups of a `getmeas` answer (its `timezone` dates them), one by one, the last copy of each kept. */
export const normaliseWithingsMeasureGroups = (
  items: ReadonlyArray<unknown>,
  timezone: string
): Normalised<BodyMeasurementSnapshot> => {
  const decoded = decodeEach({
    kind: "BodyMeasurement",
    schema: WithingsMeasureGroup,
    items,
    normalise: (group: WithingsMeasureGroup, raw) => normaliseWithingsMeasureGroup(group, timezone, raw),
    idOf: idOf("grpid")
  })
  return {
    records: lastByKey(
      decoded.records.filter((r): r is BodyMeasurementSnapshot => r !== undefined),
      (r) => r.providerRecordId
    ),
    quarantined: decoded.quarantined
  }
}

// ---- sleep ----

const optionalRatio = Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.between(0, 1))))

export const WithingsSleepSummary = Schema.Struct({
  id: Schema.optional(Id),
  timezone: Zone,
  startdate: Seconds,
  enddate: Seconds,
  date: Schema.optional(DateString),
  data: Schema.Struct({
    total_timeinbed: optionalCount,
    total_sleep_time: optionalCount,
    asleepduration: optionalCount,
    lightsleepduration: optionalCount,
    deepsleepduration: optionalCount,
    remsleepduration: optionalCount,
    wakeupduration: optionalCount,
    wakeupcount: optionalCount,
    sleep_efficiency: optionalRatio,
    sleep_latency: optionalCount,
    hr_average: optionalCount,
    hr_min: optionalCount,
    rr_average: optionalCount,
    sleep_score: optionalCount
  }).annotations(keepUnknownFields)
}).annotations(keepUnknownFields).pipe(
  Schema.filter((s) => s.enddate >= s.startdate || { path: ["enddate"], message: "ends before it starts" })
)
export type WithingsSleepSummary = typeof WithingsSleepSummary.Type

/** A night's id: Withings' `id`, else its start (the reference lists `id`, but not every answer carries it). */
export const withingsSleepId = (sleep: { readonly id?: number | string | undefined; readonly startdate: number }) =>
  sleep.id === undefined ? `start:${sleep.startdate}` : String(sleep.id)

export const normaliseWithingsSleep = (sleep: WithingsSleepSummary, raw: unknown = sleep): SleepRecord => {
  const d = sleep.data
  const staged = [d.lightsleepduration, d.deepsleepduration, d.remsleepduration]
  const asleepSeconds = d.total_sleep_time ??
    (staged.every((s) => s === null || s === undefined)
      ? d.asleepduration
      : staged.reduce<number>((sum, s) => sum + (s ?? 0), 0))
  return {
    providerRecordId: withingsSleepId(sleep),
    date: withingsLocalDate(sleep.enddate, sleep.timezone),
    start: new Date(sleep.startdate * 1000),
    end: new Date(sleep.enddate * 1000),
    utcOffsetMinutes: zoneOffsetMinutes(sleep.timezone, sleep.startdate * 1000),
    nap: false,
    scoreState: "SCORED",
    inBedMinutes: minutes(d.total_timeinbed ?? sleep.enddate - sleep.startdate),
    asleepMinutes: minutes(asleepSeconds),
    awakeMinutes: minutes(d.wakeupduration),
    lightMinutes: minutes(d.lightsleepduration),
    deepMinutes: minutes(d.deepsleepduration),
    remMinutes: minutes(d.remsleepduration),
    efficiencyPercent: d.sleep_efficiency === null || d.sleep_efficiency === undefined
      ? null
      : d.sleep_efficiency * 100,
    latencyMinutes: minutes(d.sleep_latency),
    averageHeartRate: d.hr_average ?? null,
    lowestHeartRate: d.hr_min ?? null,
    // `rmssd_start_avg` / `rmssd_end_avg` (Sleep Analyzer) are two partial averages, not a night's RMSSD.
    hrvRmssdMs: null,
    respiratoryRate: d.rr_average ?? null,
    spo2Percent: null,
    // `sleep_score` (0-100) stays in the raw JSON: the canonical scales name no Withings score yet.
    providerScore: null,
    providerScoreScale: null,
    sleepNeedMinutes: null,
    performancePercent: null,
    consistencyPercent: null,
    disturbanceCount: d.wakeupcount ?? null,
    rawJson: JSON.stringify(raw)
  }
}

const sleepIdOfRaw = (raw: unknown): string | null => {
  const id = idOf("id")(raw)
  if (id !== null) return id
  const start = idOf("startdate")(raw)
  return start === null ? null : `start:${start}`
}

export const normaliseWithingsSleeps = (items: ReadonlyArray<unknown>): Normalised<SleepRecord> => {
  const decoded = decodeEach({
    kind: "Sleep",
    schema: WithingsSleepSummary,
    items,
    normalise: normaliseWithingsSleep,
    idOf: sleepIdOfRaw
  })
  return { records: lastByKey(decoded.records, (r) => r.providerRecordId), quarantined: decoded.quarantined }
}

// ---- daily activity ----

export const WithingsActivity = Schema.Struct({
  date: DateString,
  timezone: Schema.optional(Schema.String),
  steps: optionalCount,
  distance: optionalCount,
  elevation: optionalCount,
  soft: optionalCount,
  moderate: optionalCount,
  intense: optionalCount,
  calories: optionalCount,
  totalcalories: optionalCount,
  hr_zone_0: optionalCount,
  hr_zone_1: optionalCount,
  hr_zone_2: optionalCount,
  hr_zone_3: optionalCount
}).annotations(keepUnknownFields)
export type WithingsActivity = typeof WithingsActivity.Type

/** Time in Withings' four heart-rate zones (seconds in, minutes out), as the canonical zone JSON. */
export const withingsZoneDurationsJson = (zones: {
  readonly hr_zone_0?: number | null | undefined
  readonly hr_zone_1?: number | null | undefined
  readonly hr_zone_2?: number | null | undefined
  readonly hr_zone_3?: number | null | undefined
}): string => {
  const out: Record<string, number> = {}
  const values = [zones.hr_zone_0, zones.hr_zone_1, zones.hr_zone_2, zones.hr_zone_3]
  values.forEach((seconds, i) => {
    if (seconds !== null && seconds !== undefined) out[`zone${i}`] = seconds / 60
  })
  return JSON.stringify(out)
}

export const normaliseWithingsActivity = (day: WithingsActivity, raw: unknown = day): DailyActivityRecord => ({
  providerRecordId: day.date,
  date: day.date,
  steps: day.steps ?? 0,
  caloriesOut: day.totalcalories ?? 0,
  activeCalories: day.calories ?? null,
  distanceMeters: day.distance ?? 0,
  lightActiveMinutes: (day.soft ?? 0) / 60,
  moderateActiveMinutes: (day.moderate ?? 0) / 60,
  vigorousActiveMinutes: (day.intense ?? 0) / 60,
  sedentaryMinutes: 0,
  floorsClimbed: day.elevation ?? 0,
  restingHeartRate: null,
  rawJson: JSON.stringify(raw)
})

export const normaliseWithingsActivities = (items: ReadonlyArray<unknown>): Normalised<DailyActivityRecord> => {
  const decoded = decodeEach({
    kind: "DailyActivity",
    schema: WithingsActivity,
    items,
    normalise: normaliseWithingsActivity,
    idOf: idOf("date")
  })
  return { records: lastByKey(decoded.records, (r) => r.providerRecordId), quarantined: decoded.quarantined }
}

// ---- workouts ----

export const WithingsWorkout = Schema.Struct({
  id: Id,
  category: Schema.Int,
  timezone: Zone,
  startdate: Seconds,
  enddate: Seconds,
  date: Schema.optional(DateString),
  data: Schema.optional(
    Schema.Struct({
      calories: optionalCount,
      distance: optionalCount,
      steps: optionalCount,
      hr_average: optionalCount,
      hr_max: optionalCount,
      hr_zone_0: optionalCount,
      hr_zone_1: optionalCount,
      hr_zone_2: optionalCount,
      hr_zone_3: optionalCount
    }).annotations(keepUnknownFields)
  )
}).annotations(keepUnknownFields).pipe(
  Schema.filter((w) => w.enddate >= w.startdate || { path: ["enddate"], message: "ends before it starts" })
)
export type WithingsWorkout = typeof WithingsWorkout.Type

/** The reference's workout categories (`workout_object.category`), the common ones. */
export const withingsWorkoutCategories: Readonly<Record<number, string>> = {
  1: "Walk",
  2: "Run",
  3: "Hiking",
  4: "Skating",
  5: "BMX",
  6: "Bicycling",
  7: "Swimming",
  8: "Surfing",
  12: "Tennis",
  13: "Table tennis",
  14: "Squash",
  15: "Badminton",
  16: "Lift weights",
  17: "Fitness",
  18: "Elliptical",
  19: "Pilates",
  20: "Basket-ball",
  21: "Soccer",
  22: "Football",
  23: "Rugby",
  24: "Volley-ball",
  27: "Golf",
  28: "Yoga",
  29: "Dancing",
  30: "Boxing",
  33: "Martial arts",
  34: "Skiing",
  35: "Snowboarding",
  36: "Other",
  187: "Rowing",
  188: "Zumba",
  191: "Baseball",
  193: "Hockey",
  194: "Ice hockey",
  195: "Climbing",
  272: "Multi-sport",
  306: "Indoor walk",
  307: "Indoor running",
  308: "Indoor cycling",
  456: "Padel",
  491: "Stair Stepper",
  498: "Trail Running",
  523: "Mountain Biking",
  546: "Crossfit",
  547: "Spinclass",
  550: "HIIT"
}

/** Categories the canonical keywords would miss or misplace. */
const categoryTypes: Readonly<Record<number, ActivityType>> = {
  5: "cycling",
  17: "strength",
  547: "cycling"
}

export const withingsWorkoutName = (category: number): string =>
  withingsWorkoutCategories[category] ?? `category ${category}`

export const withingsActivityType = (category: number): ActivityType =>
  categoryTypes[category] ?? activityTypeOfName(withingsWorkoutCategories[category])

export const normaliseWithingsWorkout = (workout: WithingsWorkout, raw: unknown = workout): WorkoutRecord => {
  const d = workout.data ?? {}
  return {
    providerRecordId: String(workout.id),
    date: withingsLocalDate(workout.startdate, workout.timezone),
    start: new Date(workout.startdate * 1000),
    end: new Date(workout.enddate * 1000),
    utcOffsetMinutes: zoneOffsetMinutes(workout.timezone, workout.startdate * 1000),
    activityType: withingsActivityType(workout.category),
    sportName: withingsWorkoutName(workout.category),
    durationMinutes: (workout.enddate - workout.startdate) / 60,
    scoreState: "SCORED",
    strain: null,
    loadScoreScale: null,
    averageHeartRate: d.hr_average ?? null,
    maxHeartRate: d.hr_max ?? null,
    energyKilocalories: d.calories ?? null,
    distanceMeters: d.distance ?? null,
    steps: d.steps ?? null,
    zoneDurationsJson: withingsZoneDurationsJson(d),
    rawJson: JSON.stringify(raw)
  }
}

export const normaliseWithingsWorkouts = (items: ReadonlyArray<unknown>): Normalised<WorkoutRecord> => {
  const decoded = decodeEach({
    kind: "Workout",
    schema: WithingsWorkout,
    items,
    normalise: normaliseWithingsWorkout,
    idOf: idOf("id")
  })
  return { records: lastByKey(decoded.records, (r) => r.providerRecordId), quarantined: decoded.quarantined }
}
