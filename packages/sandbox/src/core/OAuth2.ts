/**
 * The OAuth 2.0 bookkeeping the Fitbit, WHOOP and Dexcom simulators share: users named on the
 * consent page, authorization codes, access and refresh tokens grouped by grant, PKCE checks.
 * Tokens are kept under their hash, so a file store never holds a usable token. Provider
 * policy (lifetimes, rotation and replay rules, error wording) stays in the provider modules.
 */
import * as crypto from "node:crypto"
import { randomToken, tokenKey } from "./Random.js"

export interface CodeRecord {
  readonly clientId: string
  readonly userId: string
  readonly redirectUri: string | null
  readonly scope: string
  readonly challenge: string | null
  readonly expiresAt: number
}

export interface AccessRecord {
  readonly clientId: string
  readonly userId: string
  readonly scope: string
  readonly grantId: string
  readonly issuedAt: number
  expiresAt: number
  /** When the token was first presented: Fitbit ends the refresh replay window then. */
  usedAt: number | null
}

export interface RefreshRecord {
  readonly clientId: string
  readonly userId: string
  readonly scope: string
  readonly grantId: string
  readonly issuedAt: number
  usedAt: number | null
}

export interface OAuth2State {
  users: Record<string, { readonly name: string }>
  codes: Record<string, CodeRecord>
  access: Record<string, AccessRecord>
  refresh: Record<string, RefreshRecord>
}

export const freshOAuth2State = (): OAuth2State => ({ users: {}, codes: {}, access: {}, refresh: {} })

export const issueCode = (state: OAuth2State, record: CodeRecord): string => {
  const code = randomToken(24)
  state.codes[tokenKey(code)] = record
  return code
}

/** Takes the code out of play (codes are single use even when the exchange then fails). */
export const redeemCode = (
  state: OAuth2State,
  code: string,
  nowMs: number
): CodeRecord | "unknown" | "expired" => {
  const key = tokenKey(code)
  const record = state.codes[key]
  if (record === undefined) return "unknown"
  delete state.codes[key]
  return record.expiresAt <= nowMs ? "expired" : record
}

export interface IssuedTokens {
  readonly accessToken: string
  readonly refreshToken: string | null
  readonly scope: string
  readonly expiresIn: number
}

export const issueTokens = (
  state: OAuth2State,
  grant: { readonly clientId: string; readonly userId: string; readonly scope: string; readonly grantId: string },
  nowMs: number,
  accessTtlSeconds: number,
  withRefresh: boolean
): IssuedTokens => {
  const accessToken = randomToken(32)
  state.access[tokenKey(accessToken)] = {
    ...grant,
    issuedAt: nowMs,
    expiresAt: nowMs + accessTtlSeconds * 1000,
    usedAt: null
  }
  let refreshToken: string | null = null
  if (withRefresh) {
    refreshToken = randomToken(32)
    state.refresh[tokenKey(refreshToken)] = { ...grant, issuedAt: nowMs, usedAt: null }
  }
  return { accessToken, refreshToken, scope: grant.scope, expiresIn: accessTtlSeconds }
}

/**
 * Exchanges a refresh token once (a rotating provider's rule): the token is marked used and a new pair is issued for
 * the same grant; undefined when the token is unknown, another client's, or already used. Spent records are pruned.
 */
export const rotateRefreshToken = (
  state: OAuth2State,
  refreshToken: string,
  clientId: string,
  nowMs: number,
  accessTtlSeconds: number
): { readonly record: RefreshRecord; readonly issued: IssuedTokens } | undefined => {
  const record = state.refresh[tokenKey(refreshToken)]
  if (record === undefined || record.clientId !== clientId || record.usedAt !== null) return undefined
  record.usedAt = nowMs
  const issued = issueTokens(
    state,
    { clientId, userId: record.userId, scope: record.scope, grantId: record.grantId },
    nowMs,
    accessTtlSeconds,
    true
  )
  prune(state, nowMs)
  return { record, issued }
}

export const newGrantId = (): string => crypto.randomUUID()

export type Authentication =
  | { readonly _tag: "Ok"; readonly key: string; readonly record: AccessRecord }
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Invalid" }
  | { readonly _tag: "Missing" }

export const authenticate = (state: OAuth2State, token: string | undefined, nowMs: number): Authentication => {
  if (token === undefined) return { _tag: "Missing" }
  const key = tokenKey(token)
  const record = state.access[key]
  if (record === undefined) return { _tag: "Invalid" }
  if (record.expiresAt <= nowMs) return { _tag: "Expired" }
  return { _tag: "Ok", key, record }
}

export const revokeWhere = (
  state: OAuth2State,
  matches: (r: { clientId: string; userId: string; grantId: string }) => boolean
) => {
  for (const [key, record] of Object.entries(state.access)) if (matches(record)) delete state.access[key]
  for (const [key, record] of Object.entries(state.refresh)) if (matches(record)) delete state.refresh[key]
}

export const expireAll = (state: OAuth2State, nowMs: number) => {
  for (const record of Object.values(state.access)) {
    if (record.expiresAt > nowMs) record.expiresAt = nowMs
  }
}

/** Drops what can no longer matter, so a long-running sandbox's state stays small. */
export const prune = (state: OAuth2State, nowMs: number) => {
  const week = 7 * 86_400_000
  for (const [key, record] of Object.entries(state.codes)) if (record.expiresAt <= nowMs) delete state.codes[key]
  for (const [key, record] of Object.entries(state.access)) {
    if (record.expiresAt + week <= nowMs) delete state.access[key]
  }
  for (const [key, record] of Object.entries(state.refresh)) {
    if (record.usedAt !== null && record.usedAt + 4 * week <= nowMs) delete state.refresh[key]
  }
}

const verifierPattern = /^[A-Za-z0-9\-._~]{43,128}$/

/** RFC 7636 S256: base64url(SHA-256(verifier)) must equal the challenge. */
export const pkceMatches = (challenge: string, verifier: string | null): boolean =>
  verifier !== null && verifierPattern.test(verifier) &&
  crypto.createHash("sha256").update(verifier).digest("base64url") === challenge

export const challengePattern = /^[A-Za-z0-9\-._~]+$/

export const rememberUser = (state: OAuth2State, userId: string, name: string) => {
  state.users[userId] = { name }
}

export const listUsers = (state: OAuth2State) =>
  Object.entries(state.users).map(([userId, u]) => ({ userId, name: u.name }))

/** Client credentials from the form body (`client_secret_post`), as WHOOP and Dexcom take them. */
export const bodyClient = (form: URLSearchParams) => ({
  id: form.get("client_id"),
  secret: form.get("client_secret")
})
