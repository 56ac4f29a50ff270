/**
 * What the WHOOP simulator is and how it words things: scopes, webhook event types, lifetimes
 * and limits, the control (webhook sender, record lookups), and Hydra-style errors with WHOOP's
 * rate-limit headers.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import type * as Effect from "effect/Effect"
import type { Delivery } from "../core/Deliver.js"
import type { OAuth2State } from "../core/OAuth2.js"
import type { SimulatorControl } from "../core/Options.js"
import type { ProviderStyle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { SimulatorCore } from "../core/SimulatorCore.js"

export const WHOOP_SCOPES: ReadonlyArray<string> = [
  "offline",
  "read:recovery",
  "read:cycles",
  "read:workout",
  "read:sleep",
  "read:profile",
  "read:body_measurement"
]

export type WhoopEventType =
  | "workout.updated"
  | "workout.deleted"
  | "sleep.updated"
  | "sleep.deleted"
  | "recovery.updated"
  | "recovery.deleted"

export const ACCESS_TTL_SECONDS = 3600
export const CODE_TTL_MS = 10 * 60_000
export const MINUTE_LIMIT = 100
export const DAY_LIMIT = 10_000
export const MAX_LIMIT = 25
export const DEFAULT_LIMIT = 10
export const SLEEP_PENDING_MS = 30 * 60_000
export const WORKOUT_PENDING_MS = 15 * 60_000
/** How long a finished cycle stays PENDING_SCORE before WHOOP scores it. */
export const CYCLE_PENDING_MS = 30 * 60_000

export interface WhoopControl extends SimulatorControl {
  /**
   * Sends a v2 webhook (`{user_id, id, type, trace_id}`) signed with the client's secret.
   * `undefined` when the user has revoked the client (WHOOP stops webhooks then).
   */
  readonly sendWebhook: (
    url: string,
    event: {
      readonly userId: number
      readonly type: WhoopEventType
      readonly id: string
      readonly clientId?: string | undefined
    }
  ) => Effect.Effect<Delivery | undefined, HttpClientError, HttpClient.HttpClient>
  /**
   * A fault: the records of `kind` of the user's local day `daysAgo` days before now are served
   * malformed (a cycle, sleep or workout with `start` not a date-time, a recovery with a numeric
   * `score_state`), in pages and by id, until `mendRecords`. Also `POST /_sim/malformed-records`
   * with `{"userId", "kind", "daysAgo"}` and `DELETE /_sim/malformed-records`.
   */
  readonly malformRecords: (userId: number, kind: "cycle" | "sleep" | "recovery" | "workout", daysAgo: number) => void
  readonly mendRecords: () => void
  /** The newest visible record of a kind for a user, as the API would return it. */
  readonly latest: (
    userId: number,
    kind: "cycle" | "sleep" | "recovery" | "workout"
  ) => Record<string, unknown> | undefined
  /**
   * Every visible record of a kind that a collection query with `start`/`end` (ms; `end`
   * defaults to now) would page through, newest first, as the API would return them.
   */
  readonly records: (
    userId: number,
    kind: "cycle" | "sleep" | "recovery" | "workout",
    range?: { readonly start?: number | undefined; readonly end?: number | undefined }
  ) => ReadonlyArray<Record<string, unknown>>
}

export const hydraError = (status: number, error: string, description: string, headers?: Record<string, string>) =>
  json({ error, error_description: description, status_code: status }, status, headers)

export const RATE_LIMIT_HEADER = `${MINUTE_LIMIT}, ${MINUTE_LIMIT};window=60, ${DAY_LIMIT};window=86400`

export const tooMany = (retryAfterSeconds: number, remaining = 0) =>
  hydraError(429, "too_many_requests", "Rate limit exceeded", {
    "retry-after": String(retryAfterSeconds),
    "x-ratelimit-limit": RATE_LIMIT_HEADER,
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": String(retryAfterSeconds)
  })

export const style: ProviderStyle = {
  error: (status, code, message) => hydraError(status, code, message),
  expiredToken: () => hydraError(401, "invalid_token", "Token expired. The access token expired."),
  rateLimited: (seconds) => tooMany(seconds)
}

export const GRANT_ERROR =
  "The provided authorization grant (e.g., authorization code, resource owner credentials) or " +
  "refresh token is invalid, expired, revoked, does not match the redirection URI used in the authorization " +
  "request, or was issued to another client."

/** The simulator's core with WHOOP's state (the shared OAuth 2.0 bookkeeping, nothing more). */
export type WhoopCore = SimulatorCore<OAuth2State>
