/**
 * Garmin sleep summaries ("sleeps", Health API 7.3) as Garmin writes them, and their pure
 * normalisation into `SleepRecord`s: the night's sleep, and each nap the summary lists.
 *
 * Time: `startTimeInSeconds` is UTC; the sleeper's clock is `startTimeOffsetInSeconds` east of it.
 * The session ends at start + `durationInSeconds` (in the Health API's examples the duration is the
 * stages plus the awake time, so it spans the whole session). The record's date is the local date
 * of that end, the morning the sleeper wakes into, which is what Garmin's own `calendarDate` of a
 * sleep is (the spec's example starting 22:31 on the 28th at UTC+9 has `calendarDate` the 29th).
 * The offset is the one at the start: a night across a change of clocks keeps it, and its length
 * is the real one (UTC seconds), not the wall clock's.
 *
 * Identity: Garmin re-sends a sleep as it is refined (`AUTO_TENTATIVE` then `AUTO_FINAL`, a sync
 * during the night then a full one); an update has the same start and a duration at least as long
 * (Health API 6.1). A sleep is therefore keyed `<userId>:<startTimeInSeconds>`, and of several
 * copies in one batch the longest (on a tie, the later) is kept. A nap is keyed
 * `<userId>:nap:<napStartTimeInSeconds>`.
 *
 * Values: stages in seconds become minutes; the night's SpO2 and breathing rate are the means of
 * Garmin's samples (`timeOffsetSleepSpo2`, `timeOffsetSleepRespiration`); the provider score is
 * `overallSleepScore.value` (0-100), absent on devices without sleep scores. An `OFF_WRIST` sleep
 * has only its start and end (its stages are zeros standing for "not measured"): its stage and
 * asleep minutes are null. Garmin reports no efficiency, latency or heart rate on a sleep.
 */
import * as Schema from "effect/Schema"
import type { QuarantinedRecord, SleepRecord } from "../Canonical.js"
import { DateString, decodeEach, keepUnknownFields, lastByKey } from "../Shared.js"
import { garminLocalDate, garminOffsetMinutes, garminRawJson, withoutAccessToken } from "./Normalise.js"

const Count = Schema.Number.pipe(Schema.nonNegative())
const Seconds = Schema.Number.pipe(Schema.int())
/** Offset (seconds, as text) -> value: Garmin's time series inside a summary. */
const Samples = Schema.Record({ key: Schema.String, value: Schema.Number })

const GarminNap = Schema.Struct({
  napDurationInSeconds: Count,
  napStartTimeInSeconds: Seconds,
  napOffsetInSeconds: Schema.optional(Seconds),
  napValidation: Schema.optional(Schema.String)
})

/** A sleep summary. Only the start and duration are required: every other field may be missing. */
export const GarminSleep = Schema.Struct({
  userId: Schema.optional(Schema.String),
  summaryId: Schema.NonEmptyString,
  calendarDate: Schema.optional(DateString),
  startTimeInSeconds: Seconds,
  startTimeOffsetInSeconds: Schema.optional(Seconds),
  durationInSeconds: Count,
  totalNapDurationInSeconds: Schema.optional(Schema.NullOr(Count)),
  deepSleepDurationInSeconds: Schema.optional(Schema.NullOr(Count)),
  lightSleepDurationInSeconds: Schema.optional(Schema.NullOr(Count)),
  remSleepInSeconds: Schema.optional(Schema.NullOr(Count)),
  awakeDurationInSeconds: Schema.optional(Schema.NullOr(Count)),
  validation: Schema.optional(Schema.String),
  timeOffsetSleepSpo2: Schema.optional(Schema.NullOr(Samples)),
  timeOffsetSleepRespiration: Schema.optional(Schema.NullOr(Samples)),
  overallSleepScore: Schema.optional(Schema.NullOr(Schema.Struct({
    value: Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.between(0, 100)))),
    qualifierKey: Schema.optional(Schema.String)
  }))),
  naps: Schema.optional(Schema.NullOr(Schema.Array(GarminNap)))
}).annotations(keepUnknownFields)
export type GarminSleep = typeof GarminSleep.Type

const minutes = (seconds: number | null | undefined): number | null =>
  seconds === null || seconds === undefined ? null : seconds / 60

/** The mean of a summary's samples; null when there are none. */
export const garminSamplesMean = (samples: Readonly<Record<string, number>> | null | undefined): number | null => {
  const values = samples === null || samples === undefined ? [] : Object.values(samples)
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length
}

const sleepId = (userId: string, start: number) => `${userId}:${start}`
const napId = (userId: string, start: number) => `${userId}:nap:${start}`

const emptyScores = {
  efficiencyPercent: null,
  latencyMinutes: null,
  averageHeartRate: null,
  lowestHeartRate: null,
  hrvRmssdMs: null,
  sleepNeedMinutes: null,
  performancePercent: null,
  consistencyPercent: null,
  disturbanceCount: null
} as const

/** The night's sleep of a summary, dated by the local date of its end. */
export const normaliseGarminSleep = (sleep: GarminSleep, userId: string, raw: unknown = sleep): SleepRecord => {
  const start = sleep.startTimeInSeconds
  const end = start + sleep.durationInSeconds
  const measured = sleep.validation !== "OFF_WRIST"
  const stage = (seconds: number | null | undefined) => (measured ? minutes(seconds) : null)
  const light = stage(sleep.lightSleepDurationInSeconds)
  const deep = stage(sleep.deepSleepDurationInSeconds)
  const rem = stage(sleep.remSleepInSeconds)
  // Summed in seconds, then converted once (minutes of each stage summed would carry rounding: 474.99999...).
  const asleep = light === null && deep === null && rem === null
    ? null
    : minutes(
      (sleep.lightSleepDurationInSeconds ?? 0) + (sleep.deepSleepDurationInSeconds ?? 0) +
        (sleep.remSleepInSeconds ?? 0)
    )
  const score = sleep.overallSleepScore?.value ?? null
  return {
    providerRecordId: sleepId(userId, start),
    date: garminLocalDate(end, sleep.startTimeOffsetInSeconds),
    start: new Date(start * 1000),
    end: new Date(end * 1000),
    utcOffsetMinutes: garminOffsetMinutes(sleep.startTimeOffsetInSeconds),
    nap: false,
    scoreState: "SCORED",
    inBedMinutes: minutes(sleep.durationInSeconds),
    asleepMinutes: asleep,
    awakeMinutes: stage(sleep.awakeDurationInSeconds),
    lightMinutes: light,
    deepMinutes: deep,
    remMinutes: rem,
    ...emptyScores,
    respiratoryRate: garminSamplesMean(sleep.timeOffsetSleepRespiration),
    spo2Percent: garminSamplesMean(sleep.timeOffsetSleepSpo2),
    providerScore: score,
    providerScoreScale: score === null ? null : "GarminSleepScore0To100",
    rawJson: garminRawJson(raw)
  }
}

/**
 * The naps a summary lists, one record each: start, length and offset are all Garmin gives (the
 * nap's own offset, else the night's), so its asleep time is its length and it has no stages. Its
 * raw JSON is the nap entry with the summary's id.
 */
export const normaliseGarminNaps = (sleep: GarminSleep, userId: string): ReadonlyArray<SleepRecord> =>
  (sleep.naps ?? []).map((nap) => {
    const offset = nap.napOffsetInSeconds ?? sleep.startTimeOffsetInSeconds
    const end = nap.napStartTimeInSeconds + nap.napDurationInSeconds
    return {
      providerRecordId: napId(userId, nap.napStartTimeInSeconds),
      date: garminLocalDate(end, offset),
      start: new Date(nap.napStartTimeInSeconds * 1000),
      end: new Date(end * 1000),
      utcOffsetMinutes: garminOffsetMinutes(offset),
      nap: true,
      scoreState: "SCORED",
      inBedMinutes: minutes(nap.napDurationInSeconds),
      asleepMinutes: minutes(nap.napDurationInSeconds),
      awakeMinutes: null,
      lightMinutes: null,
      deepMinutes: null,
      remMinutes: null,
      ...emptyScores,
      respiratoryRate: null,
      spo2Percent: null,
      providerScore: null,
      providerScoreScale: null,
      rawJson: JSON.stringify({ summaryId: sleep.summaryId, ...nap })
    }
  })

/** The record id of a raw item, when its start can be read (for quarantined items). */
const idOfRaw = (userId: string) => (raw: unknown): string | null => {
  if (typeof raw !== "object" || raw === null) return null
  const start = (raw as Record<string, unknown>)["startTimeInSeconds"]
  return typeof start === "number" && Number.isInteger(start) ? sleepId(userId, start) : null
}

const spanOf = (record: SleepRecord): number => record.end.getTime() - record.start.getTime()

/** One record per id: the longest copy, the later on a tie. */
const longestOfEach = (records: ReadonlyArray<SleepRecord>): ReadonlyArray<SleepRecord> => {
  const best = new Map<string, SleepRecord>()
  for (const record of records) {
    const held = best.get(record.providerRecordId)
    if (held === undefined || spanOf(record) >= spanOf(held)) {
      best.delete(record.providerRecordId)
      best.set(record.providerRecordId, record)
    }
  }
  return Array.from(best.values())
}

/** Garmin's sleeps read one by one (a bad one quarantined): the nights and their naps. */
export const normaliseGarminSleeps = (
  items: ReadonlyArray<unknown>,
  userId: string
): { readonly records: ReadonlyArray<SleepRecord>; readonly quarantined: ReadonlyArray<QuarantinedRecord> } => {
  const decoded = decodeEach({
    kind: "Sleep",
    schema: GarminSleep,
    items: items.map(withoutAccessToken),
    normalise: (
      sleep: GarminSleep,
      raw
    ) => [normaliseGarminSleep(sleep, userId, raw), ...normaliseGarminNaps(sleep, userId)],
    idOf: idOfRaw(userId)
  })
  return {
    records: longestOfEach(decoded.records.flat()),
    quarantined: lastByKey(decoded.quarantined, (q) => q.providerRecordId ?? q.rawJson)
  }
}
