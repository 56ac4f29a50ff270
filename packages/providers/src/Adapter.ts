/**
 * The one interface every provider implements: the OAuth legs (authorization URL, code or
 * verifier exchange, refresh, revoke) and the provider user id. Provider differences (client
 * authentication style, PKCE, OAuth 1.0a signing, error bodies) stay behind it.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"

/** An app's credentials at a provider (consumer key/secret for Garmin). */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted
  /**
   * The app's OAuth 1.0a consumer key and secret, kept beside OAuth 2.0 credentials while
   * connections made with OAuth 1.0a remain: their calls, and the exchange of their tokens for
   * OAuth 2.0 ones (Garmin), are signed with these. Absent: the client id and secret above.
   */
  readonly oauth1?: { readonly clientId: string; readonly clientSecret: Redacted.Redacted } | undefined
}

/**
 * Where a provider lives: `authBaseUrl` serves the consent page (Fitbit's www host, Garmin's
 * connect host), `tokenBaseUrl` the token endpoints, `apiBaseUrl` the data and user endpoints.
 * Each is an origin (or origin + prefix, for simulators mounted under a path) without a
 * trailing slash; the adapter appends the provider's own paths. Configuration swaps these for
 * simulators and regional hosts.
 */
export interface ProviderEndpoints {
  readonly authBaseUrl: string
  readonly tokenBaseUrl: string
  readonly apiBaseUrl: string
  /**
   * The path of the OAuth endpoints under `authBaseUrl` and `tokenBaseUrl`, for a provider that
   * serves them at more than one (Dexcom: `/v3/oauth2`, or `/v2/oauth2`). Absent: the adapter's
   * default.
   */
  readonly oauthPath?: string | undefined
}

/** Tokens obtained from a provider. OAuth 1.0a tokens carry a secret and never expire. */
export interface TokenSet {
  readonly accessToken: Redacted.Redacted
  readonly refreshToken: Redacted.Redacted | null
  readonly tokenSecret: Redacted.Redacted | null
  readonly expiresAt: Date | null
  /** Scopes granted, space separated (may differ from those asked for). */
  readonly scopes: string
  /** The user's id at the provider, when the token response names it (then no look-up is needed). */
  readonly providerUserId?: string | null | undefined
}

export interface StartInput {
  readonly credentials: ClientCredentials
  readonly endpoints: ProviderEndpoints
  /** Our callback URL (endpoint 23 or 24). */
  readonly callbackUrl: string
  /** At least 128 random bits, base64url. */
  readonly state: string
  readonly scopes: ReadonlyArray<string>
  /** PKCE verifier (43-128 chars) for providers that use PKCE. */
  readonly codeVerifier: string
}

/** The start of an authorization: where to send the user, and what the callback will need. */
export interface AuthorizationStart {
  readonly authorizationUrl: string
  /** OAuth 1.0a: the request token (also the callback's `oauth_token`) and its secret. */
  readonly requestToken: string | null
  readonly requestTokenSecret: Redacted.Redacted | null
  /** Whether the PKCE verifier must be sent with the exchange. */
  readonly usesPkce: boolean
}

export interface ExchangeInput {
  readonly credentials: ClientCredentials
  readonly endpoints: ProviderEndpoints
  readonly callbackUrl: string
  /** OAuth 2.0 authorization code, or OAuth 1.0a verifier. */
  readonly code: string
  readonly codeVerifier: string | null
  readonly requestToken: string | null
  readonly requestTokenSecret: Redacted.Redacted | null
  /**
   * The scopes asked for at the start, reported as granted when the token reply names none
   * (Dexcom's never does). Omitted: the adapter's default scopes.
   */
  readonly scopes?: ReadonlyArray<string> | undefined
}

export interface TokenInput {
  readonly credentials: ClientCredentials
  readonly endpoints: ProviderEndpoints
  readonly tokens: TokenSet
}

/**
 * A provider call that failed. `code` carries the provider's error code when it has one
 * (`invalid_grant` means the refresh token or code is no longer valid: reauthorize).
 */
export class ProviderError extends Data.TaggedError("ProviderError")<{
  /** The provider's name (its catalogue name: a plug-in may name a provider the domain does not list). */
  readonly provider: string
  readonly operation: string
  readonly message: string
  readonly status?: number | undefined
  readonly code?: string | undefined
  readonly retryAfterSeconds?: number | undefined
  /** With `code: "insufficient_scope"`: the scopes the user did not grant. */
  readonly missingScopes?: ReadonlyArray<string> | undefined
  readonly cause?: unknown
}> {}

/** The code of a failure caused by a scope the user did not grant. */
export const InsufficientScope = "insufficient_scope"

/** The code of an answer that says the user's grant is gone for good (a revoked token). */
export const AccessRevoked = "access_revoked"

/** A notification that cannot be read: retrying cannot help (see `decodeNotification`). */
export const isInvalidNotification = (error: ProviderError): boolean => error.code === "invalid_notification"

export const isInvalidGrant = (error: ProviderError): boolean =>
  error.code === "invalid_grant" || error.code === "invalid_token"

/**
 * The grant can no longer be used and no retry or refresh can help: the provider revoked it
 * (`access_revoked`, which a data reader maps from its provider's own answer) or the API itself
 * is gone (410). The connection needs the user to connect again.
 */
export const isAccessLost = (error: ProviderError): boolean => error.code === AccessRevoked || error.status === 410

export interface ProviderAdapter {
  /** The provider's catalogue name. */
  readonly provider: string
  readonly authType: "OAuth2" | "OAuth1"
  readonly defaultScopes: ReadonlyArray<string>
  /**
   * Scopes without which the connection can read nothing: a consent that does not grant them all
   * ends with `error=insufficient_scope` (consent screens let users untick scopes).
   */
  readonly requiredScopes?: ReadonlyArray<string> | undefined
  /** The production endpoints (before configuration overrides). */
  readonly defaultEndpoints: ProviderEndpoints
  /** Builds the authorization URL; Garmin first obtains a request token. */
  readonly startAuthorization: (
    input: StartInput
  ) => Effect.Effect<AuthorizationStart, ProviderError, HttpClient.HttpClient>
  /** Exchanges the code (or OAuth 1.0a verifier) for tokens. */
  readonly exchange: (input: ExchangeInput) => Effect.Effect<TokenSet, ProviderError, HttpClient.HttpClient>
  /** The user's id at the provider, read with fresh tokens. */
  readonly providerUserId: (input: TokenInput) => Effect.Effect<string, ProviderError, HttpClient.HttpClient>
  /** New tokens from the refresh token; providers rotate it, so the old one is then spent. */
  readonly refresh: (input: TokenInput) => Effect.Effect<TokenSet, ProviderError, HttpClient.HttpClient>
  /** Revokes the user's grant at the provider (Dexcom has none: succeeds without a call). */
  readonly revoke: (input: TokenInput) => Effect.Effect<void, ProviderError, HttpClient.HttpClient>
  /**
   * Moves a connection's OAuth 1.0a tokens (a `TokenSet` with a `tokenSecret`) onto this adapter's
   * OAuth 2.0 tokens with no step of the user (Garmin's token exchange). `input.credentials` are
   * the app's current credentials, with `oauth1` when its OAuth 1.0a ones are kept apart. Absent
   * when the provider offers no such move.
   */
  readonly migrateTokens?:
    | ((input: TokenInput) => Effect.Effect<TokenSet, ProviderError, HttpClient.HttpClient>)
    | undefined
}

/** Tokens of OAuth 1.0a: they carry a token secret (OAuth 2.0 tokens never do). */
export const isOAuth1Tokens = (tokens: TokenSet): boolean => tokens.tokenSecret !== null
