/**
 * Oura's OAuth 2.0 (API v2, cloud.ouraring.com/docs/authentication): the consent page at
 * `cloud.ouraring.com/oauth/authorize`, the token endpoint at `api.ouraring.com/oauth/token` with the client
 * credentials in the form body, refresh tokens that can be used once (every refresh answers a new one, which is
 * the one kept), revocation at `/oauth/revoke?access_token=...`, and the user's id from `personal_info`.
 *
 * Errors (cloud.ouraring.com/docs/error-handling): the API answers RFC 7807 bodies (`status`, `title`,
 * `detail`), the OAuth endpoints RFC 6749 ones (`error`, `error_description`); FastAPI's validation answers are
 * `{"detail": [...]}`. A 401 (invalid, expired or revoked access token) becomes `invalid_token`, which the sync
 * engine answers with a refresh; a 403 naming missing scopes becomes `insufficient_scope`; 429 carries
 * `Retry-After`; 5xx are plain failures the engine retries.
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

export const ouraDefaultEndpoints: ProviderEndpoints = {
  authBaseUrl: "https://cloud.ouraring.com",
  tokenBaseUrl: "https://api.ouraring.com",
  apiBaseUrl: "https://api.ouraring.com"
}

/**
 * The scopes of what PulseBridge reads (Oura asks apps to request only what they need): `personal` (the user id,
 * height and weight), `daily` (daily activity, sleep and readiness, and the sleep sessions), `workout` and
 * `spo2` (the nightly SpO2 average). `heartrate`, `session`, `tag` and `email` are not read. The docs list the
 * scopes but not which collection each opens; that mapping is the one public clients use.
 */
export const ouraDefaultScopes: ReadonlyArray<string> = ["personal", "daily", "workout", "spo2"]

/** Without these nothing useful can be read: the user id comes from `personal_info`, the days from `daily`. */
export const ouraRequiredScopes: ReadonlyArray<string> = ["personal", "daily"]

/** Every error shape Oura answers with; all fields optional so one schema reads each. */
const OuraErrorBody = Schema.Struct({
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Number),
  title: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.Unknown)
})

const textOf = (detail: unknown): string | undefined =>
  typeof detail === "string" ? detail : detail === undefined ? undefined : JSON.stringify(detail)

/** The code an API error stands for: the engine refreshes on `invalid_token`. */
const apiCode = (body: typeof OuraErrorBody.Type): string | undefined => {
  if (body.error !== undefined) return body.error
  const text = `${body.title ?? ""} ${textOf(body.detail) ?? ""}`
  if (/scope/i.test(text)) return "insufficient_scope"
  if (body.status === 401) return "invalid_token"
  if (body.status === 429) return "rate_limited"
  return body.status === undefined ? undefined : String(body.status)
}

export const ouraErrorReader: ErrorReader = (body) =>
  Option.flatMap(
    Schema.decodeUnknownOption(OuraErrorBody)(body),
    (decoded) =>
      decoded.error === undefined && decoded.title === undefined && decoded.detail === undefined
        ? Option.none()
        : Option.some({
          code: apiCode(decoded),
          description: decoded.error_description ?? [decoded.title, textOf(decoded.detail)]
            .filter((part) => part !== undefined && part !== "").join(": ")
        })
  )

export const ouraContext = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Oura",
  operation,
  readError: ouraErrorReader,
  secrets: input === undefined ? [] : ProviderHttp.secretsOf(input)
})

const PersonalInfo = Schema.Struct({ id: Schema.NonEmptyString })

export const OuraAdapter: ProviderAdapter = {
  provider: "Oura",
  authType: "OAuth2",
  defaultScopes: ouraDefaultScopes,
  requiredScopes: ouraRequiredScopes,
  defaultEndpoints: ouraDefaultEndpoints,

  startAuthorization: (input) =>
    Effect.succeed({
      authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}/oauth/authorize`, [
        ["response_type", "code"],
        ["client_id", input.credentials.clientId],
        // optional at Oura when the app has one redirect URI, "advisable to always include" (the docs)
        ["redirect_uri", input.callbackUrl],
        // without `scope` Oura asks for every scope: always name them
        ["scope", OAuth2.scopeString(input.scopes, ouraDefaultScopes)],
        ["state", input.state]
      ]),
      requestToken: null,
      requestTokenSecret: null,
      usesPkce: false
    }),

  exchange: (input) =>
    OAuth2.requestTokens(ouraContext("token exchange", input), {
      url: `${input.endpoints.tokenBaseUrl}/oauth/token`,
      clientAuth: "body",
      credentials: input.credentials,
      form: { grant_type: "authorization_code", code: input.code, redirect_uri: input.callbackUrl },
      // Oura's token reply may leave `scope` out; the data reader then skips what a 403 says was not granted
      fallbackScopes: OAuth2.scopeString(input.scopes ?? [], ouraDefaultScopes),
      fallbackRefreshToken: null
    }),

  providerUserId: (input) => {
    const ctx = ouraContext("personal info read", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.get(`${input.endpoints.apiBaseUrl}/v2/usercollection/personal_info`).pipe(
        HttpClientRequest.bearerToken(input.tokens.accessToken),
        HttpClientRequest.acceptJson
      ),
      ProviderHttp.readJson(ctx, PersonalInfo)
    ).pipe(Effect.map((info) => info.id))
  },

  // A refresh token works once ("Token Already Used Or Revoked"): the reply's new one replaces it.
  refresh: (input) =>
    OAuth2.refreshTokens(ouraContext("token refresh", input), {
      url: `${input.endpoints.tokenBaseUrl}/oauth/token`,
      clientAuth: "body",
      credentials: input.credentials,
      tokens: input.tokens
    }),

  // The token goes in the query, as Oura documents the revocation URL; the method is not documented (GET, as
  // public clients send it).
  revoke: (input) =>
    ProviderHttp.send(
      ouraContext("access revocation", input),
      HttpClientRequest.get(
        ProviderHttp.withQuery(`${input.endpoints.tokenBaseUrl}/oauth/revoke`, [[
          "access_token",
          Redacted.value(input.tokens.accessToken)
        ]])
      ),
      ProviderHttp.readNothing
    )
}
