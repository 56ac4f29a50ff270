/**
 * The raw points one window read brought back, put together into canonical lists (pure): each point decoded on
 * its own (one that does not read is quarantined, the others kept), sessions one per Google id, a day's five
 * daily metrics into one recovery, a weighing's weight and body fat into one measurement.
 */
import type * as Schema from "effect/Schema"
import type {
  BodyMeasurementSnapshot,
  QuarantinedRecord,
  RecoveryRecord,
  SleepRecord,
  WorkoutRecord
} from "../Canonical.js"
import { dayRecoveryId } from "../Canonical.js"
import { decodeEach, lastByKey } from "../Shared.js"
import { civilDate } from "./Normalise.js"
import type { GoogleRecoveryDataType, RecoveryValues } from "./Points.js"
import {
  GoogleBodyFatPoint,
  GoogleDailyPoints,
  GoogleExercisePoint,
  GoogleSleepPoint,
  GoogleWeightPoint,
  normaliseGoogleBody,
  normaliseGoogleExercise,
  normaliseGoogleRecovery,
  normaliseGoogleSleep,
  rawPointId,
  recoveryValuesOf
} from "./Points.js"

export interface Assembled<R> {
  readonly records: ReadonlyArray<R>
  readonly quarantined: ReadonlyArray<QuarantinedRecord>
}

const withType = (dataType: string, quarantined: ReadonlyArray<QuarantinedRecord>) =>
  quarantined.map((q) => ({ ...q, reason: `${dataType}: ${q.reason}`.slice(0, 300) }))

/** `sleep` points as sleeps, one per Google id (a later page's copy wins). */
export const assembleSleeps = (items: ReadonlyArray<unknown>): Assembled<SleepRecord> => {
  const decoded = decodeEach({
    kind: "Sleep",
    schema: GoogleSleepPoint,
    items,
    normalise: (point, raw) => normaliseGoogleSleep(point, raw),
    idOf: rawPointId
  })
  return {
    records: lastByKey(decoded.records, (r) => r.providerRecordId),
    quarantined: withType("sleep", decoded.quarantined)
  }
}

/** `exercise` points as workouts, one per Google id. */
export const assembleWorkouts = (items: ReadonlyArray<unknown>): Assembled<WorkoutRecord> => {
  const decoded = decodeEach({
    kind: "Workout",
    schema: GoogleExercisePoint,
    items,
    normalise: (point, raw) => normaliseGoogleExercise(point, raw),
    idOf: rawPointId
  })
  return {
    records: lastByKey(decoded.records, (r) => r.providerRecordId),
    quarantined: withType("exercise", decoded.quarantined)
  }
}

const fieldOf: Record<GoogleRecoveryDataType, string> = {
  "daily-resting-heart-rate": "dailyRestingHeartRate",
  "daily-heart-rate-variability": "dailyHeartRateVariability",
  "daily-oxygen-saturation": "dailyOxygenSaturation",
  "daily-respiratory-rate": "dailyRespiratoryRate",
  "daily-sleep-temperature-derivations": "dailySleepTemperatureDerivations"
}

/** The recovery key of a raw daily point, when its date reads: the quarantine keys the day by it. */
const recoveryIdOf = (dataType: GoogleRecoveryDataType) => (raw: unknown): string | null => {
  try {
    const date = (raw as Record<string, { date?: { year: number; month: number; day: number } }>)[fieldOf[dataType]]
      ?.date
    return date === undefined ? null : dayRecoveryId(civilDate(date))
  } catch {
    return null
  }
}

/**
 * The daily metrics' points as one recovery per day, `recovery:<date>`, its raw JSON Google's points by data
 * type. A day that had a point quarantined is `partial`: stored, it keeps what that metric said before.
 */
export const assembleRecoveries = (
  pages: ReadonlyArray<{ readonly dataType: GoogleRecoveryDataType; readonly items: ReadonlyArray<unknown> }>
): Assembled<RecoveryRecord> => {
  const days = new Map<string, { values: RecoveryValues; raw: Record<string, unknown> }>()
  const quarantined: Array<QuarantinedRecord> = []
  for (const { dataType, items } of pages) {
    const decoded = decodeEach({
      kind: "Recovery",
      schema: GoogleDailyPoints[dataType] as Schema.Schema<any, any>,
      items,
      normalise: (point, raw) => ({ ...recoveryValuesOf(dataType, point), raw }),
      idOf: recoveryIdOf(dataType)
    })
    quarantined.push(...withType(dataType, decoded.quarantined))
    for (const { date, raw, values } of decoded.records) {
      const day = days.get(date) ?? { values: {}, raw: {} }
      // a second point of a day (a re-sent page) replaces only the values it has
      for (const [key, value] of Object.entries(values)) {
        if (value !== null) (day.values as Record<string, number>)[key] = value
      }
      day.raw[dataType] = raw
      days.set(date, day)
    }
  }
  const spoilt = new Set(quarantined.map((q) => q.providerRecordId))
  const records = [...days.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, day]) => normaliseGoogleRecovery(date, day.values, day.raw, spoilt.has(dayRecoveryId(date))))
  return { records, quarantined }
}

/** Merges two parts of one measurement (weight, then body fat): non-null fields and raw JSON of both. */
const mergeBody = (a: BodyMeasurementSnapshot, b: BodyMeasurementSnapshot): BodyMeasurementSnapshot => ({
  ...a,
  weightKilograms: b.weightKilograms ?? a.weightKilograms,
  bodyFatPercent: b.bodyFatPercent ?? a.bodyFatPercent,
  rawJson: JSON.stringify({ ...JSON.parse(a.rawJson), ...JSON.parse(b.rawJson) })
})

/** `weight` and `body-fat` samples as measurements, those of one instant (one weighing) merged. */
export const assembleBodyMeasurements = (
  weights: ReadonlyArray<unknown>,
  bodyFats: ReadonlyArray<unknown>
): Assembled<BodyMeasurementSnapshot> => {
  const w = decodeEach({
    kind: "BodyMeasurement",
    schema: GoogleWeightPoint,
    items: weights,
    normalise: (point, raw) => normaliseGoogleBody(point, raw),
    idOf: rawPointId
  })
  const f = decodeEach({
    kind: "BodyMeasurement",
    schema: GoogleBodyFatPoint,
    items: bodyFats,
    normalise: (point, raw) => normaliseGoogleBody(point, raw),
    idOf: rawPointId
  })
  const byId = new Map<string, BodyMeasurementSnapshot>()
  for (const record of [...w.records, ...f.records]) {
    const seen = byId.get(record.providerRecordId)
    byId.set(record.providerRecordId, seen === undefined ? record : mergeBody(seen, record))
  }
  return {
    records: [...byId.values()],
    quarantined: [...withType("weight", w.quarantined), ...withType("body-fat", f.quarantined)]
  }
}
