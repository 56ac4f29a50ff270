/**
 * The Google Health API's raw data points (`dataPoints` list, `health:v4` `DataPoint`) of the types besides daily
 * activity, as Google writes them, and their pure normalisation: `sleep` sessions into `SleepRecord`s, `exercise`
 * sessions into `WorkoutRecord`s, the five daily metrics (`daily-resting-heart-rate`,
 * `daily-heart-rate-variability`, `daily-oxygen-saturation`, `daily-respiratory-rate`,
 * `daily-sleep-temperature-derivations`) into one `RecoveryRecord` per day, and `weight` and `body-fat` samples
 * into `BodyMeasurementSnapshot`s. Nothing here reads the network.
 *
 * Google's JSON is proto3's: int64 values are strings (`"beatsPerMinute": "58"`), durations and UTC offsets are
 * strings of seconds (`"1800s"`, `"-18000s"`), a float that is not a number is the string `"NaN"`, and a zero or
 * empty value is left out. Units are Google's own and converted once here: grams to kilograms, millimetres to
 * metres, seconds to minutes. Google never sends pounds: `weightGrams` is grams whatever the user's `weightUnit`.
 */
import * as Schema from "effect/Schema"
import type { BodyMeasurementSnapshot, RecoveryRecord, SleepRecord, WorkoutRecord } from "../Canonical.js"
import { activityTypeOfName, dayRecovery } from "../Canonical.js"
import type { ActivityType } from "../Canonical.js"
import { DateTimeString, keepUnknownFields, localDate, parseInstant } from "../Shared.js"
import { googleHealthActivityScope, googleHealthMetricsScope, googleHealthSleepScope } from "./Adapter.js"
import { civilDate } from "./Normalise.js"

// ---- Google's scalars ----

/** An int64 as Google writes it (a string of digits), or a number. */
const Int64 = Schema.Union(Schema.Int, Schema.String.pipe(Schema.pattern(/^-?\d{1,15}$/)))
/** A `google.protobuf.Duration`: whole or fractional seconds and an `s`. */
const Duration = Schema.String.pipe(Schema.pattern(/^-?\d{1,12}(\.\d{1,9})?s$/))
/** A float: a number, or proto3's `"NaN"` / `"Infinity"` for one Google could not work out. */
const Float = Schema.Union(Schema.Number, Schema.Literal("NaN", "Infinity", "-Infinity"))

const GoogleDate = Schema.Struct({ year: Schema.Int, month: Schema.Int, day: Schema.Int })
const CivilDateTime = Schema.Struct({ date: GoogleDate, time: Schema.optional(Schema.Unknown) })

const int64 = (value: number | string | undefined): number | null => value === undefined ? null : Number(value)
const float = (value: typeof Float.Type | undefined): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null
/** Seconds of a Duration (`"-18000s"` is -18000). */
export const durationSeconds = (value: string): number => Number(value.slice(0, -1))
const minutesOf = (duration: string | undefined): number | null =>
  duration === undefined ? null : durationSeconds(duration) / 60
/** Minutes east of UTC of a Google UTC offset (`"3600s"`). */
export const offsetMinutesOf = (offset: string | undefined): number | null =>
  offset === undefined ? null : Math.round(durationSeconds(offset) / 60)

/** The id Google gives an identifiable point: the last segment of `users/{user}/dataTypes/{type}/dataPoints/{id}`. */
export const pointId = (name: string | undefined): string | null => {
  if (name === undefined) return null
  const id = name.slice(name.lastIndexOf("/") + 1)
  return id === "" ? null : id
}

/** The raw item's id for the quarantine: its `name`'s last segment, when it has one. */
export const rawPointId = (raw: unknown): string | null => {
  if (typeof raw !== "object" || raw === null) return null
  const name = (raw as { name?: unknown }).name
  return typeof name === "string" ? pointId(name) : null
}

/** A `SessionTimeInterval` (sleep, exercise). */
const SessionInterval = Schema.Struct({
  startTime: DateTimeString,
  endTime: DateTimeString,
  startUtcOffset: Schema.optional(Duration),
  endUtcOffset: Schema.optional(Duration),
  civilStartTime: Schema.optional(CivilDateTime),
  civilEndTime: Schema.optional(CivilDateTime)
})

/** An `ObservationSampleTime` (weight, body fat). */
const SampleTime = Schema.Struct({
  physicalTime: DateTimeString,
  utcOffset: Schema.optional(Duration),
  civilTime: Schema.optional(CivilDateTime)
})

const point = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct({ name: Schema.optional(Schema.String), ...fields }).annotations(keepUnknownFields)

// ---- sleep ----

const StageSummary = Schema.Struct({
  type: Schema.optional(Schema.String),
  minutes: Schema.optional(Int64),
  count: Schema.optional(Int64)
})

export const GoogleSleepPoint = point({
  sleep: Schema.Struct({
    interval: SessionInterval,
    type: Schema.optional(Schema.String),
    metadata: Schema.optional(Schema.Struct({
      nap: Schema.optional(Schema.Boolean),
      main: Schema.optional(Schema.Boolean),
      processed: Schema.optional(Schema.Boolean),
      stagesStatus: Schema.optional(Schema.String)
    })),
    stages: Schema.optional(Schema.Array(Schema.Struct({
      type: Schema.optional(Schema.String),
      startTime: DateTimeString,
      endTime: DateTimeString
    }))),
    summary: Schema.optional(Schema.Struct({
      minutesAsleep: Schema.optional(Int64),
      minutesAwake: Schema.optional(Int64),
      minutesInSleepPeriod: Schema.optional(Int64),
      minutesToFallAsleep: Schema.optional(Int64),
      minutesAfterWakeUp: Schema.optional(Int64),
      stagesSummary: Schema.optional(Schema.Array(StageSummary))
    }))
  })
})
export type GoogleSleepPoint = typeof GoogleSleepPoint.Type

/** The local date of an instant at a Google offset, or the civil date Google gave for it. */
const localDateOf = (
  instant: string,
  offset: string | undefined,
  civil: typeof CivilDateTime.Type | undefined
): string =>
  civil === undefined ? localDate(parseInstant(instant), offsetMinutesOf(offset) ?? 0) : civilDate(civil.date)

/** Minutes per stage type: from the summary when Google gives one, else from the stage segments. */
const stageMinutes = (sleep: GoogleSleepPoint["sleep"]): Map<string, number> => {
  const out = new Map<string, number>()
  const summary = sleep.summary?.stagesSummary
  if (summary !== undefined && summary.length > 0) {
    for (const s of summary) {
      if (s.type !== undefined) {
        out.set(s.type.toUpperCase(), (out.get(s.type.toUpperCase()) ?? 0) + (int64(s.minutes) ?? 0))
      }
    }
    return out
  }
  for (const stage of sleep.stages ?? []) {
    if (stage.type === undefined) continue
    const minutes = (parseInstant(stage.endTime) - parseInstant(stage.startTime)) / 60_000
    out.set(stage.type.toUpperCase(), (out.get(stage.type.toUpperCase()) ?? 0) + minutes)
  }
  return out
}

/**
 * A sleep session or nap. Its date is the local day it ends (Google's `civilEndTime`, else the end at
 * `endUtcOffset`), its offset the one at its end (a night across a DST change ends on the new clock). Stages are
 * Google's `LIGHT`, `DEEP`, `REM` and `AWAKE`; a classic sleep (`ASLEEP`, `RESTLESS`) has none of the first three
 * and its asleep minutes are Google's `minutesAsleep`. Google gives no sleep score, efficiency or night vitals on
 * the session: those are null (the night's vitals come in the day's recovery).
 */
/** `raw`: the point as Google sent it (default: the decoded one), kept as `rawJson`. */
export const normaliseGoogleSleep = (p: GoogleSleepPoint, raw: unknown = p): SleepRecord => {
  const sleep = p.sleep
  const { interval } = sleep
  const start = parseInstant(interval.startTime)
  const end = parseInstant(interval.endTime)
  if (end < start) throw new Error("sleep.interval ends before it starts")
  const stages = stageMinutes(sleep)
  const staged = stages.has("LIGHT") || stages.has("DEEP") || stages.has("REM")
  const light = staged ? stages.get("LIGHT") ?? 0 : null
  const deep = staged ? stages.get("DEEP") ?? 0 : null
  const rem = staged ? stages.get("REM") ?? 0 : null
  const summary = sleep.summary
  const asleep = int64(summary?.minutesAsleep) ??
    (light !== null && deep !== null && rem !== null ? light + deep + rem : stages.get("ASLEEP") ?? null)
  const awake = int64(summary?.minutesAwake) ?? stages.get("AWAKE") ?? stages.get("WAKE") ?? null
  return {
    providerRecordId: pointId(p.name) ?? `sleep:${new Date(start).toISOString()}`,
    date: localDateOf(interval.endTime, interval.endUtcOffset, interval.civilEndTime),
    start: new Date(start),
    end: new Date(end),
    utcOffsetMinutes: offsetMinutesOf(interval.endUtcOffset),
    nap: sleep.metadata?.nap ?? false,
    scoreState: "SCORED",
    inBedMinutes: int64(summary?.minutesInSleepPeriod) ?? (end - start) / 60_000,
    asleepMinutes: asleep,
    awakeMinutes: awake,
    lightMinutes: light,
    deepMinutes: deep,
    remMinutes: rem,
    efficiencyPercent: null,
    latencyMinutes: int64(summary?.minutesToFallAsleep),
    averageHeartRate: null,
    lowestHeartRate: null,
    hrvRmssdMs: null,
    respiratoryRate: null,
    spo2Percent: null,
    providerScore: null,
    providerScoreScale: null,
    sleepNeedMinutes: null,
    performancePercent: null,
    consistencyPercent: null,
    disturbanceCount: null,
    rawJson: JSON.stringify(raw)
  }
}

// ---- exercise ----

export const GoogleExercisePoint = point({
  exercise: Schema.Struct({
    interval: SessionInterval,
    exerciseType: Schema.optional(Schema.String),
    displayName: Schema.optional(Schema.String),
    activeDuration: Schema.optional(Duration),
    metricsSummary: Schema.optional(Schema.Struct({
      averageHeartRateBeatsPerMinute: Schema.optional(Int64),
      caloriesKcal: Schema.optional(Float),
      distanceMillimeters: Schema.optional(Float),
      steps: Schema.optional(Int64),
      heartRateZoneDurations: Schema.optional(Schema.Struct({
        lightTime: Schema.optional(Duration),
        moderateTime: Schema.optional(Duration),
        vigorousTime: Schema.optional(Duration),
        peakTime: Schema.optional(Duration)
      }))
    }))
  })
})
export type GoogleExercisePoint = typeof GoogleExercisePoint.Type

/** Google's `Exercise.ExerciseType` values onto the canonical kinds. */
export const googleExerciseTypes: Readonly<Record<string, ActivityType>> = {
  RUNNING: "running",
  WALKING: "walking",
  BIKING: "cycling",
  HIKING: "hiking",
  SWIMMING: "swimming",
  STRENGTH_TRAINING: "strength",
  WEIGHTLIFTING: "strength",
  YOGA: "yoga",
  PILATES: "yoga",
  HIIT: "hiit",
  WORKOUT: "other",
  OTHER: "other"
}

/**
 * An exercise session, dated by the local day it starts (Google's `civilStartTime`, else the start at
 * `startUtcOffset`), its offset the one at its start. The kind is Google's `exerciseType` mapped, or for a type
 * not listed, the display name's keywords; `sportName` is Google's display name. Google's summary has an average
 * heart rate but no maximum; distance comes in millimetres, active time (pauses excluded) as a duration.
 */
export const normaliseGoogleExercise = (p: GoogleExercisePoint, raw: unknown = p): WorkoutRecord => {
  const exercise = p.exercise
  const { interval } = exercise
  const start = parseInstant(interval.startTime)
  const end = parseInstant(interval.endTime)
  if (end < start) throw new Error("exercise.interval ends before it starts")
  const summary = exercise.metricsSummary
  const type = exercise.exerciseType?.toUpperCase()
  const activityType = type !== undefined && googleExerciseTypes[type] !== undefined && type !== "OTHER"
    ? googleExerciseTypes[type]!
    : activityTypeOfName(exercise.displayName ?? exercise.exerciseType)
  const zones = summary?.heartRateZoneDurations
  const zoneMinutes: Record<string, number> = {}
  for (
    const [key, name] of [["lightTime", "light"], ["moderateTime", "moderate"], ["vigorousTime", "vigorous"], [
      "peakTime",
      "peak"
    ]] as const
  ) {
    const minutes = minutesOf(zones?.[key])
    if (minutes !== null) zoneMinutes[name] = minutes
  }
  const distance = float(summary?.distanceMillimeters)
  return {
    providerRecordId: pointId(p.name) ?? `exercise:${new Date(start).toISOString()}`,
    date: localDateOf(interval.startTime, interval.startUtcOffset, interval.civilStartTime),
    start: new Date(start),
    end: new Date(end),
    utcOffsetMinutes: offsetMinutesOf(interval.startUtcOffset),
    activityType,
    sportName: exercise.displayName ?? exercise.exerciseType ?? null,
    durationMinutes: minutesOf(exercise.activeDuration) ?? (end - start) / 60_000,
    scoreState: "SCORED",
    strain: null,
    loadScoreScale: null,
    averageHeartRate: int64(summary?.averageHeartRateBeatsPerMinute),
    maxHeartRate: null,
    energyKilocalories: float(summary?.caloriesKcal),
    distanceMeters: distance === null ? null : distance / 1000,
    steps: int64(summary?.steps),
    zoneDurationsJson: JSON.stringify(zoneMinutes),
    rawJson: JSON.stringify(raw)
  }
}

// ---- the day's recovery ----

/** The daily data types a day's recovery is made of, with the field each point carries. */
export const googleRecoveryDataTypes = [
  "daily-resting-heart-rate",
  "daily-heart-rate-variability",
  "daily-oxygen-saturation",
  "daily-respiratory-rate",
  "daily-sleep-temperature-derivations"
] as const
export type GoogleRecoveryDataType = typeof googleRecoveryDataTypes[number]

export const GoogleDailyPoints = {
  "daily-resting-heart-rate": point({
    dailyRestingHeartRate: Schema.Struct({ date: GoogleDate, beatsPerMinute: Schema.optional(Int64) })
  }),
  "daily-heart-rate-variability": point({
    dailyHeartRateVariability: Schema.Struct({
      date: GoogleDate,
      averageHeartRateVariabilityMilliseconds: Schema.optional(Float)
    })
  }),
  "daily-oxygen-saturation": point({
    dailyOxygenSaturation: Schema.Struct({ date: GoogleDate, averagePercentage: Schema.optional(Float) })
  }),
  "daily-respiratory-rate": point({
    dailyRespiratoryRate: Schema.Struct({ date: GoogleDate, breathsPerMinute: Schema.optional(Float) })
  }),
  "daily-sleep-temperature-derivations": point({
    dailySleepTemperatureDerivations: Schema.Struct({
      date: GoogleDate,
      nightlyTemperatureCelsius: Schema.optional(Float),
      baselineTemperatureCelsius: Schema.optional(Float)
    })
  })
} as const

/** What one daily point says of its day, in canonical units. */
export interface RecoveryValues {
  restingHeartRate?: number | null
  hrvRmssdMs?: number | null
  spo2Percent?: number | null
  respiratoryRate?: number | null
  skinTempCelsius?: number | null
  skinTemperatureDeviationCelsius?: number | null
}

/** One daily point as its date and the values it gives. Pure; throws on an impossible date. */
export const recoveryValuesOf = (
  dataType: GoogleRecoveryDataType,
  decoded: typeof GoogleDailyPoints[GoogleRecoveryDataType]["Type"]
): { readonly date: string; readonly values: RecoveryValues } => {
  const p = decoded as Record<string, any>
  switch (dataType) {
    case "daily-resting-heart-rate": {
      const v = p.dailyRestingHeartRate
      return { date: civilDate(v.date), values: { restingHeartRate: int64(v.beatsPerMinute) } }
    }
    case "daily-heart-rate-variability": {
      const v = p.dailyHeartRateVariability
      return { date: civilDate(v.date), values: { hrvRmssdMs: float(v.averageHeartRateVariabilityMilliseconds) } }
    }
    case "daily-oxygen-saturation": {
      const v = p.dailyOxygenSaturation
      return { date: civilDate(v.date), values: { spo2Percent: float(v.averagePercentage) } }
    }
    case "daily-respiratory-rate": {
      const v = p.dailyRespiratoryRate
      return { date: civilDate(v.date), values: { respiratoryRate: float(v.breathsPerMinute) } }
    }
    case "daily-sleep-temperature-derivations": {
      const v = p.dailySleepTemperatureDerivations
      const nightly = float(v.nightlyTemperatureCelsius)
      const baseline = float(v.baselineTemperatureCelsius)
      return {
        date: civilDate(v.date),
        values: {
          skinTempCelsius: nightly,
          // Google gives the night's mean and the 30-night median; the deviation is their difference
          skinTemperatureDeviationCelsius: nightly === null || baseline === null
            ? null
            : Math.round((nightly - baseline) * 1000) / 1000
        }
      }
    }
  }
}

/**
 * A day's recovery from the values of its daily points. `partial` when some point of the day could not be read:
 * stored over the day's record, it then keeps what that point said before.
 */
export const normaliseGoogleRecovery = (
  date: string,
  values: RecoveryValues,
  raw: Record<string, unknown>,
  partial: boolean
): RecoveryRecord => dayRecovery(date, values, JSON.stringify(raw), partial)

// ---- body ----

export const GoogleWeightPoint = point({
  weight: Schema.Struct({ sampleTime: SampleTime, weightGrams: Float, notes: Schema.optional(Schema.String) })
})
export const GoogleBodyFatPoint = point({
  bodyFat: Schema.Struct({ sampleTime: SampleTime, percentage: Float })
})
export type GoogleWeightPoint = typeof GoogleWeightPoint.Type
export type GoogleBodyFatPoint = typeof GoogleBodyFatPoint.Type

/** Grams to kilograms, kept to the gram. */
export const kilogramsOfGrams = (grams: number): number => Math.round(grams) / 1000

/** A measurement's key: its instant, so that a scale's weight and body fat of one weighing share it. */
export const bodyMeasurementId = (physicalTime: string): string =>
  `body:${new Date(parseInstant(physicalTime)).toISOString()}`

/**
 * A weight or body fat sample as a body measurement at its instant, dated by the local day (Google's `civilTime`,
 * else the instant at `utcOffset`). `partial`: a weighing's weight and body fat are separate points, each filling
 * its own field of the one measurement.
 */
export const normaliseGoogleBody = (
  p: { readonly weight: GoogleWeightPoint["weight"] } | { readonly bodyFat: GoogleBodyFatPoint["bodyFat"] },
  raw: unknown = p
): BodyMeasurementSnapshot => {
  const sample = "weight" in p ? p.weight.sampleTime : p.bodyFat.sampleTime
  const grams = "weight" in p ? float(p.weight.weightGrams) : null
  const fat = "bodyFat" in p ? float(p.bodyFat.percentage) : null
  if (grams === null && fat === null) throw new Error("neither weightGrams nor percentage is a number")
  return {
    providerRecordId: bodyMeasurementId(sample.physicalTime),
    date: localDateOf(sample.physicalTime, sample.utcOffset, sample.civilTime),
    measuredAt: new Date(parseInstant(sample.physicalTime)),
    heightMeters: null,
    weightKilograms: grams === null ? null : kilogramsOfGrams(grams),
    bodyFatPercent: fat,
    bmi: null,
    leanMassKilograms: null,
    maxHeartRate: null,
    partial: true,
    rawJson: JSON.stringify({ ["weight" in p ? "weight" : "body-fat"]: raw })
  }
}

// ---- what a window lists ----

/** The data types read as raw points, with the scope each needs and Google's filter on their civil day. */
export const listedDataTypes: ReadonlyArray<{
  readonly dataType: string
  readonly scope: string
  readonly filter: (from: string, until: string) => string
}> = [
  {
    dataType: "exercise",
    scope: googleHealthActivityScope,
    filter: (from, until) =>
      `exercise.interval.civil_start_time >= "${from}" AND exercise.interval.civil_start_time < "${until}"`
  },
  {
    dataType: "sleep",
    scope: googleHealthSleepScope,
    // sleep filters on its end: a night is the day it ends
    filter: (from, until) => `sleep.interval.civil_end_time >= "${from}" AND sleep.interval.civil_end_time < "${until}"`
  },
  ...googleRecoveryDataTypes.map((dataType) => {
    const field = dataType.replaceAll("-", "_")
    return {
      dataType,
      scope: googleHealthMetricsScope,
      filter: (from: string, until: string) => `${field}.date >= "${from}" AND ${field}.date < "${until}"`
    }
  }),
  ...["weight", "body-fat"].map((dataType) => {
    const field = dataType.replaceAll("-", "_")
    return {
      dataType,
      scope: googleHealthMetricsScope,
      filter: (from: string, until: string) =>
        `${field}.sample_time.civil_time >= "${from}" AND ${field}.sample_time.civil_time < "${until}"`
    }
  })
]
