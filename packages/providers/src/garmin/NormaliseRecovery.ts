/**
 * A Garmin day's recovery, assembled from three summary types that Garmin sends apart: the night's
 * HRV (`hrv`, Health API 7.10: `lastNightAvg`, the night's RMSSD in ms), the day's pulse ox
 * (`pulseox`, 7.7: SpO2 samples) and the daily summary's `restingHeartRateInBeatsPerMinute`. Each
 * summary becomes a partial `RecoveryRecord` keyed `recovery:<calendarDate>` holding only what it
 * says; the store merges the parts of a day (non-null fields win, the raw JSON objects, keyed by
 * source, are joined), and parts of one day within a batch are merged here the same way.
 *
 * Date: the summary's `calendarDate` (the day Garmin Connect shows it on: for HRV, the morning the
 * night's sleep ends), else the local date of its start.
 *
 * SpO2: the mean of an all-day (acclimation) summary's samples. Spot checks (`onDemand: true`) are
 * kept in the raw JSON under `pulseoxOnDemand` but set no SpO2: Garmin sends them as a summary of
 * their own beside the all-day one, and one reading taken at any hour is not the day's value.
 */
import * as Schema from "effect/Schema"
import type { DailyActivityRecord, QuarantinedRecord, RecoveryRecord } from "../Canonical.js"
import { dayRecovery, dayRecoveryId } from "../Canonical.js"
import { DateString, decodeEach, keepUnknownFields, lastByKey } from "../Shared.js"
import { garminDayOf, withoutAccessToken } from "./Normalise.js"
import { garminSamplesMean } from "./NormaliseSleeps.js"

const Seconds = Schema.Number.pipe(Schema.int())
const Samples = Schema.Record({ key: Schema.String, value: Schema.Number })

const dated = <
  A extends { readonly calendarDate?: string | undefined; readonly startTimeInSeconds?: number | undefined }
>(
  schema: Schema.Schema<A, any>
) =>
  schema.pipe(
    Schema.filter((summary) =>
      summary.calendarDate !== undefined || summary.startTimeInSeconds !== undefined
        ? undefined
        : { path: ["calendarDate"], message: "calendarDate is missing and there is no startTimeInSeconds to derive it" }
    )
  )

/** A night's HRV summary. */
export const GarminHrv = dated(
  Schema.Struct({
    userId: Schema.optional(Schema.String),
    summaryId: Schema.NonEmptyString,
    calendarDate: Schema.optional(DateString),
    startTimeInSeconds: Schema.optional(Seconds),
    startTimeOffsetInSeconds: Schema.optional(Seconds),
    durationInSeconds: Schema.optional(Schema.Number),
    lastNightAvg: Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.nonNegative()))),
    lastNight5MinHigh: Schema.optional(Schema.NullOr(Schema.Number)),
    hrvValues: Schema.optional(Schema.NullOr(Samples))
  }).annotations(keepUnknownFields)
)
export type GarminHrv = typeof GarminHrv.Type

/** A pulse ox summary: all-day (acclimation) or on-demand spot checks. */
export const GarminPulseOx = dated(
  Schema.Struct({
    userId: Schema.optional(Schema.String),
    summaryId: Schema.NonEmptyString,
    calendarDate: Schema.optional(DateString),
    startTimeInSeconds: Schema.optional(Seconds),
    startTimeOffsetInSeconds: Schema.optional(Seconds),
    durationInSeconds: Schema.optional(Schema.Number),
    timeOffsetSpo2Values: Schema.Record({ key: Schema.String, value: Schema.Number.pipe(Schema.between(0, 100)) }),
    onDemand: Schema.optional(Schema.NullOr(Schema.Boolean))
  }).annotations(keepUnknownFields)
)
export type GarminPulseOx = typeof GarminPulseOx.Type

export const garminRecoveryId = dayRecoveryId

const dayOf = (summary: Parameters<typeof garminDayOf>[0]): string => {
  const date = garminDayOf(summary)
  if (date === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    throw new Error("startTimeInSeconds does not give a calendar date")
  }
  return date
}

/** A part of a day's recovery: what one source says, every other field null. */
const part = (
  date: string,
  source: string,
  raw: unknown,
  values: Partial<Pick<RecoveryRecord, "restingHeartRate" | "hrvRmssdMs" | "spo2Percent">>
): RecoveryRecord => dayRecovery(date, values, JSON.stringify({ [source]: raw }), true)

export const normaliseGarminHrv = (hrv: GarminHrv, raw: unknown = hrv): RecoveryRecord =>
  part(dayOf(hrv), "hrv", withoutAccessToken(raw), { hrvRmssdMs: hrv.lastNightAvg ?? null })

export const normaliseGarminPulseOx = (pulseOx: GarminPulseOx, raw: unknown = pulseOx): RecoveryRecord =>
  pulseOx.onDemand === true
    ? part(dayOf(pulseOx), "pulseoxOnDemand", withoutAccessToken(raw), {})
    : part(dayOf(pulseOx), "pulseox", withoutAccessToken(raw), {
      spo2Percent: garminSamplesMean(pulseOx.timeOffsetSpo2Values)
    })

/**
 * The resting heart rate of each normalised day that has one, as a part of that day's recovery; its
 * raw JSON names the daily it was read from.
 */
export const garminRestingHeartRates = (days: ReadonlyArray<DailyActivityRecord>): ReadonlyArray<RecoveryRecord> =>
  days.flatMap((day) => {
    if (day.restingHeartRate === null) return []
    const daily = JSON.parse(day.rawJson) as Record<string, unknown>
    return [part(day.date, "dailies", {
      summaryId: daily["summaryId"],
      calendarDate: day.date,
      durationInSeconds: daily["durationInSeconds"],
      restingHeartRateInBeatsPerMinute: day.restingHeartRate
    }, { restingHeartRate: day.restingHeartRate })]
  })

/**
 * The parts of each day merged in order, as the store merges them: a later non-null value wins,
 * the raw JSON objects are joined (a later source's key wins). Records keep the place of their
 * day's first part.
 */
export const mergeGarminRecoveries = (records: ReadonlyArray<RecoveryRecord>): ReadonlyArray<RecoveryRecord> => {
  const byId = new Map<string, RecoveryRecord>()
  for (const record of records) {
    const held = byId.get(record.providerRecordId)
    if (held === undefined) {
      byId.set(record.providerRecordId, record)
      continue
    }
    byId.set(record.providerRecordId, {
      ...held,
      restingHeartRate: record.restingHeartRate ?? held.restingHeartRate,
      hrvRmssdMs: record.hrvRmssdMs ?? held.hrvRmssdMs,
      spo2Percent: record.spo2Percent ?? held.spo2Percent,
      date: record.date,
      rawJson: JSON.stringify({ ...JSON.parse(held.rawJson), ...JSON.parse(record.rawJson) })
    })
  }
  return Array.from(byId.values())
}

type Decoded = {
  readonly records: ReadonlyArray<RecoveryRecord>
  readonly quarantined: ReadonlyArray<QuarantinedRecord>
}

const readEach =
  <A, I>(schema: Schema.Schema<A, I>, normalise: (a: A, raw: unknown) => RecoveryRecord) =>
  (items: ReadonlyArray<unknown>): Decoded => {
    // A bad part is quarantined under its own summaryId: the day's id is shared by every source of the day, and a
    // good part of another source must not clear it.
    const decoded = decodeEach({ kind: "Recovery", schema, items: items.map(withoutAccessToken), normalise })
    return {
      records: mergeGarminRecoveries(decoded.records),
      quarantined: lastByKey(decoded.quarantined, (q) => q.providerRecordId ?? q.rawJson)
    }
  }

/** Garmin's HRV summaries read one by one (a bad one quarantined). */
export const normaliseGarminHrvs: (items: ReadonlyArray<unknown>) => Decoded = readEach(GarminHrv, normaliseGarminHrv)

/** Garmin's pulse ox summaries read one by one (a bad one quarantined). */
export const normaliseGarminPulseOxes: (items: ReadonlyArray<unknown>) => Decoded = readEach(
  GarminPulseOx,
  normaliseGarminPulseOx
)
