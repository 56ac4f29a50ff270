/**
 * WHOOP's OAuth 2.0 (an ORY Hydra server: client credentials in the form body, no PKCE, refresh
 * tokens only with the `offline` scope and rotated on every refresh), the basic-profile read that
 * yields the user id, and revocation of the user's grant.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ProviderAdapter, ProviderEndpoints } from "../Adapter.js"
import * as OAuth2 from "../internal/OAuth2.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"

export const whoopDefaultEndpoints: ProviderEndpoints = {
  authBaseUrl: "https://api.prod.whoop.com",
  tokenBaseUrl: "https://api.prod.whoop.com",
  apiBaseUrl: "https://api.prod.whoop.com"
}

export const whoopDefaultScopes: ReadonlyArray<string> = [
  "offline",
  "read:recovery",
  "read:cycles",
  "read:workout",
  "read:sleep",
  "read:profile",
  "read:body_measurement"
]

/** Hydra refuses shorter states with `invalid_state` before the consent page. */
const minStateLength = 8

const context = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "WHOOP",
  operation,
  readError: ProviderHttp.oauthErrorReader,
  secrets: input === undefined ? [] : ProviderHttp.secretsOf(input)
})

/** Without `offline` WHOOP issues no refresh token and the connection dies after an hour. */
const withOffline = (scopes: ReadonlyArray<string>): ReadonlyArray<string> => {
  const asked = scopes.length === 0 ? whoopDefaultScopes : scopes
  return asked.includes("offline") ? asked : ["offline", ...asked]
}

const BasicProfile = Schema.Struct({ user_id: Schema.Union(Schema.Int, Schema.NonEmptyString) })

export const WhoopAdapter: ProviderAdapter = {
  provider: "WHOOP",
  authType: "OAuth2",
  defaultScopes: whoopDefaultScopes,
  defaultEndpoints: whoopDefaultEndpoints,

  startAuthorization: (input) =>
    input.state.length < minStateLength
      ? ProviderHttp.refuse(context("authorization"), `state must be at least ${minStateLength} characters`)
      : Effect.succeed({
        authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}/oauth/oauth2/auth`, [
          ["response_type", "code"],
          ["client_id", input.credentials.clientId],
          ["redirect_uri", input.callbackUrl],
          ["scope", withOffline(input.scopes).join(" ")],
          ["state", input.state]
        ]),
        requestToken: null,
        requestTokenSecret: null,
        usesPkce: false
      }),

  exchange: (input) =>
    OAuth2.requestTokens(context("token exchange", input), {
      url: `${input.endpoints.tokenBaseUrl}/oauth/oauth2/token`,
      clientAuth: "body",
      credentials: input.credentials,
      form: { grant_type: "authorization_code", code: input.code, redirect_uri: input.callbackUrl },
      fallbackScopes: withOffline(input.scopes ?? []).join(" "),
      fallbackRefreshToken: null
    }),

  providerUserId: (input) => {
    const ctx = context("profile read", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.get(`${input.endpoints.apiBaseUrl}/developer/v2/user/profile/basic`).pipe(
        HttpClientRequest.bearerToken(input.tokens.accessToken),
        HttpClientRequest.acceptJson
      ),
      ProviderHttp.readJson(ctx, BasicProfile)
    ).pipe(Effect.map((profile) => String(profile.user_id)))
  },

  refresh: (input) => {
    const ctx = context("token refresh", input)
    return OAuth2.refreshTokens(ctx, {
      url: `${input.endpoints.tokenBaseUrl}/oauth/oauth2/token`,
      clientAuth: "body",
      credentials: input.credentials,
      tokens: input.tokens,
      // WHOOP only issues the next refresh token when `offline` is asked for again.
      form: { scope: "offline" }
    })
  },

  revoke: (input) => {
    const ctx = context("access revocation", input)
    return ProviderHttp.send(
      ctx,
      HttpClientRequest.del(`${input.endpoints.apiBaseUrl}/developer/v2/user/access`).pipe(
        HttpClientRequest.bearerToken(input.tokens.accessToken)
      ),
      ProviderHttp.readNothing
    )
  }
}
