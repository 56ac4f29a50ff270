/**
 * Canonical health records: what the normalisers make of each provider's JSON and what the
 * server stores. Every record carries its provider's natural key (`providerRecordId`), the
 * user's local calendar `date` as the provider defines it, and the provider's raw JSON.
 *
 * Units: distances in metres, energy in kcal, durations in minutes unless a field says
 * otherwise, heart rates in bpm, glucose as the provider reports it (`unit` names it).
 * Timestamps are `Date`s (UTC instants). `null` means the provider did not report the value.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { ActivityType as ActivityTypeSchema } from "@pulsebridge/domain"
import type * as Effect from "effect/Effect"
import type { ProviderError, TokenInput } from "./Adapter.js"

/** A day of activity (Fitbit daily summary, Garmin dailies). */
export interface DailyActivityRecord {
  /** Fitbit: the civil date; Garmin: `summaryId`. */
  readonly providerRecordId: string
  readonly date: string
  readonly steps: number
  /** Total energy out, BMR included (kcal). */
  readonly caloriesOut: number
  /** Energy from activity above BMR (kcal), when reported. */
  readonly activeCalories: number | null
  readonly distanceMeters: number
  readonly lightActiveMinutes: number
  /** Fitbit `fairlyActiveMinutes`, Garmin moderate intensity duration / 60. */
  readonly moderateActiveMinutes: number
  /** Fitbit `veryActiveMinutes`, Garmin vigorous intensity duration / 60. */
  readonly vigorousActiveMinutes: number
  readonly sedentaryMinutes: number
  readonly floorsClimbed: number
  readonly restingHeartRate: number | null
  /**
   * How much of the day the record covers, in seconds, when the provider says (Garmin
   * `durationInSeconds`: a day is uploaded partial, then full). A stored record is never replaced by
   * one of the same day covering less of it, whatever order the uploads are read in.
   */
  readonly coveredSeconds?: number | null | undefined
  readonly rawJson: string
}

/** One load window: a WHOOP physiological cycle. */
export interface DailyLoadRecord {
  /** WHOOP cycle id. */
  readonly providerRecordId: string
  /** Local date of the window start (`start` + `timezone_offset`). */
  readonly date: string
  readonly windowKind: "PhysiologicalCycle"
  readonly windowStart: Date
  /** null while the cycle is in progress. */
  readonly windowEnd: Date | null
  /** WHOOP strain 0-21; null until scored. */
  readonly loadScore: number | null
  readonly loadScoreScale: "WhoopStrain0To21"
  /** kJ / 4.184. */
  readonly energyKilocalories: number | null
  readonly averageHeartRate: number | null
  readonly maxHeartRate: number | null
  readonly distanceMeters: number | null
  readonly steps: number | null
  /** JSON text of time in heart-rate zones (minutes per zone), `{}` when unknown. */
  readonly zoneDurationsJson: string
  readonly sourceConfidence: "ProviderNative"
  /** The provider's scoring state (`SCORED`, `PENDING_SCORE`, `UNSCORABLE`). */
  readonly scoreState: string
  readonly rawJson: string
}

/**
 * The names of the scales a provider's own score is on (`providerScoreScale`, `loadScoreScale`): the score is
 * passed on as the provider gives it, never rescaled.
 */
export type ProviderScoreScale =
  | "WhoopStrain0To21"
  | "WhoopSleepPerformance0To100"
  | "WhoopRecovery0To100"
  | "GarminSleepScore0To100"
  | "FitbitSleepScore0To100"
  | "OuraScore0To100"

/**
 * A sleep session or nap (Google Health `sleep`, Garmin `sleeps`, WHOOP sleep). `date` is the local day the
 * sleeper wakes into: the local date of `end` at the session's offset (WHOOP: the day of the cycle the sleep
 * opens, the same day).
 */
export interface SleepRecord {
  readonly providerRecordId: string
  /** The local date of the sleep's end (the morning it ends). */
  readonly date: string
  readonly start: Date
  readonly end: Date
  /** Minutes east of UTC of the sleeper's clock, when the provider says. */
  readonly utcOffsetMinutes: number | null
  readonly nap: boolean
  /** WHOOP's scoring state; `SCORED` for providers whose records are final when served. */
  readonly scoreState: string
  readonly inBedMinutes: number | null
  /** Light + deep + REM (or the provider's own asleep total when it has no stages). */
  readonly asleepMinutes: number | null
  readonly awakeMinutes: number | null
  readonly lightMinutes: number | null
  readonly deepMinutes: number | null
  readonly remMinutes: number | null
  /** 0-100. */
  readonly efficiencyPercent: number | null
  /** Minutes from the start of the session to falling asleep. */
  readonly latencyMinutes: number | null
  readonly averageHeartRate: number | null
  readonly lowestHeartRate: number | null
  readonly hrvRmssdMs: number | null
  /** Breaths per minute. */
  readonly respiratoryRate: number | null
  readonly spo2Percent: number | null
  /** The provider's own sleep score, on `providerScoreScale`. */
  readonly providerScore: number | null
  readonly providerScoreScale: ProviderScoreScale | null
  /** WHOOP: sleep need (baseline + debt + strain + nap adjustments), minutes. */
  readonly sleepNeedMinutes: number | null
  /** WHOOP sleep performance (also `providerScore`). */
  readonly performancePercent: number | null
  readonly consistencyPercent: number | null
  readonly disturbanceCount: number | null
  readonly rawJson: string
}

/**
 * One day's recovery (WHOOP recovery, one per cycle; Garmin HRV, pulse ox and the dailies' resting heart rate;
 * Google Health's daily resting heart rate, HRV, SpO2, respiratory rate and skin temperature), dated by the day
 * it describes (the morning it is measured on).
 */
export interface RecoveryRecord {
  /** WHOOP cycle id; for a record assembled per day, a key of the day (e.g. `recovery:2026-11-27`). */
  readonly providerRecordId: string
  /** WHOOP: the sleep the recovery was measured in. */
  readonly sleepId: string | null
  readonly date: string
  /** WHOOP's scoring state; `SCORED` for other providers. */
  readonly scoreState: string
  readonly calibrating: boolean | null
  /** The provider's own recovery score, on `providerScoreScale` (WHOOP recovery 0-100). */
  readonly recoveryScore: number | null
  readonly providerScoreScale: ProviderScoreScale | null
  readonly restingHeartRate: number | null
  readonly hrvRmssdMs: number | null
  readonly spo2Percent: number | null
  /** Breaths per minute. */
  readonly respiratoryRate: number | null
  /** Absolute skin temperature, °C. */
  readonly skinTempCelsius: number | null
  /** Skin temperature against the wearer's own baseline, °C. */
  readonly skinTemperatureDeviationCelsius: number | null
  /**
   * The record holds what one of several sources of the day says (a Garmin HRV summary, then its pulse ox):
   * stored over a record of the same id, its non-null fields replace those of the stored record and the others
   * are kept, and its raw JSON (an object keyed by source) is merged into the stored one.
   */
  readonly partial?: boolean | undefined
  readonly rawJson: string
}

/** The id of a day's recovery assembled from a provider's daily measurements (Garmin, Google Health). */
export const dayRecoveryId = (date: string): string => `recovery:${date}`

/**
 * A day's recovery assembled from a provider's daily measurements, without a cycle, a sleep or a score (Garmin,
 * Google Health): the values given, null for the rest; `partial` as `RecoveryRecord.partial` says.
 */
export const dayRecovery = (
  date: string,
  values: Partial<
    Pick<
      RecoveryRecord,
      | "restingHeartRate"
      | "hrvRmssdMs"
      | "spo2Percent"
      | "respiratoryRate"
      | "skinTempCelsius"
      | "skinTemperatureDeviationCelsius"
    >
  >,
  rawJson: string,
  partial: boolean
): RecoveryRecord => ({
  providerRecordId: dayRecoveryId(date),
  sleepId: null,
  date,
  scoreState: "SCORED",
  calibrating: null,
  recoveryScore: null,
  providerScoreScale: null,
  restingHeartRate: values.restingHeartRate ?? null,
  hrvRmssdMs: values.hrvRmssdMs ?? null,
  spo2Percent: values.spo2Percent ?? null,
  respiratoryRate: values.respiratoryRate ?? null,
  skinTempCelsius: values.skinTempCelsius ?? null,
  skinTemperatureDeviationCelsius: values.skinTemperatureDeviationCelsius ?? null,
  ...(partial ? { partial: true } : {}),
  rawJson
})

/**
 * The kinds of workout, a small list every provider's own names are mapped onto (`sportName` keeps the provider's
 * name): the contract's `ActivityType`.
 */
export const activityTypes = ActivityTypeSchema.literals
export type ActivityType = typeof ActivityTypeSchema.Type

const activityKeywords: ReadonlyArray<readonly [RegExp, ActivityType]> = [
  [/run|jog|treadmill/, "running"],
  [/cycl|bik|spin/, "cycling"],
  [/hik/, "hiking"],
  [/walk/, "walking"],
  [/swim/, "swimming"],
  [/strength|weight|lift|functional|crossfit|powerlift/, "strength"],
  [/yoga|pilates/, "yoga"],
  [/hiit|interval|bootcamp/, "hiit"],
  [/row/, "rowing"],
  [/elliptical|stair|stepper/, "elliptical"],
  [/ball|tennis|soccer|football|hockey|golf|rugby|badminton|squash|cricket|volley|lacrosse|padel/, "sports"]
]

/** The activity type of a provider's activity name, by keywords; `other` when none matches. */
export const activityTypeOfName = (name: string | null | undefined): ActivityType => {
  if (name === null || name === undefined) return "other"
  const text = name.toLowerCase().replace(/[^a-z]+/g, " ")
  for (const [pattern, type] of activityKeywords) if (pattern.test(text)) return type
  return "other"
}

/** A workout (Google Health `exercise`, Garmin activities, WHOOP workouts), dated by the local day it starts. */
export interface WorkoutRecord {
  readonly providerRecordId: string
  /** The local date of `start`. */
  readonly date: string
  readonly start: Date
  readonly end: Date
  readonly utcOffsetMinutes: number | null
  readonly activityType: ActivityType
  /** The provider's own name of the activity. */
  readonly sportName: string | null
  /** The active time when the provider says, else end - start. */
  readonly durationMinutes: number
  /** WHOOP's scoring state; `SCORED` for other providers. */
  readonly scoreState: string
  /** The provider's load score on `loadScoreScale` (WHOOP strain). */
  readonly strain: number | null
  readonly loadScoreScale: ProviderScoreScale | null
  readonly averageHeartRate: number | null
  readonly maxHeartRate: number | null
  /** Active energy, kcal. */
  readonly energyKilocalories: number | null
  readonly distanceMeters: number | null
  readonly steps: number | null
  readonly zoneDurationsJson: string
  readonly rawJson: string
}

/** The provider profile as read at one sync (WHOOP basic profile). */
export interface ProfileSnapshot {
  readonly providerRecordId: string
  readonly firstName: string | null
  readonly lastName: string | null
  readonly email: string | null
  readonly rawJson: string
}

/**
 * A body measurement (WHOOP body measurement, Garmin body composition, Google Health weight and body fat).
 * `date` is the local date of `measuredAt`; WHOOP gives no time of measurement: its snapshot is filed under the
 * UTC day it was read, measured at the read.
 */
export interface BodyMeasurementSnapshot {
  readonly providerRecordId: string
  /** The local date of the measurement (absent: filed under the day it was read). */
  readonly date?: string | undefined
  readonly measuredAt: Date | null
  readonly heightMeters: number | null
  readonly weightKilograms: number | null
  readonly bodyFatPercent: number | null
  readonly bmi: number | null
  readonly leanMassKilograms: number | null
  /** WHOOP: the member's maximum heart rate. */
  readonly maxHeartRate: number | null
  /** As for `RecoveryRecord.partial`: weight and body fat arriving as separate points of one measurement. */
  readonly partial?: boolean | undefined
  readonly rawJson: string
}

/** A Dexcom estimated glucose value. */
export interface GlucoseReadingRecord {
  readonly providerRecordId: string
  /** Local date of `displayTime` as the device shows it. */
  readonly date: string
  readonly systemTime: Date
  readonly displayTime: Date
  /** null when the provider reports none (kept as null). */
  readonly value: number | null
  readonly trend: string | null
  readonly trendRate: number | null
  readonly unit: string
  readonly rateUnit: string
  readonly status: string | null
  readonly transmitterId: string | null
  readonly rawJson: string
}

export interface GlucoseEventRecord {
  readonly providerRecordId: string
  readonly date: string
  readonly systemTime: Date
  readonly displayTime: Date
  readonly eventStatus: string | null
  readonly eventType: string
  readonly eventSubType: string | null
  readonly value: number | null
  readonly unit: string | null
  readonly rawJson: string
}

export interface GlucoseCalibrationRecord {
  readonly providerRecordId: string
  readonly date: string
  readonly systemTime: Date
  readonly displayTime: Date
  readonly value: number
  readonly unit: string
  readonly rawJson: string
}

/**
 * A provider record that could not be read (a field missing or malformed, an impossible date):
 * kept with its raw JSON and the reason, so it never blocks the other records of its window and
 * an operator can see what the provider sent. The server stores it once per connection, kind and
 * provider id (or raw JSON when the id itself is unreadable), and drops it when a record of the
 * same kind and id is later read well.
 */
export interface QuarantinedRecord {
  /**
   * The canonical kind it would have been: `DailyActivity`, `DailyLoad`, `Sleep`, `Recovery`,
   * `Workout`, `GlucoseReading`, `GlucoseEvent`, `GlucoseCalibration`, `Profile`, `BodyMeasurement`.
   */
  readonly kind: string
  /** The provider's id of the record, when one could be read. */
  readonly providerRecordId: string | null
  /** Short; names the failing field, never a value (a record may carry a token). */
  readonly reason: string
  readonly rawJson: string
}

/** Everything one fetch brought back; each list may be empty. */
export interface CanonicalBatch {
  readonly dailyActivity: ReadonlyArray<DailyActivityRecord>
  readonly dailyLoad: ReadonlyArray<DailyLoadRecord>
  readonly sleep: ReadonlyArray<SleepRecord>
  readonly recovery: ReadonlyArray<RecoveryRecord>
  readonly workouts: ReadonlyArray<WorkoutRecord>
  readonly profiles: ReadonlyArray<ProfileSnapshot>
  readonly bodyMeasurements: ReadonlyArray<BodyMeasurementSnapshot>
  readonly glucoseReadings: ReadonlyArray<GlucoseReadingRecord>
  readonly glucoseEvents: ReadonlyArray<GlucoseEventRecord>
  readonly glucoseCalibrations: ReadonlyArray<GlucoseCalibrationRecord>
  /** Records that could not be read; never counted as stored. */
  readonly quarantined: ReadonlyArray<QuarantinedRecord>
}

export const emptyBatch: CanonicalBatch = {
  dailyActivity: [],
  dailyLoad: [],
  sleep: [],
  recovery: [],
  workouts: [],
  profiles: [],
  bodyMeasurements: [],
  glucoseReadings: [],
  glucoseEvents: [],
  glucoseCalibrations: [],
  quarantined: []
}

export const batchSize = (batch: CanonicalBatch): number =>
  batch.dailyActivity.length + batch.dailyLoad.length + batch.sleep.length + batch.recovery.length +
  batch.workouts.length + batch.profiles.length + batch.bodyMeasurements.length + batch.glucoseReadings.length +
  batch.glucoseEvents.length + batch.glucoseCalibrations.length

/** Local calendar dates, both inclusive (`YYYY-MM-DD`). */
export interface DateWindow {
  readonly from: string
  readonly to: string
}

export interface FetchInput extends TokenInput {
  readonly providerUserId: string
  /** Now, for capping windows that reach into the future. */
  readonly now: Date
}

/**
 * A record a provider says it deleted, named by canonical kind. `RecoveryOfSleep` removes the
 * recoveries whose `sleepId` is the given id (WHOOP names a recovery by its sleep).
 */
export type CanonicalDeletion =
  | { readonly kind: "Sleep"; readonly providerRecordId: string }
  | { readonly kind: "Workout"; readonly providerRecordId: string }
  | { readonly kind: "Recovery"; readonly providerRecordId: string }
  | { readonly kind: "RecoveryOfSleep"; readonly sleepId: string }

/**
 * What a provider notification comes to: re-read a window (the notification only says that
 * something changed), store records (pushed, or read because of the notification), delete
 * records, or record the user's new grant. `Store` with an empty batch still counts as a sync.
 */
export type NotificationOutcome =
  | { readonly _tag: "Resync"; readonly window: DateWindow }
  | { readonly _tag: "Store"; readonly batch: CanonicalBatch }
  | { readonly _tag: "Delete"; readonly deletions: ReadonlyArray<CanonicalDeletion> }
  /**
   * The user changed what the app may read at the provider (Garmin's `userPermissionsChange`):
   * the connection's `scopes` become these (space separated); reads of what was withdrawn stop.
   */
  | { readonly _tag: "Scopes"; readonly scopes: string }

/** What runs once a backfill has stored its last window. */
export interface AfterBackfillInput extends FetchInput {
  /** Our id for the connection (Fitbit uses it as the subscription id). */
  readonly connectionId: string
  /**
   * Where the provider should send this app's notifications (`<PUBLIC_URL>/webhooks/<slug>/<appId>`), for a
   * provider whose subscriptions name a callback (Oura's per app, Withings' per user). The plug-in decides whether
   * its provider would accept it (the real providers want a public HTTPS address; a simulator takes any).
   */
  readonly webhookUrl: string
}

/**
 * How a provider's data is read. The sync engine cuts history into windows of at most
 * `windowDays` local days and calls `fetchWindow` for each; the adapter pages inside a window,
 * pads it as the provider's date semantics need (records outside the window are fine: storage
 * is idempotent), and normalises. Errors carry `status` and `retryAfterSeconds` (429) so the
 * engine can wait and resume.
 */
export interface ProviderData {
  readonly windowDays: number
  /** How far back a backfill may reach, in days. */
  readonly maxBackfillDays: number
  readonly fetchWindow: (
    input: FetchInput,
    window: DateWindow
  ) => Effect.Effect<CanonicalBatch, ProviderError, HttpClient.HttpClient>
  /**
   * The provider's set-up of a connection (Oura's app-level and Withings' per-user notification subscriptions):
   * runs after a backfill has stored its last window, then again with the connection's first sync a day later
   * (and the first after the server starts), so it must be idempotent. The caller logs a failure and carries on:
   * polling still covers the connection.
   */
  readonly afterBackfill?: (input: AfterBackfillInput) => Effect.Effect<void, ProviderError, HttpClient.HttpClient>
  /**
   * Turns one notification (a plain JSON value the provider's webhook receiver produced, possibly
   * read back from storage) into what to do. A value the provider cannot decode is a
   * `ProviderError`, not a defect.
   */
  readonly notify: (
    input: FetchInput,
    notification: unknown
  ) => Effect.Effect<NotificationOutcome, ProviderError, HttpClient.HttpClient>
}
