/**
 * Fitbit's adapter (Google OAuth 2.0 and the Google Health API) against a scripted HttpClient:
 * the consent URL with PKCE, offline access and consent prompt; the client in the token form;
 * Google's token replies (no user named, no refresh token on refresh); both of Google's error
 * bodies; the user id from `users.getIdentity`; revocation; the scope nothing can be read without.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ProviderError } from "@pulsebridge/providers"
import {
  codeChallengeS256,
  FitbitAdapter,
  googleHealthActivityScope,
  isGoogleHealthGrant,
  isInvalidGrant,
  makeCodeVerifier
} from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import {
  callbackUrl,
  credentials,
  endpoints,
  fakeHttp,
  json,
  oauth2Tokens,
  queryOf,
  text
} from "../fixtures/FakeHttp.js"

const activity = "https://www.googleapis.com/auth/googlehealth.activity_and_fitness.readonly"
const sleep = "https://www.googleapis.com/auth/googlehealth.sleep.readonly"
const healthMetrics = "https://www.googleapis.com/auth/googlehealth.health_metrics_and_measurements.readonly"
const settings = "https://www.googleapis.com/auth/googlehealth.settings.readonly"

/** A token reply as Google's token endpoint writes it (an authorization code exchange with offline access). */
const tokenReply = {
  access_token: "ya29.a0AfB_byC-access",
  expires_in: 3599,
  refresh_token: "1//0gLrefresh",
  scope: `${activity} ${settings}`,
  token_type: "Bearer"
}

const exchangeInput = (verifier: string | null) => ({
  credentials,
  endpoints,
  callbackUrl,
  code: "4/0AcvDMrB-code",
  codeVerifier: verifier,
  requestToken: null,
  requestTokenSecret: null
})

describe("FitbitAdapter (Google OAuth 2.0)", () => {
  it.effect("builds Google's consent URL with PKCE S256, offline access and the consent prompt", () =>
    Effect.gen(function*() {
      const verifier = makeCodeVerifier()
      const http = fakeHttp(() => json(500, {}))
      const start = yield* FitbitAdapter.startAuthorization({
        credentials,
        endpoints,
        callbackUrl,
        state: "state-abcdefgh",
        scopes: [],
        codeVerifier: verifier
      }).pipe(Effect.provide(http.layer))
      expect(start.authorizationUrl.startsWith("https://auth.example.test/o/oauth2/v2/auth?")).toBe(true)
      expect(queryOf(start.authorizationUrl)).toEqual({
        response_type: "code",
        client_id: "client-id-123",
        redirect_uri: callbackUrl,
        scope: `${activity} ${sleep} ${healthMetrics}`,
        state: "state-abcdefgh",
        code_challenge: codeChallengeS256(verifier),
        code_challenge_method: "S256",
        access_type: "offline",
        prompt: "consent"
      })
      expect(start).toMatchObject({ requestToken: null, requestTokenSecret: null, usesPkce: true })
      expect(http.sent).toHaveLength(0)
    }))

  it("asks for activity, sleep and health metrics, requires activity only, and tells Google Health grants from the Web API's", () => {
    expect(FitbitAdapter.defaultEndpoints).toEqual({
      authBaseUrl: "https://accounts.google.com",
      tokenBaseUrl: "https://oauth2.googleapis.com",
      apiBaseUrl: "https://health.googleapis.com"
    })
    expect(FitbitAdapter.defaultScopes).toEqual([googleHealthActivityScope, sleep, healthMetrics])
    expect(FitbitAdapter.requiredScopes).toEqual([activity])
    expect(isGoogleHealthGrant(`${activity} ${settings}`)).toBe(true)
    expect(isGoogleHealthGrant("activity heartrate profile sleep")).toBe(false)
    expect(isGoogleHealthGrant("")).toBe(false)
  })

  it.effect("exchanges the code with the client and the verifier in the form; the reply's scopes are the grant", () =>
    Effect.gen(function*() {
      const verifier = makeCodeVerifier()
      const http = fakeHttp(() => json(200, tokenReply))
      const tokens = yield* FitbitAdapter.exchange(exchangeInput(verifier)).pipe(Effect.provide(http.layer))
      expect(http.sent).toHaveLength(1)
      const sent = http.sent[0]!
      expect(`${sent.method} ${sent.url.href}`).toBe("POST https://token.example.test/prefix/token")
      expect(sent.headers["authorization"]).toBeUndefined()
      expect(Object.fromEntries(sent.form)).toEqual({
        grant_type: "authorization_code",
        code: "4/0AcvDMrB-code",
        redirect_uri: callbackUrl,
        code_verifier: verifier,
        client_id: "client-id-123",
        client_secret: "client-secret-456"
      })
      expect(Redacted.value(tokens.accessToken)).toBe("ya29.a0AfB_byC-access")
      expect(Redacted.value(tokens.refreshToken!)).toBe("1//0gLrefresh")
      expect(tokens.scopes).toBe(`${activity} ${settings}`)
    }))

  it.effect("refreshes without a new refresh token in the reply: the current one stays", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(200, { access_token: "ya29.new", expires_in: 3599, scope: activity, token_type: "Bearer" })
      )
      const tokens = yield* FitbitAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      expect(Object.fromEntries(http.sent[0]!.form)).toMatchObject({
        grant_type: "refresh_token",
        refresh_token: "refresh-token-rrrr",
        client_id: "client-id-123"
      })
      expect(Redacted.value(tokens.accessToken)).toBe("ya29.new")
      expect(Redacted.value(tokens.refreshToken!)).toBe("refresh-token-rrrr")
    }))

  it.effect("reads Google's token errors: a revoked refresh token is invalid_grant", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(400, { error: "invalid_grant", error_description: "Token has been expired or revoked." })
      )
      const error: ProviderError = yield* Effect.flip(
        FitbitAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(Effect.provide(http.layer))
      )
      expect(error).toMatchObject({ provider: "Fitbit", status: 400, code: "invalid_grant" })
      expect(isInvalidGrant(error)).toBe(true)
    }))

  it.effect("reads the user's id from users.getIdentity with the bearer token", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(200, { name: "users/me/identity", healthUserId: "2514986753", legacyUserId: "GGNJL9" })
      )
      const id = yield* FitbitAdapter.providerUserId({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      expect(id).toBe("2514986753")
      const sent = http.sent[0]!
      expect(`${sent.method} ${sent.url.href}`).toBe("GET https://api.example.test/v4/users/me/identity")
      expect(sent.headers["authorization"]).toBe("Bearer access-token-aaaa")
    }))

  it.effect("maps the API's error body: UNAUTHENTICATED is invalid_token, missing scopes insufficient_scope", () =>
    Effect.gen(function*() {
      const cases = [
        [401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", "invalid_token"],
        [403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.", "insufficient_scope"],
        [410, "GONE", "Gone", "GONE"]
      ] as const
      for (const [status, name, message, code] of cases) {
        const http = fakeHttp(() => json(status, { error: { code: status, message, status: name } }))
        const error = yield* Effect.flip(
          FitbitAdapter.providerUserId({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
            Effect.provide(http.layer)
          )
        )
        expect(error).toMatchObject({ provider: "Fitbit", status, code })
      }
      const html = fakeHttp(() => text(502, "<html>Bad Gateway</html>", "text/html"))
      const error = yield* Effect.flip(
        FitbitAdapter.providerUserId({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
          Effect.provide(html.layer)
        )
      )
      expect(error).toMatchObject({ provider: "Fitbit", status: 502 })
    }))

  it.effect("revokes the refresh token at /revoke (the access token when there is none), no secret in the URL", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, {}))
      yield* FitbitAdapter.revoke({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(Effect.provide(http.layer))
      yield* FitbitAdapter.revoke({ credentials, endpoints, tokens: oauth2Tokens({ refreshToken: null }) }).pipe(
        Effect.provide(http.layer)
      )
      expect(http.sent.map((s) => `${s.method} ${s.url.href}`)).toEqual([
        "POST https://token.example.test/prefix/revoke",
        "POST https://token.example.test/prefix/revoke"
      ])
      expect(http.sent.map((s) => Object.fromEntries(s.form))).toEqual([
        { token: "refresh-token-rrrr" },
        { token: "access-token-aaaa" }
      ])
    }))
})
