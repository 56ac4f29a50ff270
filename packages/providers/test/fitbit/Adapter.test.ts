/**
 * Fitbit's adapter against a scripted HttpClient: the PKCE authorization URL, Basic client
 * authentication at the token endpoint, token mapping and rotation, the `errors` error body,
 * the profile read and revocation.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ProviderError } from "@pulsebridge/providers"
import { codeChallengeS256, FitbitAdapter, isInvalidGrant, makeCodeVerifier } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import {
  basic,
  callbackUrl,
  credentials,
  endpoints,
  fakeHttp,
  json,
  oauth2Tokens,
  queryOf,
  text
} from "../fixtures/FakeHttp.js"

const tokenReply = {
  access_token: "fitbit-access-1",
  expires_in: 28800,
  refresh_token: "fitbit-refresh-1",
  scope: "activity profile",
  token_type: "Bearer",
  user_id: "GGNJL9"
}

const exchangeInput = (verifier: string | null) => ({
  credentials,
  endpoints,
  callbackUrl,
  code: "fitbit-code-xyz",
  codeVerifier: verifier,
  requestToken: null,
  requestTokenSecret: null
})

describe("FitbitAdapter", () => {
  it.effect("builds the authorization URL with PKCE S256", () =>
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
      expect(start.authorizationUrl.startsWith("https://auth.example.test/oauth2/authorize?")).toBe(true)
      expect(queryOf(start.authorizationUrl)).toEqual({
        response_type: "code",
        client_id: "client-id-123",
        redirect_uri: callbackUrl,
        scope: "activity heartrate profile sleep",
        state: "state-abcdefgh",
        code_challenge: codeChallengeS256(verifier),
        code_challenge_method: "S256"
      })
      // Spaces as %20: not every server reads `+` as a space.
      expect(start.authorizationUrl).toContain("scope=activity%20heartrate%20profile%20sleep")
      expect(start).toMatchObject({ requestToken: null, requestTokenSecret: null, usesPkce: true })
      expect(http.sent).toHaveLength(0)
    }))

  it.effect("uses the scopes asked for", () =>
    Effect.gen(function*() {
      const start = yield* FitbitAdapter.startAuthorization({
        credentials,
        endpoints,
        callbackUrl,
        state: "state-abcdefgh",
        scopes: ["activity", "weight"],
        codeVerifier: makeCodeVerifier()
      })
      expect(queryOf(start.authorizationUrl).scope).toBe("activity weight")
    }).pipe(Effect.provide(fakeHttp(() => json(500, {})).layer)))

  it.effect("exchanges the code with a Basic header and the verifier", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_700_000_000_000)
      const http = fakeHttp(() => json(200, tokenReply))
      const tokens = yield* FitbitAdapter.exchange(exchangeInput("verifier-1234")).pipe(Effect.provide(http.layer))
      expect(http.sent).toHaveLength(1)
      const [sent] = http.sent
      expect(sent.method).toBe("POST")
      expect(sent.url.href).toBe("https://token.example.test/prefix/oauth2/token")
      expect(sent.contentType).toBe("application/x-www-form-urlencoded")
      expect(sent.headers.authorization).toBe(basic("client-id-123", "client-secret-456"))
      expect(Object.fromEntries(sent.form)).toEqual({
        grant_type: "authorization_code",
        code: "fitbit-code-xyz",
        redirect_uri: callbackUrl,
        code_verifier: "verifier-1234"
      })
      expect(Redacted.value(tokens.accessToken)).toBe("fitbit-access-1")
      expect(Redacted.value(tokens.refreshToken!)).toBe("fitbit-refresh-1")
      expect(tokens.tokenSecret).toBeNull()
      expect(tokens.expiresAt).toEqual(new Date(1_700_000_000_000 + 28800 * 1000))
      expect(tokens.scopes).toBe("activity profile")
    }))

  it.effect("reports the scopes asked for when the reply names none", () =>
    Effect.gen(function*() {
      const { scope: _, ...withoutScope } = tokenReply
      const http = fakeHttp(() => json(200, withoutScope))
      const tokens = yield* FitbitAdapter.exchange({ ...exchangeInput("v".repeat(43)), scopes: ["activity"] }).pipe(
        Effect.provide(http.layer)
      )
      expect(tokens.scopes).toBe("activity")
    }))

  it.effect("refreshes with the refresh token and keeps the rotated pair", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(200, { ...tokenReply, access_token: "fitbit-access-2", refresh_token: "fitbit-refresh-2" })
      )
      const tokens = yield* FitbitAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      const [sent] = http.sent
      expect(sent.method).toBe("POST")
      expect(sent.url.href).toBe("https://token.example.test/prefix/oauth2/token")
      expect(sent.headers.authorization).toBe(basic("client-id-123", "client-secret-456"))
      expect(Object.fromEntries(sent.form)).toEqual({
        grant_type: "refresh_token",
        refresh_token: "refresh-token-rrrr"
      })
      expect(Redacted.value(tokens.accessToken)).toBe("fitbit-access-2")
      expect(Redacted.value(tokens.refreshToken!)).toBe("fitbit-refresh-2")
      expect(tokens.expiresAt).toEqual(new Date(28800 * 1000))
    }))

  it.effect("maps invalid_grant from the errors body", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(400, {
          errors: [{ errorType: "invalid_grant", message: "Refresh token invalid: refresh-token-rrrr" }],
          success: false
        })
      )
      const error = yield* FitbitAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer),
        Effect.flip
      )
      expect(error._tag).toBe("ProviderError")
      expect(error).toMatchObject({
        provider: "Fitbit",
        operation: "token refresh",
        status: 400,
        code: "invalid_grant"
      })
      expect(isInvalidGrant(error)).toBe(true)
      // Fitbit quotes the token back; the message must not.
      expect(error.message).not.toContain("refresh-token-rrrr")
      expect(error.message).toContain("Refresh token invalid: [redacted]")
    }))

  it.effect("reads the encoded user id from the profile", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, { user: { encodedId: "GGNJL9", fullName: "A" } }))
      const id = yield* FitbitAdapter.providerUserId({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      expect(id).toBe("GGNJL9")
      const [sent] = http.sent
      expect(sent.method).toBe("GET")
      expect(sent.url.href).toBe("https://api.example.test/1/user/-/profile.json")
      expect(sent.headers.authorization).toBe("Bearer access-token-aaaa")
    }))

  it.effect("revokes with the refresh token and a Basic header", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, {}))
      yield* FitbitAdapter.revoke({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(Effect.provide(http.layer))
      const [sent] = http.sent
      expect(sent.method).toBe("POST")
      expect(sent.url.href).toBe("https://token.example.test/prefix/oauth2/revoke")
      expect(sent.contentType).toBe("application/x-www-form-urlencoded")
      expect(sent.headers.authorization).toBe(basic("client-id-123", "client-secret-456"))
      expect(Object.fromEntries(sent.form)).toEqual({ token: "refresh-token-rrrr" })
    }))

  it.effect("revokes with the access token when there is no refresh token", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => text(200, ""))
      yield* FitbitAdapter.revoke({ credentials, endpoints, tokens: oauth2Tokens({ refreshToken: null }) }).pipe(
        Effect.provide(http.layer)
      )
      expect(Object.fromEntries(http.sent[0].form)).toEqual({ token: "access-token-aaaa" })
    }))

  it.effect("fails a refresh without a refresh token before calling Fitbit", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, tokenReply))
      const error: ProviderError = yield* FitbitAdapter.refresh({
        credentials,
        endpoints,
        tokens: oauth2Tokens({ refreshToken: null })
      }).pipe(Effect.provide(http.layer), Effect.flip)
      expect(error.code).toBe("invalid_grant")
      expect(http.sent).toHaveLength(0)
    }))
})
