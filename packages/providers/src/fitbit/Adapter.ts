/**
 * Fitbit through the Google Health API: Google OAuth 2.0 (authorization code + PKCE S256 at
 * accounts.google.com, `access_type=offline` and `prompt=consent` so a refresh token comes,
 * tokens and revocation at oauth2.googleapis.com, the client authenticated in the form), and the
 * user's Google Health id from `users.getIdentity` (`GET /v4/users/me/identity`), which needs no
 * scope beyond the data ones (the profile endpoint needs `profile.readonly`, which a user may
 * untick). Google's token reply names no user, so the identity read is the id's only source.
 *
 * Errors come in two shapes: the token endpoint's RFC 6749 `{error, error_description}` and the
 * API's `{"error":{"code","message","status"}}`.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ProviderAdapter, ProviderEndpoints } from "../Adapter.js"
import * as OAuth2 from "../internal/OAuth2.js"
import type { CallContext, ErrorReader } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import * as Pkce from "../Pkce.js"

export const fitbitDefaultEndpoints: ProviderEndpoints = {
  authBaseUrl: "https://accounts.google.com",
  tokenBaseUrl: "https://oauth2.googleapis.com",
  apiBaseUrl: "https://health.googleapis.com"
}

/** Every Google Health API scope begins with this. */
export const googleHealthScopePrefix = "https://www.googleapis.com/auth/googlehealth."

/** Steps, distance, floors, calories and active minutes: the scope daily activity needs. */
export const googleHealthActivityScope = `${googleHealthScopePrefix}activity_and_fitness.readonly`

/** Sleep sessions. */
export const googleHealthSleepScope = `${googleHealthScopePrefix}sleep.readonly`

/** The daily resting heart rate, HRV, SpO2, respiratory rate, skin temperature, weight and body fat. */
export const googleHealthMetricsScope = `${googleHealthScopePrefix}health_metrics_and_measurements.readonly`

/** Asked for by default; the user may untick all but the required one (only then is that data not read). */
export const fitbitDefaultScopes: ReadonlyArray<string> = [
  googleHealthActivityScope,
  googleHealthSleepScope,
  googleHealthMetricsScope
]

/** Without it nothing PulseBridge reads can be read: the connect callback reports it missing. */
export const fitbitRequiredScopes: ReadonlyArray<string> = [googleHealthActivityScope]

/** Whether a granted scope string is a Google Health grant (not one of the retired Fitbit Web API's). */
export const isGoogleHealthGrant = (scopes: string): boolean =>
  scopes.split(/\s+/).some((scope) => scope.startsWith(googleHealthScopePrefix))

/** The Google API error body (`google.rpc.Status` as JSON). */
export const GoogleApiError = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Number,
    message: Schema.optional(Schema.String),
    status: Schema.optional(Schema.String)
  })
})

/** The code an API error stands for: the engine refreshes on `invalid_token`. */
const apiErrorCode = (error: typeof GoogleApiError.Type["error"]): string => {
  if (error.status === "UNAUTHENTICATED") return "invalid_token"
  // a token without the scope the method needs (`ACCESS_TOKEN_SCOPE_INSUFFICIENT`)
  if (error.status === "PERMISSION_DENIED" && /insufficient authentication scopes/i.test(error.message ?? "")) {
    return "insufficient_scope"
  }
  return error.status ?? String(error.code)
}

const apiErrorReader = ProviderHttp.errorReader(GoogleApiError, (body) => ({
  code: apiErrorCode(body.error),
  description: body.error.message
}))

/** Google answers with either shape depending on the host; both are read. */
export const googleErrorReader: ErrorReader = (body) =>
  Option.orElse(ProviderHttp.oauthErrorReader(body), () => apiErrorReader(body))

const Identity = Schema.Struct({
  name: Schema.optional(Schema.String),
  healthUserId: Schema.NonEmptyString,
  legacyUserId: Schema.optional(Schema.NullOr(Schema.String))
})

export const fitbitContext = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Fitbit",
  operation,
  readError: googleErrorReader,
  secrets: input === undefined ? [] : ProviderHttp.secretsOf(input)
})

export const FitbitAdapter: ProviderAdapter = {
  provider: "Fitbit",
  authType: "OAuth2",
  defaultScopes: fitbitDefaultScopes,
  requiredScopes: fitbitRequiredScopes,
  defaultEndpoints: fitbitDefaultEndpoints,

  startAuthorization: (input) =>
    Effect.sync(() => ({
      authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}/o/oauth2/v2/auth`, [
        ["response_type", "code"],
        ["client_id", input.credentials.clientId],
        ["redirect_uri", input.callbackUrl],
        ["scope", OAuth2.scopeString(input.scopes, fitbitDefaultScopes)],
        ["state", input.state],
        ["code_challenge", Pkce.codeChallengeS256(input.codeVerifier)],
        ["code_challenge_method", "S256"],
        // a refresh token comes only with offline access, and again on a reconnect only with consent
        ["access_type", "offline"],
        ["prompt", "consent"]
      ]),
      requestToken: null,
      requestTokenSecret: null,
      usesPkce: true
    })),

  exchange: (input) =>
    OAuth2.requestTokens(fitbitContext("token exchange", input), {
      url: `${input.endpoints.tokenBaseUrl}/token`,
      clientAuth: "body",
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
    const ctx = fitbitContext("identity read", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.get(`${input.endpoints.apiBaseUrl}/v4/users/me/identity`).pipe(
        HttpClientRequest.bearerToken(input.tokens.accessToken),
        HttpClientRequest.acceptJson
      ),
      ProviderHttp.readJson(ctx, Identity)
    ).pipe(Effect.map((identity) => identity.healthUserId))
  },

  // Google keeps the refresh token (the reply has none): the current one stays.
  refresh: (input) =>
    OAuth2.refreshTokens(fitbitContext("token refresh", input), {
      url: `${input.endpoints.tokenBaseUrl}/token`,
      clientAuth: "body",
      credentials: input.credentials,
      tokens: input.tokens
    }),

  revoke: (input) => {
    const ctx = fitbitContext("token revocation", input)
    // Revoking the refresh token ends the whole grant; the access token may have expired.
    const token = input.tokens.refreshToken ?? input.tokens.accessToken
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.post(`${input.endpoints.tokenBaseUrl}/revoke`).pipe(
        HttpClientRequest.bodyUrlParams({ token: Redacted.value(token) })
      ),
      ProviderHttp.readNothing
    )
  }
}
