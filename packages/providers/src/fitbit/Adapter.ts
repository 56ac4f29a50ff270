/**
 * Fitbit's OAuth 2.0 (authorization code + PKCE S256, client authenticated with a Basic header),
 * its revocation endpoint, the profile read that yields the encoded user id, and its non-RFC
 * error body `{"errors":[{"errorType","message"}]}`.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ProviderAdapter, ProviderEndpoints } from "../Adapter.js"
import * as OAuth2 from "../internal/OAuth2.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import * as Pkce from "../Pkce.js"

export const fitbitDefaultEndpoints: ProviderEndpoints = {
  authBaseUrl: "https://www.fitbit.com",
  tokenBaseUrl: "https://api.fitbit.com",
  apiBaseUrl: "https://api.fitbit.com"
}

export const fitbitDefaultScopes: ReadonlyArray<string> = ["activity", "heartrate", "profile", "sleep"]

const FitbitErrorBody = Schema.Struct({
  errors: Schema.NonEmptyArray(Schema.Struct({ errorType: Schema.String, message: Schema.optional(Schema.String) }))
})

const readError = ProviderHttp.errorReader(FitbitErrorBody, (body) => ({
  code: body.errors[0].errorType,
  description: body.errors[0].message
}))

const Profile = Schema.Struct({ user: Schema.Struct({ encodedId: Schema.NonEmptyString }) })

const context = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Fitbit",
  operation,
  readError,
  secrets: input === undefined ? [] : ProviderHttp.secretsOf(input)
})

export const FitbitAdapter: ProviderAdapter = {
  provider: "Fitbit",
  authType: "OAuth2",
  defaultScopes: fitbitDefaultScopes,
  defaultEndpoints: fitbitDefaultEndpoints,

  startAuthorization: (input) =>
    Effect.sync(() => ({
      authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}/oauth2/authorize`, [
        ["response_type", "code"],
        ["client_id", input.credentials.clientId],
        ["redirect_uri", input.callbackUrl],
        ["scope", OAuth2.scopeString(input.scopes, fitbitDefaultScopes)],
        ["state", input.state],
        ["code_challenge", Pkce.codeChallengeS256(input.codeVerifier)],
        ["code_challenge_method", "S256"]
      ]),
      requestToken: null,
      requestTokenSecret: null,
      usesPkce: true
    })),

  exchange: (input) =>
    OAuth2.requestTokens(context("token exchange", input), {
      url: `${input.endpoints.tokenBaseUrl}/oauth2/token`,
      clientAuth: "basic",
      credentials: input.credentials,
      form: {
        grant_type: "authorization_code",
        code: input.code,
        redirect_uri: input.callbackUrl,
        code_verifier: input.codeVerifier ?? undefined
      },
      fallbackScopes: OAuth2.scopeString(input.scopes ?? [], fitbitDefaultScopes),
      fallbackRefreshToken: null
    }),

  providerUserId: (input) => {
    const ctx = context("profile read", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.get(`${input.endpoints.apiBaseUrl}/1/user/-/profile.json`).pipe(
        HttpClientRequest.bearerToken(input.tokens.accessToken),
        HttpClientRequest.acceptJson
      ),
      ProviderHttp.readJson(ctx, Profile)
    ).pipe(Effect.map((profile) => profile.user.encodedId))
  },

  refresh: (input) => {
    const ctx = context("token refresh", input)
    return OAuth2.refreshTokens(ctx, {
      url: `${input.endpoints.tokenBaseUrl}/oauth2/token`,
      clientAuth: "basic",
      credentials: input.credentials,
      tokens: input.tokens
    })
  },

  revoke: (input) => {
    const ctx = context("token revocation", input)
    // Revoking either token ends the whole grant; the refresh token never expires, the access token may have.
    const token = input.tokens.refreshToken ?? input.tokens.accessToken
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.post(`${input.endpoints.tokenBaseUrl}/oauth2/revoke`).pipe(
        HttpClientRequest.basicAuth(input.credentials.clientId, input.credentials.clientSecret),
        HttpClientRequest.bodyUrlParams({ token: Redacted.value(token) })
      ),
      ProviderHttp.readNothing
    )
  }
}
