/**
 * What the Oura simulator is and how it words things: scopes and the scope of each collection, lifetimes and
 * limits, the persisted state (OAuth bookkeeping and the app-level webhook subscriptions), the control, and
 * Oura's error bodies (RFC 7807 `{status, title, detail}` at the API, RFC 6749 `{error, error_description}` at
 * the OAuth endpoints, FastAPI's `{"detail": [...]}` for a query that does not validate).
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import type * as Effect from "effect/Effect"
import type { Delivery } from "../core/Deliver.js"
import type { OAuth2State } from "../core/OAuth2.js"
import { freshOAuth2State } from "../core/OAuth2.js"
import type { SimulatorControl } from "../core/Options.js"
import { sha256Hex, uuidFrom } from "../core/Random.js"
import type { ProviderStyle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { SimulatorCore } from "../core/SimulatorCore.js"

/** The scopes Oura's consent page offers (cloud.ouraring.com/docs/authentication). */
export const OURA_SCOPES: ReadonlyArray<string> = [
  "email",
  "personal",
  "daily",
  "heartrate",
  "workout",
  "tag",
  "session",
  "spo2"
]

/** The collections served, with the scope each needs (the docs do not map them; public clients do so). */
export const COLLECTIONS = {
  daily_activity: "daily",
  sleep: "daily",
  daily_sleep: "daily",
  daily_readiness: "daily",
  daily_spo2: "spo2",
  workout: "workout"
} as const
export type OuraCollection = keyof typeof COLLECTIONS
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as ReadonlyArray<OuraCollection>

/** The data types a webhook subscription may name (`ExtApiV2DataType`). */
export const WEBHOOK_DATA_TYPES: ReadonlyArray<string> = [
  "tag",
  "enhanced_tag",
  "workout",
  "session",
  "sleep",
  "daily_sleep",
  "daily_readiness",
  "daily_activity",
  "daily_spo2",
  "sleep_time",
  "rest_mode_period",
  "ring_configuration",
  "daily_stress",
  "daily_cardiovascular_age",
  "daily_resilience",
  "vo2_max"
]
export const WEBHOOK_EVENT_TYPES: ReadonlyArray<string> = ["create", "update", "delete"]

/** A day, as Oura's sample token responses give it. */
export const ACCESS_TTL_SECONDS = 86_400
export const CODE_TTL_MS = 10 * 60_000
/** Documented: 300 requests a minute and 5,000 a day (counted here per user and app). */
export const MINUTE_LIMIT = 300
export const DAY_LIMIT = 5000
/** Small pages, so that a client that does not follow `next_token` misses data. */
export const PAGE_SIZE = 5
/** How long after a night or workout ends its documents appear (the ring syncs through the phone). */
export const SYNC_DELAY_MS = 30 * 60_000
/** The docs name no lifetime of a webhook subscription; public clients renew them weekly. */
export const SUBSCRIPTION_TTL_MS = 90 * 86_400_000

export interface Subscription {
  readonly id: string
  readonly clientId: string
  callbackUrl: string
  verificationToken: string
  eventType: string
  dataType: string
  expiresAt: number
}

export interface OuraState extends OAuth2State {
  subscriptions: Record<string, Subscription>
}

export const freshOuraState = (): OuraState => ({ ...freshOAuth2State(), subscriptions: {} })

export type OuraCore = SimulatorCore<OuraState>

/** Oura user ids, derived from the consent-page name only (so they survive seed changes). */
export const ouraUserId = (name: string): string => uuidFrom(sha256Hex("oura-user", name))

export interface OuraEvent {
  readonly userId: string
  readonly dataType: OuraCollection
  readonly eventType: "create" | "update" | "delete"
  /** The document's id (default: the first document of `dataType` on `day`). */
  readonly objectId?: string | undefined
  /** The user's local day whose document changed (default: the newest day with one). */
  readonly day?: string | undefined
}

export interface OuraControl extends SimulatorControl {
  /**
   * Notifies every subscription of the event's data and event type that is live (not expired), for each client
   * the user is connected to: a POST of `{event_type, data_type, object_id, user_id, event_time}` signed with
   * `x-oura-signature` over `x-oura-timestamp` + body. The deliveries made (none when nobody is subscribed).
   */
  readonly notify: (
    event: OuraEvent
  ) => Effect.Effect<ReadonlyArray<Delivery>, HttpClientError, HttpClient.HttpClient>
  /** The app-level subscriptions, as `GET /v2/webhook/subscription` lists them for `clientId` (all clients by default). */
  readonly subscriptions: (clientId?: string) => ReadonlyArray<Record<string, unknown>>
  /** Moves every subscription's expiry to `nowMs + inMs` (0: expired now), to exercise renewal. */
  readonly expireSubscriptions: (inMs: number) => void
  /** Every document of a collection a user has on the local days `from`..`to`, as the API serves them. */
  readonly documents: (
    userId: string,
    collection: OuraCollection,
    from: string,
    to: string
  ) => ReadonlyArray<Record<string, unknown>>
  /**
   * A fault: the user's documents of `collection` on local day `day` are served malformed (a required field
   * wrong) in pages and by id, until `mendRecords`. Also `POST /_sim/malformed-records` with
   * `{"userId", "collection", "day"}` and `DELETE /_sim/malformed-records`.
   */
  readonly malformRecords: (userId: string, collection: OuraCollection, day: string) => void
  readonly mendRecords: () => void
}

/** Oura's API error body (RFC 7807). */
export const problem = (status: number, title: string, detail?: string, headers?: Record<string, string>) =>
  json({ status, title, ...(detail === undefined ? {} : { detail }) }, status, headers)

/** Oura's OAuth error body (RFC 6749, with the RFC 7807 fields Oura adds). */
export const oauthError = (status: number, error: string, description: string) =>
  json({ status, title: description, error, error_description: description }, status)

/** FastAPI's answer to a query that does not validate. */
export const validationError = (parameter: string, message: string) =>
  json({ detail: [{ loc: ["query", parameter], msg: message, type: "value_error" }] }, 422)

export const tooMany = (retryAfterSeconds: number) =>
  problem(429, "Request Rate Limit Exceeded", "Too many requests; retry later.", {
    "retry-after": String(retryAfterSeconds)
  })

export const style: ProviderStyle = {
  error: (status, _code, message) => problem(status, message),
  expiredToken: () => problem(401, "Expired Token", "Token has expired."),
  rateLimited: (seconds) => tooMany(seconds)
}
