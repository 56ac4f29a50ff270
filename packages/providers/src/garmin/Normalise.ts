/**
 * Garmin daily summaries ("dailies") as Garmin writes them (push, pull and backfill alike), and
 * their pure normalisation into `DailyActivityRecord`s, one per user and local day.
 *
 * Identity: Garmin uploads a day several times as it goes on (a partial day, then the full day),
 * and each upload has its own `summaryId` (it encodes the span covered), while the day keeps its
 * `startTimeInSeconds` and `calendarDate`. A record is therefore keyed `<userId>:<calendarDate>`:
 * a later upload of the day replaces the earlier one, never adds to it. Of several uploads of one
 * day in one batch, the one covering the longest span (`durationInSeconds`) wins; on a tie, the
 * later one.
 *
 * Date: `calendarDate` when present; the Health API allows it to be missing, and then the date is
 * the local date of `startTimeInSeconds + startTimeOffsetInSeconds`.
 *
 * Each daily is decoded on its own: one that cannot be read (no date to be had, a negative step
 * count) is quarantined with its JSON and the reason, and the others are stored.
 *
 * Fields no canonical field holds stay in the raw JSON, which is the provider's record minus the
 * user's access token: among them wheelchair users' `pushes` and `pushDistanceInMeters`, stress,
 * body battery and heart-rate samples.
 */
import * as Schema from "effect/Schema"
import type { DailyActivityRecord, QuarantinedRecord } from "../Canonical.js"
import { DateString, decodeEach, keepUnknownFields, lastByKey, localDate } from "../Shared.js"

const Count = Schema.Number.pipe(Schema.nonNegative())
const Seconds = Schema.Number.pipe(Schema.int())

/**
 * A daily summary as Garmin sends it. Units are in the names: kilocalories, metres, seconds,
 * bpm. Only the key fields are required (a summary of a day just begun may leave the rest out);
 * the day needs `calendarDate` or `startTimeInSeconds`.
 */
export const GarminDaily = Schema.Struct({
  userId: Schema.optional(Schema.String),
  summaryId: Schema.NonEmptyString,
  calendarDate: Schema.optional(DateString),
  startTimeInSeconds: Schema.optional(Seconds),
  startTimeOffsetInSeconds: Schema.optional(Seconds),
  durationInSeconds: Schema.optional(Count),
  steps: Schema.optional(Count),
  activeKilocalories: Schema.optional(Count),
  bmrKilocalories: Schema.optional(Count),
  distanceInMeters: Schema.optional(Count),
  activeTimeInSeconds: Schema.optional(Count),
  moderateIntensityDurationInSeconds: Schema.optional(Count),
  vigorousIntensityDurationInSeconds: Schema.optional(Count),
  floorsClimbed: Schema.optional(Count),
  restingHeartRateInBeatsPerMinute: Schema.optional(Schema.NullOr(Schema.Number))
}).annotations(keepUnknownFields).pipe(
  Schema.filter((daily) =>
    daily.calendarDate !== undefined || daily.startTimeInSeconds !== undefined
      ? undefined
      : { path: ["calendarDate"], message: "calendarDate is missing and there is no startTimeInSeconds to derive it" }
  )
)
export type GarminDaily = typeof GarminDaily.Type

/** The day of a summary: `calendarDate`, else the local date of its start. */
export const garminDayOf = (daily: {
  readonly calendarDate?: string | undefined
  readonly startTimeInSeconds?: number | undefined
  readonly startTimeOffsetInSeconds?: number | undefined
}): string | undefined => {
  if (daily.calendarDate !== undefined) return daily.calendarDate
  if (daily.startTimeInSeconds === undefined) return undefined
  return localDate(daily.startTimeInSeconds * 1000, (daily.startTimeOffsetInSeconds ?? 0) / 60)
}

/** A day's record id: the user and the local date. */
export const garminDailyId = (userId: string, date: string): string => `${userId}:${date}`

/**
 * A summary as a canonical record. Total energy is active + BMR. Garmin reports moderate and
 * vigorous durations and the total active time but no light or sedentary split: light minutes
 * are the active time left after moderate and vigorous (never below 0), and sedentary minutes
 * are reported as 0 because Garmin does not separate sedentary time from sleep.
 */
export const normaliseGarminDaily = (daily: GarminDaily, userId: string): DailyActivityRecord => {
  const date = garminDayOf(daily)
  // The schema's filter guarantees a date; a start too far out for a calendar is still refused here.
  if (date === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    throw new Error("startTimeInSeconds does not give a calendar date")
  }
  const moderate = daily.moderateIntensityDurationInSeconds ?? 0
  const vigorous = daily.vigorousIntensityDurationInSeconds ?? 0
  const light = daily.activeTimeInSeconds === undefined
    ? 0
    : Math.max(0, daily.activeTimeInSeconds - moderate - vigorous)
  return {
    providerRecordId: garminDailyId(userId, date),
    date,
    steps: daily.steps ?? 0,
    caloriesOut: (daily.activeKilocalories ?? 0) + (daily.bmrKilocalories ?? 0),
    activeCalories: daily.activeKilocalories ?? null,
    distanceMeters: daily.distanceInMeters ?? 0,
    lightActiveMinutes: light / 60,
    moderateActiveMinutes: moderate / 60,
    vigorousActiveMinutes: vigorous / 60,
    sedentaryMinutes: 0,
    floorsClimbed: daily.floorsClimbed ?? 0,
    restingHeartRate: daily.restingHeartRateInBeatsPerMinute ?? null,
    coveredSeconds: daily.durationInSeconds ?? null,
    rawJson: garminRawJson(daily)
  }
}

/**
 * The summary's JSON without `userAccessToken`, which OAuth 1.0a apps get in every item: a live
 * credential has no place in stored (and served) provider JSON.
 */
export const garminRawJson = (summary: unknown): string => JSON.stringify(withoutAccessToken(summary))

/** The local calendar date of a Garmin instant (Unix seconds) at its offset (seconds east of UTC). */
export const garminLocalDate = (seconds: number, offsetSeconds: number | undefined): string =>
  localDate(seconds * 1000, (offsetSeconds ?? 0) / 60)

/** Minutes east of UTC of a Garmin offset in seconds, null when the summary has none. */
export const garminOffsetMinutes = (offsetSeconds: number | undefined): number | null =>
  offsetSeconds === undefined ? null : offsetSeconds / 60

/** The record id of a raw item, when its day can be read (for quarantined items). */
const idOfRaw = (userId: string) => (raw: unknown): string | null => {
  if (typeof raw !== "object" || raw === null) return null
  const item = raw as Record<string, unknown>
  const calendarDate = typeof item["calendarDate"] === "string" && /^\d{4}-\d{2}-\d{2}$/.test(item["calendarDate"])
    ? item["calendarDate"]
    : undefined
  const start = typeof item["startTimeInSeconds"] === "number" ? item["startTimeInSeconds"] : undefined
  const offset = typeof item["startTimeOffsetInSeconds"] === "number" ? item["startTimeOffsetInSeconds"] : undefined
  const date = garminDayOf({ calendarDate, startTimeInSeconds: start, startTimeOffsetInSeconds: offset })
  return date === undefined || Number.isNaN(Date.parse(date)) ? null : garminDailyId(userId, date)
}

/** How complete an upload is: the span it covers. */
const coverage = (record: DailyActivityRecord): number => record.coveredSeconds ?? 0

/**
 * One record per day: the upload covering the most of the day; on a tie, the later one. Records
 * keep the position of the winning upload.
 */
const latestOfEachDay = (records: ReadonlyArray<DailyActivityRecord>): ReadonlyArray<DailyActivityRecord> => {
  const best = new Map<string, DailyActivityRecord>()
  for (const record of records) {
    const held = best.get(record.providerRecordId)
    if (held === undefined || coverage(record) >= coverage(held)) {
      best.delete(record.providerRecordId)
      best.set(record.providerRecordId, record)
    }
  }
  return Array.from(best.values())
}

/** Garmin's dailies read one by one (a bad one quarantined), one record per day kept. */
export const normaliseGarminDailies = (
  items: ReadonlyArray<unknown>,
  userId: string
): { readonly records: ReadonlyArray<DailyActivityRecord>; readonly quarantined: ReadonlyArray<QuarantinedRecord> } => {
  const decoded = decodeEach({
    kind: "DailyActivity",
    schema: GarminDaily,
    items: items.map(withoutAccessToken),
    normalise: (daily: GarminDaily) => normaliseGarminDaily(daily, userId),
    idOf: idOfRaw(userId)
  })
  return {
    records: latestOfEachDay(decoded.records),
    quarantined: lastByKey(decoded.quarantined, (q) => q.providerRecordId ?? q.rawJson)
  }
}

/** A quarantined item's raw JSON must not keep the user's access token either. */
export const withoutAccessToken = (item: unknown): unknown => {
  if (typeof item !== "object" || item === null || !("userAccessToken" in item)) return item
  const { userAccessToken: _token, ...rest } = item as { readonly userAccessToken?: unknown }
  return rest
}
