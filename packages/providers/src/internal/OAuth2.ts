/**
 * The OAuth 2.0 token endpoint as Fitbit, WHOOP and Dexcom share it: the token response schema,
 * the two client authentication styles, and the mapping of a reply onto a `TokenSet`.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ClientCredentials, TokenSet } from "../Adapter.js"
import type { CallContext } from "./ProviderHttp.js"
import * as ProviderHttp from "./ProviderHttp.js"

/**
 * RFC 6749 §5.1. Tokens decode straight into `Redacted` so no plain copy exists after decoding.
 * Optional fields may also be `null`, which some servers write for "not issued".
 */
export const TokenResponse = Schema.Struct({
  access_token: Schema.Redacted(Schema.NonEmptyString),
  expires_in: Schema.NonNegative,
  refresh_token: Schema.optional(Schema.NullishOr(Schema.Redacted(Schema.NonEmptyString))),
  scope: Schema.optional(Schema.NullishOr(Schema.String)),
  token_type: Schema.String
})
export type TokenResponse = typeof TokenResponse.Type

/** `basic`: `Authorization: Basic base64(id:secret)` (Fitbit); `body`: `client_id` and `client_secret` in the form. */
export type ClientAuth = "basic" | "body"

export interface TokenRequest {
  readonly url: string
  readonly clientAuth: ClientAuth
  readonly credentials: ClientCredentials
  readonly form: Readonly<Record<string, string | undefined>>
  /** The scopes to report when the reply has no `scope`. */
  readonly fallbackScopes: string
  /** The refresh token to keep when a refresh reply does not rotate it (RFC 6749 §6). */
  readonly fallbackRefreshToken: Redacted.Redacted | null
}

export const toTokenSet = (
  reply: TokenResponse,
  fallback: { readonly scopes: string; readonly refreshToken: Redacted.Redacted | null }
): Effect.Effect<TokenSet> =>
  Effect.map(Clock.currentTimeMillis, (now) => ({
    accessToken: reply.access_token,
    refreshToken: reply.refresh_token ?? fallback.refreshToken,
    tokenSecret: null,
    expiresAt: new Date(now + reply.expires_in * 1000),
    scopes: reply.scope ?? fallback.scopes
  }))

/** POSTs a form to a token endpoint and maps the reply. */
export const requestTokens = (ctx: CallContext, request: TokenRequest) => {
  const { clientId, clientSecret } = request.credentials
  const form = request.clientAuth === "body"
    ? { ...request.form, client_id: clientId, client_secret: Redacted.value(clientSecret) }
    : request.form
  const base = HttpClientRequest.post(request.url).pipe(
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyUrlParams(form)
  )
  const httpRequest = request.clientAuth === "basic"
    ? HttpClientRequest.basicAuth(base, clientId, clientSecret)
    : base
  return ProviderHttp.send(
    ctx,
    httpRequest,
    ProviderHttp.readJson(ctx, TokenResponse)
  ).pipe(
    Effect.flatMap((reply) =>
      toTokenSet(reply, { scopes: request.fallbackScopes, refreshToken: request.fallbackRefreshToken })
    )
  )
}

/** Whether the tokens can be refreshed at all; without a refresh token the user must reauthorize. */
export const requireRefreshToken = (ctx: CallContext, tokens: TokenSet) =>
  tokens.refreshToken === null
    // `invalid_grant` is what the caller already treats as "reauthorize", which is the only way out.
    ? ProviderHttp.refuse(ctx, "no refresh token was issued for this grant; reauthorize", "invalid_grant")
    : Effect.succeed(tokens.refreshToken)

/**
 * The refresh-token grant at `url`: fails as `invalid_grant` when no refresh token was issued, and
 * keeps the current scopes and refresh token when the reply leaves them out. `form` adds the
 * provider's own fields (WHOOP asks for `offline` again).
 */
export const refreshTokens = (
  ctx: CallContext,
  request: {
    readonly url: string
    readonly clientAuth: TokenRequest["clientAuth"]
    readonly credentials: TokenRequest["credentials"]
    readonly tokens: TokenSet
    readonly form?: Readonly<Record<string, string>>
  }
) =>
  Effect.flatMap(requireRefreshToken(ctx, request.tokens), (refreshToken) =>
    requestTokens(ctx, {
      url: request.url,
      clientAuth: request.clientAuth,
      credentials: request.credentials,
      form: { grant_type: "refresh_token", refresh_token: Redacted.value(refreshToken), ...request.form },
      fallbackScopes: request.tokens.scopes,
      fallbackRefreshToken: refreshToken
    }))

/** Space-separated scopes, or the defaults when none were asked for. */
export const scopeString = (scopes: ReadonlyArray<string>, defaults: ReadonlyArray<string>): string =>
  (scopes.length === 0 ? defaults : scopes).join(" ")
