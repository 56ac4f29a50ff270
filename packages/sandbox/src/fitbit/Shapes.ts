/**
 * What the Fitbit simulator is and how it words things: scopes and collections, lifetimes and
 * limits, the control (notification senders, subscriptions, signatures) and persisted state
 * shapes, Fitbit's `{errors, success}` bodies and its rate-limit headers.
 */
import type { HttpClient } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import type * as Effect from "effect/Effect"
import { parseBearer } from "../core/Credentials.js"
import type { Delivery } from "../core/Deliver.js"
import type { OAuth2State } from "../core/OAuth2.js"
import type { SimulatorControl } from "../core/Options.js"
import type { ProviderStyle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { SimulatorCore } from "../core/SimulatorCore.js"

export const FITBIT_SCOPES: ReadonlyArray<string> = [
  "activity",
  "cardio_fitness",
  "electrocardiogram",
  "heartrate",
  "irregular_rhythm_notifications",
  "location",
  "nutrition",
  "oxygen_saturation",
  "profile",
  "respiratory_rate",
  "settings",
  "sleep",
  "social",
  "temperature",
  "weight"
]

export const FITBIT_COLLECTIONS: ReadonlyArray<string> = ["activities", "body", "foods", "sleep", "userRevokedAccess"]

export const ACCESS_TTL_SECONDS = 28_800
export const CODE_TTL_MS = 10 * 60_000
/** Fitbit answers an identical refresh again until the new tokens are used; the span is not published. */
export const REFRESH_REPLAY_MS = 120_000
export const RATE_LIMIT = 150
export const HOUR_MS = 3_600_000

export interface FitbitSubscription {
  /** `"user"` for a subscription to all collections (no collection in the path). */
  readonly collectionType: string
  readonly ownerId: string
  readonly ownerType: "user"
  readonly subscriberId: string
  readonly subscriptionId: string
}

export interface FitbitNotification {
  readonly collectionType: string
  readonly date: string
  readonly ownerId: string
  readonly ownerType: "user"
  readonly subscriptionId: string
}

export interface SubscriberVerification {
  /** Status answered to the right code: a correct subscriber says 204. */
  readonly correctCodeStatus: number
  /** Status answered to a wrong code: a correct subscriber says 404. */
  readonly wrongCodeStatus: number
  readonly verified: boolean
}

export interface FitbitControl extends SimulatorControl {
  /** POSTs the notifications as one JSON array, signed with the client's secret. */
  readonly sendNotification: (
    url: string,
    notifications: ReadonlyArray<FitbitNotification>,
    options?: { readonly clientId?: string | undefined }
  ) => Effect.Effect<Delivery, HttpClientError, HttpClient.HttpClient>
  /**
   * Notifies `url` of new data for the owner on `date`, one entry per matching subscription of
   * the client (a subscription to all collections matches every collection). `undefined` when
   * the owner has no matching subscription.
   */
  readonly notifySubscribers: (
    url: string,
    event: {
      readonly ownerId: string
      readonly collectionType: string
      readonly date: string
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /** Fitbit's two verification GETs (`?verify=`): the right code, then a wrong one. */
  readonly verifySubscriber: (
    url: string,
    verificationCode: string
  ) => Effect.Effect<SubscriberVerification, HttpClientError, HttpClient.HttpClient>
  readonly subscriptions: (clientId?: string) => ReadonlyArray<FitbitSubscription>
  /** `X-Fitbit-Signature` of a body for the client (default: the first one). */
  readonly signature: (body: string, clientId?: string) => string
}

export interface StoredSubscription extends FitbitSubscription {
  readonly clientId: string
  /** Absent for all collections. */
  readonly collection: string | null
}

export interface FitbitState extends OAuth2State {
  subscriptions: Array<StoredSubscription>
}

export const fitbitError = (status: number, errorType: string, message: string, headers?: Record<string, string>) =>
  json({ errors: [{ errorType, message }], success: false }, status, headers)

export const rateHeaders = (remaining: number, resetSeconds: number): Record<string, string> => ({
  "fitbit-rate-limit-limit": String(RATE_LIMIT),
  "fitbit-rate-limit-remaining": String(remaining),
  "fitbit-rate-limit-reset": String(resetSeconds)
})

export const tooMany = (retryAfterSeconds: number) =>
  json(
    { errors: [{ errorType: "system", fieldName: "n/a", message: "Too Many Requests" }], success: false },
    429,
    { "retry-after": String(retryAfterSeconds), ...rateHeaders(0, retryAfterSeconds) }
  )

export const style: ProviderStyle = {
  error: (status, code, message) =>
    status === 500
      ? json({ errors: [{ errorType: "system", fieldName: "n/a", message }], success: false }, 500)
      : fitbitError(status, code, message),
  expiredToken: (req) =>
    fitbitError(401, "expired_token", `Access token expired: ${parseBearer(req.headers["authorization"]) ?? ""}`),
  rateLimited: tooMany
}

export const collectionScopes: Record<string, ReadonlyArray<string>> = {
  activities: ["activity"],
  body: ["weight"],
  foods: ["nutrition"],
  sleep: ["sleep"],
  userRevokedAccess: []
}
export const allCollectionScopes = ["activity", "nutrition", "profile", "settings", "sleep", "weight"]

/** The simulator's core with Fitbit's state. */
export type FitbitCore = SimulatorCore<FitbitState>

/** Answers to a refresh, kept so an identical refresh within the replay window gets them again. */
export type RefreshReplays = Map<string, { until: number; accessKey: string; refreshKey: string; body: unknown }>
