/**
 * Withings' OAuth 2.0 (developer.withings.com/api-reference, "OAuth2"): the authorization URL on
 * account.withings.com with comma-separated scopes, and its own token service, `POST /v2/oauth2` with
 * `action=requesttoken`, answered HTTP 200 with the status envelope (Status.ts). Of the service's two forms, the
 * one with `client_secret` in the form is used (the other signs with a `nonce`, which costs a call to
 * `/v2/signature` first). The reply names the user (`userid`), so no look-up is needed; access tokens last
 * `expires_in` (10800 s) and every refresh answers a new refresh token, after which the old one no longer works.
 *
 * Revocation is `action=revoke` on the same service, signed: a nonce from `POST /v2/signature` (`action=getnonce`,
 * `client_id`, `timestamp`, signature), then the revoke with `client_id`, `nonce`, `userid` and the signature. Each
 * signature is the HMAC-SHA256, keyed with the client secret, of the values of `action`, `client_id` and
 * `timestamp` or `nonce`, sorted by name and joined by commas (Signature v2 - Getnonce). Withings revokes the
 * access and refresh tokens and unsubscribes the user's notifications.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import type { ProviderAdapter, ProviderEndpoints, ProviderError, TokenInput, TokenSet } from "../Adapter.js"
import * as OAuth2 from "../internal/OAuth2.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { withingsContext, withingsPost } from "./Status.js"

export const withingsDefaultEndpoints: ProviderEndpoints = {
  authBaseUrl: "https://account.withings.com",
  tokenBaseUrl: "https://wbsapi.withings.net",
  apiBaseUrl: "https://wbsapi.withings.net"
}

/**
 * `user.metrics` (measures), `user.activity` (daily activity, workouts and sleep summaries: the notification
 * categories 16 and 44 are listed under it) and `user.info` (the user's own events, notification category 46).
 * `user.sleepevents` only covers the in-bed and out-of-bed events (50, 51), which nothing here reads.
 */
export const withingsDefaultScopes: ReadonlyArray<string> = ["user.info", "user.metrics", "user.activity"]

/** Withings' scopes are comma-separated; `TokenSet.scopes` is space-separated. */
export const withingsScopeList = (scopes: string): ReadonlyArray<string> =>
  scopes.split(/[\s,]+/).filter((scope) => scope !== "")

/** The token service's body. `userid` is an integer in the reference; some answers write it as a string. */
export const WithingsTokenBody = Schema.Struct({
  userid: Schema.Union(Schema.Int, Schema.NonEmptyString),
  access_token: Schema.Redacted(Schema.NonEmptyString),
  refresh_token: Schema.Redacted(Schema.NonEmptyString),
  expires_in: Schema.NonNegative,
  scope: Schema.optional(Schema.NullOr(Schema.String)),
  token_type: Schema.optional(Schema.String)
})

const tokenUrl = (endpoints: ProviderEndpoints) => `${endpoints.tokenBaseUrl}/v2/oauth2`

/** Asks the token service; the new refresh token always replaces the one presented. */
const requestTokens = (
  operation: string,
  input: Parameters<typeof ProviderHttp.secretsOf>[0] & {
    readonly credentials: TokenInput["credentials"]
    readonly endpoints: ProviderEndpoints
  },
  form: Readonly<Record<string, string>>,
  fallbackScopes: string
): Effect.Effect<TokenSet, ProviderError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const ctx = withingsContext(operation, input)
    const body = yield* withingsPost(ctx, {
      url: tokenUrl(input.endpoints),
      form: {
        action: "requesttoken",
        client_id: input.credentials.clientId,
        client_secret: Redacted.value(input.credentials.clientSecret),
        ...form
      },
      schema: WithingsTokenBody,
      kind: { _tag: "token" }
    })
    const now = yield* Clock.currentTimeMillis
    const scope = body.scope === undefined || body.scope === null ? fallbackScopes : body.scope
    return {
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      tokenSecret: null,
      expiresAt: new Date(now + body.expires_in * 1000),
      scopes: withingsScopeList(scope).join(" "),
      providerUserId: String(body.userid)
    }
  })

/** The HMAC-SHA256 signature of Withings' signed services: the values sorted by their names, comma-joined. */
export const withingsSignature = (params: Readonly<Record<string, string>>, clientSecret: string): string =>
  crypto
    .createHmac("sha256", clientSecret)
    .update(Object.keys(params).sort().map((key) => params[key]).join(","))
    .digest("hex")

const NonceBody = Schema.Struct({ nonce: Schema.NonEmptyString })

const refresh = (input: TokenInput) =>
  Effect.flatMap(
    OAuth2.requireRefreshToken(withingsContext("token refresh", input), input.tokens),
    (refreshToken) =>
      requestTokens(
        "token refresh",
        input,
        { grant_type: "refresh_token", refresh_token: Redacted.value(refreshToken) },
        input.tokens.scopes
      )
  )

export const WithingsAdapter: ProviderAdapter = {
  provider: "Withings",
  authType: "OAuth2",
  defaultScopes: withingsDefaultScopes,
  requiredScopes: [],
  defaultEndpoints: withingsDefaultEndpoints,

  startAuthorization: (input) =>
    Effect.succeed({
      authorizationUrl: ProviderHttp.withQuery(`${input.endpoints.authBaseUrl}/oauth2_user/authorize2`, [
        ["response_type", "code"],
        ["client_id", input.credentials.clientId],
        ["scope", (input.scopes.length === 0 ? withingsDefaultScopes : input.scopes).join(",")],
        ["redirect_uri", input.callbackUrl],
        ["state", input.state]
      ]),
      requestToken: null,
      requestTokenSecret: null,
      usesPkce: false
    }),

  exchange: (input) =>
    requestTokens(
      "token exchange",
      input,
      { grant_type: "authorization_code", code: input.code, redirect_uri: input.callbackUrl },
      (input.scopes ?? withingsDefaultScopes).join(",")
    ),

  // The token reply names the user; Withings' Public API has no "who am I" service to ask later.
  providerUserId: (input) =>
    input.tokens.providerUserId === undefined || input.tokens.providerUserId === null
      ? ProviderHttp.refuse(
        withingsContext("profile read"),
        "the user id comes only with the token reply (its userid); Withings has no service to read it later"
      )
      : Effect.succeed(input.tokens.providerUserId),

  refresh,

  revoke: (input) =>
    Effect.gen(function*() {
      const ctx = withingsContext("access revocation", input)
      // The user id is in the token reply; tokens stored without it are refreshed once to learn it (they are
      // about to be revoked anyway).
      const userId = input.tokens.providerUserId ?? (yield* refresh(input)).providerUserId
      if (userId === undefined || userId === null) {
        return yield* ProviderHttp.refuse(ctx, "the user id is unknown")
      }
      const clientId = input.credentials.clientId
      const secret = Redacted.value(input.credentials.clientSecret)
      const timestamp = String(Math.floor((yield* Clock.currentTimeMillis) / 1000))
      const getnonce = { action: "getnonce", client_id: clientId, timestamp }
      const { nonce } = yield* withingsPost(withingsContext("nonce request", input), {
        url: `${input.endpoints.tokenBaseUrl}/v2/signature`,
        form: { ...getnonce, signature: withingsSignature(getnonce, secret) },
        schema: NonceBody,
        kind: { _tag: "token" }
      })
      const revoke = { action: "revoke", client_id: clientId, nonce }
      yield* withingsPost(ctx, {
        url: tokenUrl(input.endpoints),
        form: { ...revoke, signature: withingsSignature(revoke, secret), userid: userId },
        schema: Schema.Unknown,
        kind: { _tag: "token" }
      })
    })
}
