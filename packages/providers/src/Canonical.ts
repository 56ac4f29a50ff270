/**
 * Canonical health records: what the normalisers make of each provider's JSON and what the
 * server stores. Every record carries its provider's natural key (`providerRecordId`), the
 * user's local calendar `date` as the provider defines it, and the provider's raw JSON.
 *
 * Units: distances in metres, energy in kcal, durations in minutes unless a field says
 * otherwise, heart rates in bpm, glucose as the provider reports it (`unit` names it).
 * Timestamps are `Date`s (UTC instants). `null` means the provider did not report the value.
 */
import type { HttpClient } from "@effect/platform"
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

/** A sleep session (WHOOP sleep). */
export interface SleepRecord {
  readonly providerRecordId: string
  /** Local date of the sleep's end (the morning it ends). */
  readonly date: string
  readonly start: Date
  readonly end: Date
  readonly nap: boolean
  readonly scoreState: string
  readonly inBedMinutes: number | null
  readonly awakeMinutes: number | null
  readonly lightMinutes: number | null
  readonly deepMinutes: number | null
  readonly remMinutes: number | null
  /** Sleep need (baseline + debt + strain + nap adjustments), minutes. */
  readonly sleepNeedMinutes: number | null
  readonly respiratoryRate: number | null
  readonly performancePercent: number | null
  readonly consistencyPercent: number | null
  readonly efficiencyPercent: number | null
  readonly disturbanceCount: number | null
  readonly rawJson: string
}

/** A recovery (WHOOP, one per cycle). */
export interface RecoveryRecord {
  /** WHOOP cycle id. */
  readonly providerRecordId: string
  readonly sleepId: string | null
  /** Local date of the cycle it belongs to. */
  readonly date: string
  readonly scoreState: string
  readonly calibrating: boolean | null
  readonly recoveryScore: number | null
  readonly restingHeartRate: number | null
  readonly hrvRmssdMs: number | null
  readonly spo2Percent: number | null
  readonly skinTempCelsius: number | null
  readonly rawJson: string
}

/** An activity session (WHOOP workout). */
export interface WorkoutRecord {
  readonly providerRecordId: string
  readonly date: string
  readonly start: Date
  readonly end: Date
  readonly sportName: string | null
  readonly scoreState: string
  readonly strain: number | null
  readonly averageHeartRate: number | null
  readonly maxHeartRate: number | null
  readonly energyKilocalories: number | null
  readonly distanceMeters: number | null
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

/** Body measurements as read at one sync (WHOOP). */
export interface BodyMeasurementSnapshot {
  readonly providerRecordId: string
  readonly heightMeters: number | null
  readonly weightKilograms: number | null
  readonly maxHeartRate: number | null
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
   * Runs after a backfill has stored its last window (Fitbit subscribes to notifications). The
   * caller logs a failure and carries on: polling still covers the connection.
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
