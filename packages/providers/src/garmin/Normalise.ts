/**
 * Garmin daily summaries ("dailies") as Garmin writes them (push, pull and backfill alike), and
 * their pure normalisation into `DailyActivityRecord`s keyed by `summaryId`; also the reading of
 * a push or ping delivery's items.
 *
 * Garmin re-sends a day's summary as the day goes on, always under the same `summaryId`; the
 * latest copy is the most complete, so of several copies the last one is kept.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { DailyActivityRecord } from "../Canonical.js"
import { DateString, keepUnknownFields, lastByKey } from "../Shared.js"

const Count = Schema.Number.pipe(Schema.nonNegative())

/**
 * A daily summary as Garmin sends it (push, pull and backfill alike). Units are in the names:
 * kilocalories, metres, seconds, bpm. Only the key fields are required: a summary of a day just
 * begun may leave the rest out.
 */
export const GarminDaily = Schema.Struct({
  userId: Schema.optional(Schema.String),
  summaryId: Schema.NonEmptyString,
  calendarDate: DateString,
  steps: Schema.optional(Count),
  activeKilocalories: Schema.optional(Count),
  bmrKilocalories: Schema.optional(Count),
  distanceInMeters: Schema.optional(Count),
  activeTimeInSeconds: Schema.optional(Count),
  moderateIntensityDurationInSeconds: Schema.optional(Count),
  vigorousIntensityDurationInSeconds: Schema.optional(Count),
  floorsClimbed: Schema.optional(Count),
  restingHeartRateInBeatsPerMinute: Schema.optional(Schema.NullOr(Schema.Number))
}).annotations(keepUnknownFields)
export type GarminDaily = typeof GarminDaily.Type

/**
 * A summary as a canonical record. Total energy is active + BMR. Garmin reports moderate and
 * vigorous durations and the total active time but no light or sedentary split: light minutes
 * are the active time left after moderate and vigorous (never below 0), and sedentary minutes
 * are reported as 0 because Garmin does not separate sedentary time from sleep.
 */
export const normaliseGarminDaily = (daily: GarminDaily): DailyActivityRecord => {
  const moderate = daily.moderateIntensityDurationInSeconds ?? 0
  const vigorous = daily.vigorousIntensityDurationInSeconds ?? 0
  const light = daily.activeTimeInSeconds === undefined
    ? 0
    : Math.max(0, daily.activeTimeInSeconds - moderate - vigorous)
  return {
    providerRecordId: daily.summaryId,
    date: daily.calendarDate,
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
    rawJson: rawJsonOf(daily)
  }
}

/**
 * The summary's JSON without `userAccessToken`, which OAuth 1.0a apps get in every item: a live
 * credential has no place in stored (and served) provider JSON.
 */
const rawJsonOf = (daily: GarminDaily): string => {
  const { userAccessToken: _token, ...rest } = daily as GarminDaily & { readonly userAccessToken?: unknown }
  return JSON.stringify(rest)
}

/** Normalises summaries, keeping the last copy of each `summaryId`. */
export const normaliseGarminDailies = (dailies: ReadonlyArray<GarminDaily>): ReadonlyArray<DailyActivityRecord> =>
  lastByKey(dailies.map(normaliseGarminDaily), (record) => record.providerRecordId)

/** A pushed summary names its user. */
const PushedDaily = Schema.Struct({ ...GarminDaily.fields, userId: Schema.String }).annotations(keepUnknownFields)
const PushEnvelope = Schema.Struct({ dailies: Schema.Array(Schema.Unknown) })
const decodePushEnvelope = Schema.decodeUnknownEither(PushEnvelope)
const decodePushItem = Schema.decodeUnknownEither(PushedDaily)

/**
 * The summaries of a push delivery (`{"dailies":[...]}`) with the Garmin user each belongs to.
 * Items that are not summaries (ping items, malformed ones) are left out, as is everything when
 * the body is not a dailies envelope; of several copies of a `summaryId` the last one is kept.
 */
export const garminPushDailies = (
  body: unknown
): ReadonlyArray<{ readonly userId: string; readonly record: DailyActivityRecord }> => {
  const envelope = decodePushEnvelope(body)
  if (Either.isLeft(envelope)) return []
  const out: Array<{ readonly userId: string; readonly record: DailyActivityRecord }> = []
  for (const item of envelope.right.dailies) {
    const decoded = decodePushItem(item)
    if (Either.isRight(decoded)) out.push({ userId: decoded.right.userId, record: normaliseGarminDaily(decoded.right) })
  }
  return lastByKey(out, (entry) => `${entry.userId}\u0000${entry.record.providerRecordId}`)
}

const PingItem = Schema.Struct({ userId: Schema.String, callbackURL: Schema.String })
const decodePingItem = Schema.decodeUnknownEither(PingItem)

/** The pull URLs of a ping delivery (`{"dailies":[{userId, callbackURL, ...}]}`), for `pullGarminCallback`. */
export const garminPingCallbacks = (
  body: unknown
): ReadonlyArray<{ readonly userId: string; readonly callbackUrl: string }> => {
  const envelope = decodePushEnvelope(body)
  if (Either.isLeft(envelope)) return []
  return envelope.right.dailies.flatMap((item) => {
    const decoded = decodePingItem(item)
    return Either.isRight(decoded) ? [{ userId: decoded.right.userId, callbackUrl: decoded.right.callbackURL }] : []
  })
}
