/**
 * Garmin's two ways in, one adapter each. OAuth 1.0a (retired by Garmin on 31 Dec 2026): request
 * token, user confirmation, access token with the verifier; tokens never expire. OAuth 2.0 with
 * PKCE S256 and no scopes (the user picks permissions on Garmin's consent page): authorize at
 * `connect.garmin.com/oauth2Confirm`, tokens at `diauth.garmin.com/di-oauth2-service/oauth/token`
 * with the client credentials in the form; access tokens live 86,400 s, refresh tokens about 90
 * days and rotate. The OAuth 2.0 adapter also moves OAuth 1.0a connections over without the user
 * (`POST apis.garmin.com/partner-gateway/rest/user/token-exchange`, signed with the user's OAuth
 * 1.0a token, answers an OAuth 2.0 token pair).
 *
 * The user id, permissions and deregistration calls take whichever tokens the connection holds
 * (see `Auth.ts`), so either adapter serves a connection of either kind. A connection's `scopes`
 * are the user's Garmin permissions (`HEALTH_EXPORT`, `HISTORICAL_DATA_EXPORT`, ...), read after
 * each consent or exchange; Garmin's own OAuth 2.0 `scope` names its API families, not what the
 * user allowed, so it is not kept.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ProviderAdapter, ProviderEndpoints, TokenInput, TokenSet } from "../Adapter.js"
import * as OAuth2 from "../internal/OAuth2.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import * as Pkce from "../Pkce.js"
import { context, readPermissions, sendUser, signedRequest, userRequest } from "./Auth.js"

/** OAuth 1.0a: the token legs on connectapi. */
export const garminDefaultEndpoints: ProviderEndpoints = {
  authBaseUrl: "https://connect.garmin.com",
  tokenBaseUrl: "https://connectapi.garmin.com",
  apiBaseUrl: "https://apis.garmin.com"
}

/** OAuth 2.0: the token endpoint on Garmin's identity service (diauth). */
export const garminOAuth2DefaultEndpoints: ProviderEndpoints = {
  authBaseUrl: "https://connect.garmin.com",
  tokenBaseUrl: "https://diauth.garmin.com",
  apiBaseUrl: "https://apis.garmin.com"
}

export const garminOAuth2Paths = {
  authorize: "/oauth2Confirm",
  token: "/di-oauth2-service/oauth/token",
  tokenExchange: "/partner-gateway/rest/user/token-exchange"
} as const

/** Access token life when a reply leaves `expires_in` out (Garmin documents 86,400 s). */
export const garminAccessTokenSeconds = 86_400

/** The form-encoded reply of both OAuth 1.0a token legs. */
const TokenReply = Schema.Struct({
  oauth_token: Schema.NonEmptyString,
  oauth_token_secret: Schema.Redacted(Schema.NonEmptyString)
})

const UserId = Schema.Struct({ userId: Schema.NonEmptyString })

/**
 * Garmin's OAuth 2.0 token reply: RFC 6749 plus `refresh_token_expires_in` (about 7,776,000 s)
 * and `jti`. `expires_in` is taken as 86,400 s when absent. Garmin lists `refresh_token` as
 * required and rotates it on every reply, but a refresh answered without one keeps the refresh
 * token the connection holds rather than losing the connection (RFC 6749 section 6 lets a server
 * leave it out).
 */
export const GarminTokenResponse = Schema.Struct({
  access_token: Schema.Redacted(Schema.NonEmptyString),
  token_type: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.NonNegative),
  refresh_token: Schema.optional(Schema.Redacted(Schema.NonEmptyString)),
  refresh_token_expires_in: Schema.optional(Schema.NonNegative),
  scope: Schema.optional(Schema.NullOr(Schema.String)),
  jti: Schema.optional(Schema.String)
})

const toTokenSet = (
  reply: typeof GarminTokenResponse.Type,
  scopes: string,
  refreshToken: Redacted.Redacted | null = null
) =>
  OAuth2.toTokenSet(
    {
      access_token: reply.access_token,
      expires_in: reply.expires_in ?? garminAccessTokenSeconds,
      refresh_token: reply.refresh_token,
      // Garmin's scope names API families; the connection's scopes are the user's permissions.
      scope: scopes,
      token_type: reply.token_type ?? "bearer"
    },
    { scopes, refreshToken }
  )

/** The user's permissions as the connection's scopes; the given ones when they cannot be read. */
const withPermissions = (input: TokenInput, tokens: TokenSet) =>
  readPermissions({ ...input, tokens }).pipe(
    Effect.map((scopes): TokenSet => ({ ...tokens, scopes })),
    Effect.orElseSucceed(() => tokens)
  )

/** The OAuth 2.0 token endpoint: client credentials in the form, Garmin's reply read. */
const tokenRequest = (
  operation: string,
  input: TokenInput | Parameters<ProviderAdapter["exchange"]>[0],
  form: Readonly<Record<string, string | undefined>>
) => {
  const ctx = context(operation, input)
  return ProviderHttp.send(
    ctx,
    HttpClientRequest.post(`${input.endpoints.tokenBaseUrl}${garminOAuth2Paths.token}`).pipe(
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyUrlParams({
        ...form,
        client_id: input.credentials.clientId,
        client_secret: Redacted.value(input.credentials.clientSecret)
      })
    ),
    ProviderHttp.readJson(ctx, GarminTokenResponse)
  )
}

// ---- shared by both adapters: calls that take the connection's own tokens ----

const providerUserId: ProviderAdapter["providerUserId"] = (input) => {
  const ctx = context("user id read", input)
  return sendUser(
    ctx,
    HttpClientRequest.acceptJson(userRequest("GET", `${input.endpoints.apiBaseUrl}/wellness-api/rest/user/id`, input)),
    ProviderHttp.readJson(ctx, UserId)
  ).pipe(Effect.map((reply) => reply.userId))
}

const revoke: ProviderAdapter["revoke"] = (input) =>
  ProviderHttp.send(
    context("deregistration", input),
    userRequest("DELETE", `${input.endpoints.apiBaseUrl}/wellness-api/rest/user/registration`, input),
    ProviderHttp.readNothing
  )

export const GarminAdapter: ProviderAdapter = {
  provider: "Garmin",
  authType: "OAuth1",
  // Garmin has no scopes: the user picks permissions on the consent page.
  defaultScopes: [],
  defaultEndpoints: garminDefaultEndpoints,

  startAuthorization: (input) => {
    const ctx = context("request token", input)
    const url = `${input.endpoints.tokenBaseUrl}/oauth-service/oauth/request_token`
    return ProviderHttp.send(
      ctx,
      signedRequest("POST", url, input.credentials),
      ProviderHttp.readForm(ctx, TokenReply)
    ).pipe(
      Effect.map((reply) => ({
        // Garmin takes the callback on the confirm page rather than in the request-token leg.
        authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}/oauthConfirm`, [
          ["oauth_token", reply.oauth_token],
          ["oauth_callback", input.callbackUrl]
        ]),
        requestToken: reply.oauth_token,
        requestTokenSecret: reply.oauth_token_secret,
        usesPkce: false
      }))
    )
  },

  exchange: (input) => {
    const ctx = context("access token", input)
    const { requestToken, requestTokenSecret } = input
    if (requestToken === null || requestTokenSecret === null) {
      return ProviderHttp.refuse(ctx, "the request token and its secret are required")
    }
    const url = `${input.endpoints.tokenBaseUrl}/oauth-service/oauth/access_token`
    return ProviderHttp.send(
      ctx,
      signedRequest("POST", url, input.credentials, { key: requestToken, secret: requestTokenSecret }, {
        oauth_verifier: input.code
      }),
      ProviderHttp.readForm(ctx, TokenReply)
    ).pipe(
      Effect.map((reply): TokenSet => ({
        accessToken: Redacted.make(reply.oauth_token),
        refreshToken: null,
        tokenSecret: reply.oauth_token_secret,
        expiresAt: null,
        scopes: ""
      })),
      Effect.flatMap((tokens) => withPermissions({ ...input, tokens }, tokens))
    )
  },

  providerUserId,

  refresh: () =>
    ProviderHttp.refuse(
      context("token refresh"),
      "OAuth 1.0a access tokens do not expire and cannot be refreshed; they stay valid until the user deregisters"
    ),

  revoke
}

export const GarminOAuth2Adapter: ProviderAdapter = {
  provider: "Garmin",
  authType: "OAuth2",
  defaultScopes: [],
  defaultEndpoints: garminOAuth2DefaultEndpoints,

  startAuthorization: (input) =>
    Effect.sync(() => ({
      // No `scope`: Garmin asks the user for permissions itself.
      authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}${garminOAuth2Paths.authorize}`, [
        ["response_type", "code"],
        ["client_id", input.credentials.clientId],
        ["code_challenge", Pkce.codeChallengeS256(input.codeVerifier)],
        ["code_challenge_method", "S256"],
        ["redirect_uri", input.callbackUrl],
        ["state", input.state]
      ]),
      requestToken: null,
      requestTokenSecret: null,
      usesPkce: true
    })),

  exchange: (input) =>
    tokenRequest("token exchange", input, {
      grant_type: "authorization_code",
      code: input.code,
      code_verifier: input.codeVerifier ?? undefined,
      redirect_uri: input.callbackUrl
    }).pipe(
      Effect.flatMap((reply) => toTokenSet(reply, "")),
      Effect.flatMap((tokens) => withPermissions({ ...input, tokens }, tokens))
    ),

  providerUserId,

  refresh: (input) => {
    const ctx = context("token refresh", input)
    return Effect.flatMap(
      OAuth2.requireRefreshToken(ctx, input.tokens),
      (refreshToken) =>
        tokenRequest("token refresh", input, {
          grant_type: "refresh_token",
          refresh_token: Redacted.value(refreshToken)
        }).pipe(Effect.flatMap((reply) => toTokenSet(reply, input.tokens.scopes, refreshToken)))
    )
  },

  revoke,

  migrateTokens: (input) => {
    const ctx = context("token exchange from OAuth 1.0a", input)
    if (input.tokens.tokenSecret === null) {
      return ProviderHttp.refuse(ctx, "the connection holds no OAuth 1.0a tokens")
    }
    return sendUser(
      ctx,
      HttpClientRequest.acceptJson(
        signedRequest("POST", `${input.endpoints.apiBaseUrl}${garminOAuth2Paths.tokenExchange}`, input.credentials, {
          key: Redacted.value(input.tokens.accessToken),
          secret: input.tokens.tokenSecret
        })
      ),
      ProviderHttp.readJson(ctx, GarminTokenResponse)
    ).pipe(
      Effect.flatMap((reply) => toTokenSet(reply, input.tokens.scopes)),
      Effect.flatMap((tokens) => withPermissions({ ...input, tokens }, tokens))
    )
  }
}
