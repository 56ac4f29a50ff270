/**
 * Dexcom's OAuth 2.0 (one scope, `offline_access`; client credentials in the form body; refresh
 * tokens rotated; on `/v3/oauth2` or, configured, `/v2/oauth2`), its regional hosts, and the
 * data-range read that yields the user id. Dexcom has no revocation endpoint: users withdraw
 * access in their Dexcom account.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ProviderAdapter, ProviderEndpoints } from "../Adapter.js"
import * as OAuth2 from "../internal/OAuth2.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"

/** Dexcom's hosts; authorization, tokens and data share one host per region. */
export const DexcomHosts = {
  sandbox: "https://sandbox-api.dexcom.com",
  us: "https://api.dexcom.com",
  eu: "https://api.dexcom.eu",
  jp: "https://api.dexcom.jp"
} as const
export type DexcomRegion = keyof typeof DexcomHosts

/** The endpoints of one Dexcom region. */
export const dexcomEndpoints = (region: DexcomRegion): ProviderEndpoints => ({
  authBaseUrl: DexcomHosts[region],
  tokenBaseUrl: DexcomHosts[region],
  apiBaseUrl: DexcomHosts[region]
})

export const dexcomDefaultEndpoints: ProviderEndpoints = dexcomEndpoints("us")

/**
 * Where Dexcom's OAuth endpoints live under the host: `/v3/oauth2/login` and `/v3/oauth2/token` in
 * the current specification; Dexcom still answers on `/v2/oauth2/...`, which older registrations
 * use. The operator picks one (`ProviderEndpoints.oauthPath`); anything else is refused by Dexcom.
 */
export const dexcomOAuthPaths = ["/v3/oauth2", "/v2/oauth2"] as const
export type DexcomOAuthPath = typeof dexcomOAuthPaths[number]
export const dexcomDefaultOAuthPath: DexcomOAuthPath = "/v3/oauth2"

const oauthPath = (endpoints: ProviderEndpoints): string => endpoints.oauthPath ?? dexcomDefaultOAuthPath

/** The only scope Dexcom accepts. */
export const dexcomDefaultScopes: ReadonlyArray<string> = ["offline_access"]

const context = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Dexcom",
  operation,
  readError: ProviderHttp.oauthErrorReader,
  secrets: input === undefined ? [] : ProviderHttp.secretsOf(input)
})

const DataRange = Schema.Struct({ userId: Schema.NonEmptyString })

export const DexcomAdapter: ProviderAdapter = {
  provider: "Dexcom",
  authType: "OAuth2",
  defaultScopes: dexcomDefaultScopes,
  defaultEndpoints: dexcomDefaultEndpoints,

  startAuthorization: (input) =>
    Effect.succeed({
      authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}${oauthPath(input.endpoints)}/login`, [
        ["client_id", input.credentials.clientId],
        ["redirect_uri", input.callbackUrl],
        ["response_type", "code"],
        // Any other scope is refused, whatever was asked for.
        ["scope", dexcomDefaultScopes.join(" ")],
        ["state", input.state]
      ]),
      requestToken: null,
      requestTokenSecret: null,
      usesPkce: false
    }),

  exchange: (input) =>
    // `expires_in` is seconds (7200), whatever the specification's text says (milliseconds)
    OAuth2.requestTokens(context("token exchange", input), {
      url: `${input.endpoints.tokenBaseUrl}${oauthPath(input.endpoints)}/token`,
      clientAuth: "body",
      credentials: input.credentials,
      form: { grant_type: "authorization_code", code: input.code, redirect_uri: input.callbackUrl },
      fallbackScopes: dexcomDefaultScopes.join(" "),
      fallbackRefreshToken: null
    }),

  providerUserId: (input) => {
    const ctx = context("data range read", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.get(`${input.endpoints.apiBaseUrl}/v3/users/self/dataRange`).pipe(
        HttpClientRequest.bearerToken(input.tokens.accessToken),
        HttpClientRequest.acceptJson
      ),
      ProviderHttp.readJson(ctx, DataRange)
    ).pipe(Effect.map((range) => range.userId))
  },

  refresh: (input) => {
    const ctx = context("token refresh", input)
    return OAuth2.refreshTokens(ctx, {
      url: `${input.endpoints.tokenBaseUrl}${oauthPath(input.endpoints)}/token`,
      clientAuth: "body",
      credentials: input.credentials,
      tokens: input.tokens
    })
  },

  revoke: () => Effect.void
}
