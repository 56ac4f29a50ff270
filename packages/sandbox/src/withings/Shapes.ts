/**
 * What the Withings simulator is and how it words things: scopes, lifetimes, page sizes and the app-wide limit,
 * its state (the shared OAuth 2.0 bookkeeping, signature nonces, notification subscriptions), the control, and
 * Withings' answer: HTTP 200 with `{status, body}` for success and failure alike (api-reference, "Response
 * Status").
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import type * as Effect from "effect/Effect"
import type { Delivery } from "../core/Deliver.js"
import type { OAuth2State } from "../core/OAuth2.js"
import { freshOAuth2State } from "../core/OAuth2.js"
import type { SimulatorControl } from "../core/Options.js"
import { sha256 } from "../core/Random.js"
import type { ProviderStyle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { SimulatorCore } from "../core/SimulatorCore.js"

export const WITHINGS_SCOPES: ReadonlyArray<string> = ["user.info", "user.metrics", "user.activity", "user.sleepevents"]

/** `expires_in` of every access token (api-reference, "OAuth 2.0 - Request Access and Refresh Tokens"). */
export const ACCESS_TTL_SECONDS = 10_800
/** "Please note that the authorization code is only valid for 30 seconds." */
export const CODE_TTL_MS = 30_000
/** A nonce is valid 30 minutes (Signature v2 - Getnonce). */
export const NONCE_TTL_MS = 30 * 60_000
/** The free plan: 120 requests a minute for the whole app. */
export const MINUTE_LIMIT = 120

/** Small pages, so clients must follow `more`/`offset` (Withings does not document its page sizes). */
export const PAGE_SIZE = { measures: 10, activity: 7, workouts: 4, sleep: 7 } as const

/** Notification categories the simulator accepts, with the scope each needs (Notification categories). */
export const APPLI_SCOPES: Readonly<Record<number, string>> = {
  1: "user.metrics",
  2: "user.metrics",
  4: "user.metrics",
  16: "user.activity",
  44: "user.activity",
  46: "user.info",
  50: "user.sleepevents",
  51: "user.sleepevents"
}

export interface Subscription {
  readonly clientId: string
  readonly userId: string
  readonly appli: number
  readonly callbackurl: string
  readonly comment: string | null
}

export interface WithingsState extends OAuth2State {
  /** Nonces issued by `/v2/signature`, under their hash, with their expiry; deleted when used. */
  nonces: Record<string, { readonly clientId: string; readonly expiresAt: number }>
  /** Keyed `clientId userId appli callbackurl`. */
  subscriptions: Record<string, Subscription>
}

export const freshWithingsState = (): WithingsState => ({ ...freshOAuth2State(), nonces: {}, subscriptions: {} })

export type WithingsCore = SimulatorCore<WithingsState>

/** Withings' user id of a consent-page user name: an integer, like the live ids, derived from the name only. */
export const withingsUserId = (name: string): string =>
  String(1_000_000 + (sha256("withings-user", name).readUInt32BE(0) % 90_000_000))

/** A success: `{status: 0, body}`. */
export const ok = (body: unknown) => json({ status: 0, body })

/** A failure, as Withings answers one: HTTP 200, the status, an empty body and the error text. */
export const failure = (status: number, error: string) => json({ status, body: {}, error })

export const invalidToken = () =>
  failure(401, "XRequestID: Not provided invalid_token: The access token provided is invalid")
export const tooMany = () => failure(601, "Too many requests")
export const invalidParams = (what: string) => failure(503, `Invalid Params: ${what}`)
export const unauthorized = () => failure(214, "Unauthorized")

export const style: ProviderStyle = {
  // an unknown service is "Not implemented"; 410 stays HTTP (an API shut down under its clients answers no envelope)
  error: (status, _code, message) =>
    status === 404
      ? failure(2554, "Not implemented")
      : status === 410
      ? json({ status: 410, body: {}, error: message }, 410)
      : failure(5000, "An error occurred"),
  expiredToken: () => invalidToken(),
  rateLimited: () => tooMany()
}

export type WithingsKind = "measures" | "activity" | "workouts" | "sleep"

export interface WithingsControl extends SimulatorControl {
  /**
   * Sends a notification of `appli` for the user to every callback URL subscribed to it (by any client, or by
   * `clientId`), as Withings does: a form POST of `userid`, `appli` and the range (`startdate`/`enddate`, Unix
   * seconds) or `date`. One delivery per subscription; none when nothing is subscribed.
   */
  readonly sendNotification: (
    userId: string,
    appli: number,
    range: {
      readonly startdate?: number | undefined
      readonly enddate?: number | undefined
      readonly date?: string | undefined
      readonly action?: string | undefined
    },
    clientId?: string
  ) => Effect.Effect<ReadonlyArray<Delivery>, HttpClientError, HttpClient.HttpClient>
  /** The user's subscriptions (every client's). */
  readonly subscriptions: (userId: string) => ReadonlyArray<Subscription>
  /** Every record of a kind the user has from `from` to `to` (local dates, both inclusive), as the API serves it. */
  readonly records: (
    userId: string,
    kind: WithingsKind,
    range: { readonly from: string; readonly to: string }
  ) => ReadonlyArray<Record<string, unknown>>
}
