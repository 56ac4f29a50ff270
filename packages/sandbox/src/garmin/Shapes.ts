/**
 * What the Garmin simulator is and how it words things: permissions, lifetimes and limits, the
 * persisted state (OAuth 1.0a request and user access tokens, OAuth 2.0 codes and tokens, pull
 * tokens, registrations, backfills), the control (push, ping, backfill, permission-change and
 * deregistration senders) and Garmin's `{errorMessage}` errors.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import * as Response from "@effect/platform/HttpServerResponse"
import type * as Effect from "effect/Effect"
import type { Delivery } from "../core/Deliver.js"
import type { OAuth2State } from "../core/OAuth2.js"
import { freshOAuth2State } from "../core/OAuth2.js"
import type { SimulatorControl } from "../core/Options.js"
import type { ProviderStyle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { SimulatorCore } from "../core/SimulatorCore.js"
import type { GarminSummaryType } from "./Summaries.js"

/** The summary types served: dailies and those of `Summaries.ts`. */
export type GarminPulledType = "dailies" | GarminSummaryType

export const GARMIN_PERMISSIONS: ReadonlyArray<string> = [
  "ACTIVITY_EXPORT",
  "WORKOUT_IMPORT",
  "HEALTH_EXPORT",
  "COURSE_IMPORT",
  "MCT_EXPORT",
  "HISTORICAL_DATA_EXPORT"
]

export const REQUEST_TOKEN_TTL_MS = 10 * 60_000
export const MAX_PULL_SECONDS = 86_400
/** Health API v1.2.2: one backfill request covers at most 90 days. */
export const MAX_BACKFILL_SECONDS = 90 * 86_400
/** OAuth 2.0: access tokens live a day, refresh tokens about 90 days (`refresh_token_expires_in`). */
export const ACCESS_TTL_SECONDS = 86_400
export const REFRESH_TTL_SECONDS = 7_776_000
export const CODE_TTL_MS = 10 * 60_000
/** Pings are guaranteed for 7 days; their pull tokens last as long. */
export const PULL_TOKEN_TTL_MS = 7 * 86_400_000
/** What Garmin's identity service names in `scope`: API families, not the user's permissions. */
export const DI_SCOPE = "PARTNER_WRITE PARTNER_READ CONNECT_READ CONNECT_WRITE"
/** The permission the Health API's summaries (dailies, sleeps, hrv, pulse ox, body compositions) need. */
export const HEALTH_EXPORT = "HEALTH_EXPORT"
export const HISTORICAL_DATA_EXPORT = "HISTORICAL_DATA_EXPORT"
export const NONCE_MEMORY = 10_000

export interface RequestTokenRecord {
  readonly consumerKey: string
  readonly secret: string
  readonly callback: string | null
  readonly expiresAt: number
  verifier: string | null
  userId: string | null
  permissions: Array<string> | null
}

export interface UatRecord {
  readonly consumerKey: string
  readonly userId: string
  readonly secret: string
  /** Deregistered: the token is known but refused with 403, as Garmin answers a revoked token. */
  revoked?: boolean
}

export interface Registration {
  readonly consumerKey: string
  readonly userId: string
  permissions: Array<string>
  active: boolean
  /** The user's OAuth 1.0a token, while the user has one; pushes name it until the user moves to OAuth 2.0. */
  lastUat: string | null
  /** Connected with OAuth 2.0 or moved there by token exchange: pings carry a pull token, bodies no user access token. */
  oauth2?: boolean
}

/** A ping's pull token: the `token=` of its `callbackURL`, good for that user, summary type and upload window. */
export interface PullToken {
  readonly consumerKey: string
  readonly userId: string
  readonly start: number
  readonly end: number
  readonly expiresAt: number
  /** Absent in state saved when only dailies were served. */
  readonly summaryType?: GarminPulledType
}

export interface Backfill {
  readonly consumerKey: string
  readonly userId: string
  readonly start: number
  readonly end: number
  /** Absent in state saved when only dailies were served. */
  readonly summaryType?: GarminPulledType
}

export interface GarminState {
  users: Record<string, { readonly name: string }>
  /** OAuth 1.0a needs the raw secrets to check signatures, so this state holds real (sandbox) tokens. */
  requestTokens: Record<string, RequestTokenRecord>
  uats: Record<string, UatRecord>
  registrations: Record<string, Registration>
  pendingBackfills: Array<Backfill>
  backfillKeys: Array<string>
  /** OAuth 2.0 codes and tokens (stored under their hash); absent in state saved before OAuth 2.0 existed here. */
  o2?: OAuth2State
  /** Pull tokens by hash. */
  pullTokens?: Record<string, PullToken>
}

/** The OAuth 2.0 part of the state, created on first use. */
export const oauth2State = (state: GarminState): OAuth2State => (state.o2 ??= freshOAuth2State())
export const pullTokens = (state: GarminState): Record<string, PullToken> => (state.pullTokens ??= {})

export interface GarminControl extends SimulatorControl {
  /**
   * Pushes the user's dailies for `dates` (default: the user's local today) as they stand now.
   * `undefined` when the user is not registered with the client (nothing is sent).
   */
  readonly pushDailies: (
    url: string,
    input: {
      readonly userId: string
      readonly dates?: ReadonlyArray<string> | undefined
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /** A ping: the upload window and a `callbackURL` under B to pull it from. */
  readonly pingDailies: (
    url: string,
    input: {
      readonly userId: string
      readonly uploadStartTimeInSeconds: number
      readonly uploadEndTimeInSeconds: number
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /**
   * Pushes a summary type's summaries filed under `dates` (default: the user's local today) that are
   * uploaded by now (dailies: as they stand now). `undefined` when the user is not registered with
   * the client (nothing is sent).
   */
  readonly pushSummaries: (
    url: string,
    input: {
      readonly userId: string
      readonly summaryType: GarminPulledType
      readonly dates?: ReadonlyArray<string> | undefined
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /** A ping for a summary type: the upload window and a `callbackURL` under B to pull it from. */
  readonly pingSummaries: (
    url: string,
    input: {
      readonly userId: string
      readonly summaryType: GarminPulledType
      readonly uploadStartTimeInSeconds: number
      readonly uploadEndTimeInSeconds: number
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /**
   * Pushes the summaries of every pending backfill of the client (of its type, dated in its range
   * and uploaded by now), one request each; delivered ones are done.
   */
  readonly deliverBackfills: (
    url: string,
    options?: { readonly clientId?: string | undefined }
  ) => Effect.Effect<ReadonlyArray<Delivery>, HttpClientError, HttpClient.HttpClient>
  /**
   * The user changes what the app may read at Garmin: the registration's permissions become
   * `permissions` and a `userPermissionsChange` delivery is sent. `undefined` when the user is not
   * registered with the client.
   */
  readonly changePermissions: (
    url: string,
    input: {
      readonly userId: string
      readonly permissions: ReadonlyArray<string>
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  readonly sendDeregistration: (
    url: string,
    input: { readonly userId: string; readonly clientId?: string | undefined }
  ) => Effect.Effect<Delivery, HttpClientError, HttpClient.HttpClient>
  readonly pendingBackfills: () => ReadonlyArray<
    {
      readonly clientId: string
      readonly userId: string
      readonly start: number
      readonly end: number
      readonly summaryType: GarminPulledType
    }
  >
  /** The dailies a push would carry (for assertions without a receiver). */
  readonly dailies: (userId: string, dates: ReadonlyArray<string>) => ReadonlyArray<Record<string, unknown>>
  /** The summaries of a type a push for `dates` would carry now, without the user fields. */
  readonly summaries: (
    userId: string,
    summaryType: GarminPulledType,
    dates: ReadonlyArray<string>
  ) => ReadonlyArray<Record<string, unknown>>
}

export const garminError = (status: number, message: string, headers?: Record<string, string>) =>
  json({ errorMessage: message }, status, headers)

export const style: ProviderStyle = {
  error: (status, _code, message) => garminError(status, message),
  expiredToken: () => garminError(401, "Invalid or expired user access token"),
  rateLimited: (seconds) => garminError(429, "Rate limit exceeded", { "retry-after": String(seconds) })
}

export const formEncoded = (values: Record<string, string>) =>
  Response.text(new URLSearchParams(values).toString(), { contentType: "application/x-www-form-urlencoded" })

export const registrationKey = (consumerKey: string, userId: string) => `${consumerKey} ${userId}`

/** The simulator's core with Garmin's state. */
export type GarminCore = SimulatorCore<GarminState>
