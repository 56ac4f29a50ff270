/**
 * Garmin's OAuth 1.0a three legs (request token, user confirmation, access token with the
 * verifier), the signed user-id read and deregistration, and its `{"errorMessage"}` error body.
 * Garmin's access tokens never expire, so there is nothing to refresh.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ClientCredentials, ProviderAdapter, ProviderEndpoints, ProviderError, TokenInput } from "../Adapter.js"
import * as OAuth1 from "../internal/OAuth1.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"

export const garminDefaultEndpoints: ProviderEndpoints = {
  authBaseUrl: "https://connect.garmin.com",
  tokenBaseUrl: "https://connectapi.garmin.com",
  apiBaseUrl: "https://apis.garmin.com"
}

const readError = ProviderHttp.errorReader(
  Schema.Struct({ errorMessage: Schema.String }),
  (body) => ({ description: body.errorMessage })
)

const context = (operation: string, input?: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Garmin",
  operation,
  readError,
  secrets: input === undefined ? [] : ProviderHttp.secretsOf(input)
})

/** The form-encoded reply of both token legs. */
const TokenReply = Schema.Struct({
  oauth_token: Schema.NonEmptyString,
  oauth_token_secret: Schema.Redacted(Schema.NonEmptyString)
})

const UserId = Schema.Struct({ userId: Schema.NonEmptyString })

const signed = (
  method: "GET" | "POST" | "DELETE",
  url: string,
  credentials: ClientCredentials,
  token?: OAuth1.SignedRequest["token"],
  oauthParams?: OAuth1.SignedRequest["oauthParams"]
) =>
  HttpClientRequest.make(method)(url).pipe(
    HttpClientRequest.setHeader(
      "Authorization",
      OAuth1.authorizationHeader({ method, url, credentials, token, oauthParams })
    )
  )

/** The user's access token and its secret, which every signed data call needs. */
const accessToken = (
  ctx: CallContext,
  input: TokenInput
): Effect.Effect<NonNullable<OAuth1.SignedRequest["token"]>, ProviderError> =>
  input.tokens.tokenSecret === null
    ? ProviderHttp.refuse(ctx, "the tokens have no token secret (not OAuth 1.0a tokens)")
    : Effect.succeed({ key: Redacted.value(input.tokens.accessToken), secret: input.tokens.tokenSecret })

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
      signed("POST", url, input.credentials),
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
      signed("POST", url, input.credentials, { key: requestToken, secret: requestTokenSecret }, {
        oauth_verifier: input.code
      }),
      ProviderHttp.readForm(ctx, TokenReply)
    ).pipe(
      Effect.map((reply) => ({
        accessToken: Redacted.make(reply.oauth_token),
        refreshToken: null,
        tokenSecret: reply.oauth_token_secret,
        expiresAt: null,
        scopes: ""
      }))
    )
  },

  providerUserId: (input) => {
    const ctx = context("user id read", input)
    const url = `${input.endpoints.apiBaseUrl}/wellness-api/rest/user/id`
    return accessToken(ctx, input).pipe(
      Effect.flatMap((token) =>
        ProviderHttp.send(
          ctx,
          HttpClientRequest.acceptJson(signed("GET", url, input.credentials, token)),
          ProviderHttp.readJson(ctx, UserId)
        )
      ),
      Effect.map((reply) => reply.userId)
    )
  },

  refresh: () =>
    ProviderHttp.refuse(
      context("token refresh"),
      "OAuth 1.0a access tokens do not expire and cannot be refreshed; they stay valid until the user deregisters"
    ),

  revoke: (input) => {
    const ctx = context("deregistration", input)
    const url = `${input.endpoints.apiBaseUrl}/wellness-api/rest/user/registration`
    return Effect.flatMap(
      accessToken(ctx, input),
      (token) => ProviderHttp.send(ctx, signed("DELETE", url, input.credentials, token), ProviderHttp.readNothing)
    )
  }
}
