/**
 * What the Google Health API simulator is and how it words things: Google's scopes and the data
 * types (with the scope each needs and whether it rolls up by day), lifetimes and limits, the
 * control (notification senders, subscriber verification) and persisted state, Google's two error
 * bodies (`{error, error_description}` at the token endpoint, `{error:{code,message,status}}` at
 * the API) and the ids of a simulated Google account.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import type * as Effect from "effect/Effect"
import type { Delivery } from "../core/Deliver.js"
import type { OAuth2State } from "../core/OAuth2.js"
import type { SimulatorControl } from "../core/Options.js"
import { sha256 } from "../core/Random.js"
import type { ProviderStyle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { SimulatorCore } from "../core/SimulatorCore.js"

const prefix = "https://www.googleapis.com/auth/googlehealth."

export const scopes = {
  activity: `${prefix}activity_and_fitness.readonly`,
  healthMetrics: `${prefix}health_metrics_and_measurements.readonly`,
  nutrition: `${prefix}nutrition.readonly`,
  profile: `${prefix}profile.readonly`,
  settings: `${prefix}settings.readonly`,
  sleep: `${prefix}sleep.readonly`
} as const

/** Every scope the consent page knows: Google's read and write Health scopes, and sign-in's. */
export const GOOGLE_HEALTH_SCOPES: ReadonlyArray<string> = [
  ...["activity_and_fitness", "health_metrics_and_measurements", "nutrition", "profile", "settings", "sleep"]
    .flatMap((s) => [`${prefix}${s}.readonly`, `${prefix}${s}.writeonly`]),
  `${prefix}ecg.readonly`,
  `${prefix}irn.readonly`,
  `${prefix}location.readonly`,
  "openid",
  "email",
  "profile"
]

/** The data types (kebab case), the read scope each needs, and whether `dailyRollUp` takes it. */
export const DATA_TYPES: Readonly<Record<string, { readonly scope: string; readonly dailyRollUp: boolean }>> = {
  "active-energy-burned": { scope: scopes.activity, dailyRollUp: true },
  "active-minutes": { scope: scopes.activity, dailyRollUp: true },
  "active-zone-minutes": { scope: scopes.activity, dailyRollUp: true },
  "activity-level": { scope: scopes.activity, dailyRollUp: false },
  altitude: { scope: scopes.activity, dailyRollUp: true },
  "basal-energy-burned": { scope: scopes.activity, dailyRollUp: false },
  "blood-glucose": { scope: scopes.healthMetrics, dailyRollUp: true },
  "body-fat": { scope: scopes.healthMetrics, dailyRollUp: true },
  "calories-in-heart-rate-zone": { scope: scopes.activity, dailyRollUp: true },
  // the discovery document says these roll up to a personal range; the live API answers that they do not
  "daily-heart-rate-variability": { scope: scopes.healthMetrics, dailyRollUp: false },
  "daily-oxygen-saturation": { scope: scopes.healthMetrics, dailyRollUp: false },
  "daily-resting-heart-rate": { scope: scopes.healthMetrics, dailyRollUp: false },
  "daily-respiratory-rate": { scope: scopes.healthMetrics, dailyRollUp: false },
  "daily-sleep-temperature-derivations": { scope: scopes.healthMetrics, dailyRollUp: false },
  distance: { scope: scopes.activity, dailyRollUp: true },
  exercise: { scope: scopes.activity, dailyRollUp: false },
  floors: { scope: scopes.activity, dailyRollUp: true },
  "heart-rate": { scope: scopes.healthMetrics, dailyRollUp: true },
  "hydration-log": { scope: scopes.nutrition, dailyRollUp: true },
  "nutrition-log": { scope: scopes.nutrition, dailyRollUp: true },
  "sedentary-period": { scope: scopes.activity, dailyRollUp: true },
  sleep: { scope: scopes.sleep, dailyRollUp: false },
  steps: { scope: scopes.activity, dailyRollUp: true },
  "time-in-heart-rate-zone": { scope: scopes.activity, dailyRollUp: true },
  "total-calories": { scope: scopes.activity, dailyRollUp: true },
  weight: { scope: scopes.healthMetrics, dailyRollUp: true }
}

/** `dailyRollUp`'s longest range: 14 days for these, 90 for the others. */
export const SHORT_RANGE_TYPES: ReadonlyArray<string> = [
  "calories-in-heart-rate-zone",
  "heart-rate",
  "active-minutes",
  "total-calories"
]
export const SHORT_RANGE_DAYS = 14
export const LONG_RANGE_DAYS = 90
export const DEFAULT_PAGE_SIZE = 1440
export const MAX_PAGE_SIZE = 10_000
/** `sleep` and `exercise` lists: 25 a page by default and at most. */
export const SESSION_PAGE_SIZE = 25

/**
 * The data types Google sends notifications for (its webhook guide), less the ones it never notifies although
 * listed elsewhere: active minutes and active energy change only at a client's periodic read.
 */
export const NOTIFIED_DATA_TYPES: ReadonlyArray<string> = [
  "active-zone-minutes",
  "altitude",
  "body-fat",
  "calories-in-heart-rate-zone",
  "daily-heart-rate-variability",
  "daily-heart-rate-zones",
  "daily-oxygen-saturation",
  "daily-respiratory-rate",
  "daily-resting-heart-rate",
  "daily-sleep-temperature-derivations",
  "distance",
  "exercise",
  "floors",
  "heart-rate",
  "sedentary-period",
  "sleep",
  "steps",
  "total-calories",
  "weight"
]

export const ACCESS_TTL_SECONDS = 3599
export const CODE_TTL_MS = 10 * 60_000
/** Per user, per minute (the project-wide quotas are far above what a sandbox sees). */
export const RATE_LIMIT = 300
export const MINUTE_MS = 60_000

/** A simulated Google account's Health user id (digits) and its legacy Fitbit id. */
export const healthUserIdOf = (name: string): string =>
  sha256("google-health-user", name).readBigUInt64BE(0).toString().padStart(20, "0")

/** One notification as Google POSTs it. */
export interface GoogleHealthNotificationBody {
  readonly data: {
    readonly version: string
    readonly clientProvidedSubscriptionName?: string
    readonly healthUserId: string
    readonly operation: "UPSERT" | "DELETE"
    readonly dataType: string
    readonly intervals: ReadonlyArray<{
      readonly physicalTimeInterval: { readonly startTime: string; readonly endTime: string }
      readonly civilIso8601TimeInterval: { readonly startTime: string; readonly endTime: string }
    }>
  }
}

export interface SubscriberVerification {
  /** What the endpoint answered with the `Authorization` value (a good endpoint: 201). */
  readonly withAuthorizationStatus: number
  /** What it answered without it (a good endpoint: 401 or 403). */
  readonly withoutAuthorizationStatus: number
  readonly verified: boolean
}

export interface FitbitControl extends SimulatorControl {
  /** POSTs one notification body (or several as a list) with the subscriber's `Authorization` value. */
  readonly sendNotification: (
    url: string,
    body: GoogleHealthNotificationBody | ReadonlyArray<GoogleHealthNotificationBody>,
    authorization: string | null
  ) => Effect.Effect<Delivery, HttpClientError, HttpClient.HttpClient>
  /**
   * Notifies `url` that the user's `dataType` changed on the civil days `from`..`to`. A data type Google sends no
   * notification for (`active-minutes`, `active-energy-burned`) is a defect: nothing is sent.
   */
  readonly notifyChange: (
    url: string,
    change: {
      readonly healthUserId: string
      readonly dataType: string
      readonly from: string
      readonly to: string
      readonly authorization: string
    }
  ) => Effect.Effect<Delivery, HttpClientError, HttpClient.HttpClient>
  /** The Tink JSON public keyset the simulator's notifications verify with (the form Google publishes). */
  readonly webhookKeyset: () => string
  /** Google's two verification POSTs of `{"type":"verification"}`: with the `Authorization` value, then without. */
  readonly verifySubscriber: (
    url: string,
    authorization: string
  ) => Effect.Effect<SubscriberVerification, HttpClientError, HttpClient.HttpClient>
}

export interface FitbitState extends OAuth2State {
  /** Users who gave an app offline access before: Google sends a refresh token again only with `prompt=consent`. */
  offline: Record<string, true>
  /** Codes (by token key) whose exchange brings a refresh token. */
  offlineCodes: Record<string, true>
}

/** The `google.rpc.Code` name of an HTTP status, as Google writes it in `error.status`. */
export const statusName = (status: number): string => {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT"
    case 401:
      return "UNAUTHENTICATED"
    case 403:
      return "PERMISSION_DENIED"
    case 404:
      return "NOT_FOUND"
    case 409:
      return "ALREADY_EXISTS"
    case 410:
      return "GONE"
    case 429:
      return "RESOURCE_EXHAUSTED"
    case 503:
      return "UNAVAILABLE"
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"
  }
}

/** The API's error body, with `google.rpc` details when Google gives a reason. */
export const googleError = (
  status: number,
  message: string,
  headers?: Record<string, string>,
  details?: ReadonlyArray<Record<string, unknown>>
) =>
  json(
    { error: { code: status, message, status: statusName(status), ...(details === undefined ? {} : { details }) } },
    status,
    headers
  )

/** Google's refusal of a roll-up over a longer range than the data type allows (an `ErrorInfo` detail). */
export const rollupTooLong = (dataType: string, maxDays: number) =>
  googleError(400, `The maximum query duration for ${dataType} is ${maxDays} days.`, undefined, [{
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    reason: "INVALID_ROLLUP_QUERY_DURATION",
    domain: "health.googleapis.com",
    metadata: { dataType, maxDurationDays: String(maxDays) }
  }])

/** The token and revoke endpoints' RFC 6749 body. */
export const oauthError = (status: number, error: string, description: string) =>
  json({ error, error_description: description }, status)

export const invalidCredentials =
  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."

export const style: ProviderStyle = {
  error: (status, _code, message) => googleError(status, message),
  expiredToken: () => googleError(401, invalidCredentials),
  // Google sends no Retry-After: clients back off on their own
  rateLimited: () =>
    googleError(429, "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute per user'.")
}

/** The simulator's core with its state. */
export type FitbitCore = SimulatorCore<FitbitState>
