/**
 * What the Dexcom simulator is and how it words things: its type, limits and lifetimes, the
 * sandbox users Dexcom documents, and its `{"error","error_description"}` errors.
 */
import type { OAuth2State } from "../core/OAuth2.js"
import { DAY_MS } from "../core/Random.js"
import type { ProviderStyle } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { SimulatorCore } from "../core/SimulatorCore.js"

export const ACCESS_TTL_SECONDS = 7200
export const CODE_TTL_MS = 10 * 60_000
export const RATE_LIMIT = 60_000
export const HOUR_MS = 3_600_000
export const SLOT_MS = 300_000
export const MAX_WINDOW_MS = 30 * DAY_MS
export const DATA_DELAY_MS = HOUR_MS
export const SESSION_MS = 10 * DAY_MS

export const DEXCOM_SANDBOX_USERS: ReadonlyArray<string> = [1, 2, 3, 4, 5, 6, 7].map((n) => `SandboxUser${n}`)

export const dexcomError = (status: number, error: string, description: string, headers?: Record<string, string>) =>
  json({ error, error_description: description }, status, headers)

export const style: ProviderStyle = {
  error: (status, code, message) => dexcomError(status, code, message),
  expiredToken: () => dexcomError(401, "invalid_token", "Access token expired"),
  rateLimited: (seconds) => dexcomError(429, "rate_limited", "Too many requests", { "retry-after": String(seconds) })
}

/** The simulator's core with Dexcom's state (the shared OAuth 2.0 bookkeeping, nothing more). */
export type DexcomCore = SimulatorCore<OAuth2State>
