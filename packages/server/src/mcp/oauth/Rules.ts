/**
 * The pure rules of MCP authorization (docs/mcp.md): the scopes (one per data type the tools read, all
 * read-only) and which tools each opens, PKCE (S256 only), the signed sign-in request an app receives as
 * `pb_request`, the rules a redirect URI must meet, and the prefixes and lifetimes of the secrets.
 */
import { mcpScopes } from "@pulsebridge/domain"
import * as crypto from "node:crypto"

// ---------------------------------------------------------------------------------------------------------------
// Secrets and lifetimes

/** An access token for the MCP server (OAuth or API-issued). */
export { McpTokenPrefix } from "../../access/CredentialHash.js"
/** A refresh token of an OAuth grant. */
export const McpRefreshPrefix = "pb_mr_"
/** An authorization code. */
export const McpCodePrefix = "pb_mc_"
/** The app's sign-in assertion. */
export const McpAssertionPrefix = "pb_ma_"
/** A dynamically registered client's id. */
export const McpClientIdPrefix = "pbc_"

export const Lifetimes = {
  /** An authorization request waiting for the app's sign-in and the consent. */
  requestSeconds: 10 * 60,
  /** The app's sign-in assertion. */
  assertionSeconds: 5 * 60,
  /** An authorization code. */
  codeSeconds: 5 * 60,
  accessSeconds: 60 * 60,
  refreshSeconds: 30 * 24 * 60 * 60,
  /** An API-issued token: 30 days by default, a year at most. */
  apiTokenDefaultSeconds: 30 * 24 * 60 * 60,
  apiTokenMaxSeconds: 365 * 24 * 60 * 60
} as const

export const sha256Hex = (value: string): string => crypto.createHash("sha256").update(value).digest("hex")

/** `prefix` + 32 random bytes, base64url. */
export const newSecret = (prefix: string): string => prefix + crypto.randomBytes(32).toString("base64url")

/** Constant-time equality of two strings. */
export const sameString = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && crypto.timingSafeEqual(x, y)
}

// ---------------------------------------------------------------------------------------------------------------
// Scopes

/** Every scope: one per data type the tools read. All are read-only; no scope writes. */
export const McpScopes = mcpScopes
export type McpScope = (typeof McpScopes)[number]

export const scopeDescriptions: Record<McpScope, string> = {
  activity: "Daily activity and daily load (steps, energy, heart rate, strain)",
  glucose: "Glucose summaries",
  sleep: "Sleep sessions",
  workouts: "Workouts",
  recovery: "Daily recovery (resting heart rate, HRV)",
  body: "Body measurements (weight, body fat)",
  nutrition: "The nutrition journal and the glucose responses to meals",
  scores: "Daily and weekly health scores"
}

/**
 * The scopes each tool needs (all of them). A tool listed with none (the profile, the connections, the coverage
 * of each day) is open to every token; a tool not listed here needs every scope, so a tool added later is
 * never open to a narrower token by mistake.
 */
export const toolScopes: Readonly<Record<string, ReadonlyArray<McpScope>>> = {
  get_profile: [],
  list_connections: [],
  get_coverage: [],
  get_daily_activity: ["activity"],
  get_daily_load: ["activity"],
  get_sleep: ["sleep"],
  get_workouts: ["workouts"],
  get_recovery: ["recovery"],
  get_body: ["body"],
  get_glucose_summary: ["glucose"],
  list_journal_entries: ["nutrition"],
  get_meal_responses: ["nutrition", "glucose"],
  compare_meals: ["nutrition", "glucose"],
  get_daily_scores: ["scores"],
  get_weekly_scores: ["scores"]
}

/** Whether a token of `scopes` may list and call `tool`. */
export const toolAllowed = (tool: string, scopes: ReadonlySet<string>): boolean =>
  (toolScopes[tool] ?? McpScopes).every((scope) => scopes.has(scope))

/**
 * The scopes of a `scope` parameter (space-separated, RFC 6749 3.3): none given means all of them; an unknown
 * one is refused with its name.
 */
export const parseScope = (
  scope: string | undefined
): { readonly _tag: "Scopes"; readonly scopes: ReadonlyArray<McpScope> } | {
  readonly _tag: "Unknown"
  readonly scope: string
} => {
  const names = (scope ?? "").split(" ").filter((name) => name !== "")
  if (names.length === 0) return { _tag: "Scopes", scopes: McpScopes }
  for (const name of names) {
    if (!(McpScopes as ReadonlyArray<string>).includes(name)) return { _tag: "Unknown", scope: name.slice(0, 50) }
  }
  return { _tag: "Scopes", scopes: McpScopes.filter((known) => names.includes(known)) }
}

// ---------------------------------------------------------------------------------------------------------------
// PKCE (RFC 7636), S256 only

const verifierPattern = /^[A-Za-z0-9._~-]{43,128}$/
const challengePattern = /^[A-Za-z0-9_-]{43}$/

export const isCodeChallenge = (challenge: string): boolean => challengePattern.test(challenge)

/** Whether `verifier` is well formed and its S256 challenge is `challenge`. */
export const pkceMatches = (verifier: string, challenge: string): boolean =>
  verifierPattern.test(verifier) &&
  sameString(crypto.createHash("sha256").update(verifier).digest("base64url"), challenge)

// ---------------------------------------------------------------------------------------------------------------
// The signed sign-in request (`pb_request`)

export interface SignInRequest {
  /** The authorization request's id (its hash is the stored key). */
  readonly requestId: string
  readonly appId: string
  /** Seconds since the epoch. */
  readonly expiresAt: number
}

const signature = (key: string, payload: string) =>
  crypto.createHmac("sha256", key).update(`pb_request.v1.${payload}`).digest("base64url")

/** `<payload>.<HMAC-SHA256>`, base64url: the app can read it but neither forge nor alter it. */
export const signRequest = (key: string, request: SignInRequest): string => {
  const payload = Buffer.from(JSON.stringify({ r: request.requestId, a: request.appId, e: request.expiresAt }))
    .toString("base64url")
  return `${payload}.${signature(key, payload)}`
}

/** The request, when `signed` carries a valid signature and has not expired at `nowSeconds`. */
export const verifyRequest = (
  key: string,
  signed: string,
  nowSeconds: number
):
  | { readonly _tag: "Valid"; readonly request: SignInRequest }
  | { readonly _tag: "Invalid" }
  | { readonly _tag: "Expired" } =>
{
  if (signed.length > 1024) return { _tag: "Invalid" }
  const [payload, mac, ...rest] = signed.split(".")
  if (payload === undefined || mac === undefined || rest.length > 0 || !sameString(signature(key, payload), mac)) {
    return { _tag: "Invalid" }
  }
  try {
    const parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>
    if (typeof parsed.r !== "string" || typeof parsed.a !== "string" || typeof parsed.e !== "number") {
      return { _tag: "Invalid" }
    }
    if (parsed.e <= nowSeconds) return { _tag: "Expired" }
    return { _tag: "Valid", request: { requestId: parsed.r, appId: parsed.a, expiresAt: parsed.e } }
  } catch {
    return { _tag: "Invalid" }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Redirect URIs and URLs

export const MaxUrlLength = 2048

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"])

export const isLoopbackHost = (hostname: string): boolean => loopbackHosts.has(hostname.toLowerCase())

const hasControl = (value: string) => /[\u0000-\u001f\u007f]/.test(value)

/**
 * Why a client's redirect URI is refused, or undefined when it may be registered: an absolute `https` URL, or
 * `http` on a loopback host (a native client's local listener, RFC 8252), without a fragment or credentials,
 * at most 2,048 characters.
 */
export const redirectUriProblem = (uri: string): string | undefined => {
  if (uri.length > MaxUrlLength) return `a redirect URI may have at most ${MaxUrlLength} characters`
  if (hasControl(uri)) return "a redirect URI may not contain control characters"
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return "a redirect URI must be an absolute URL"
  }
  if (url.hash !== "" || uri.includes("#")) return "a redirect URI may not have a fragment"
  if (url.username !== "" || url.password !== "") return "a redirect URI may not carry credentials"
  if (url.protocol === "https:") return undefined
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return undefined
  return "a redirect URI must use https (or http on a loopback host: localhost, 127.0.0.1, [::1])"
}

/** `base` with `params` added to its query (existing parameters kept). */
export const withParams = (base: string, params: Record<string, string | undefined>): string => {
  const url = new URL(base)
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value)
  }
  return url.toString()
}
