/**
 * Garmin's OAuth 1.0a adapter against a scripted HttpClient. Every signature is recomputed from the
 * header's own parameters with node:crypto (fixtures/OAuth1.ts), independently of the signing
 * library: the request-token leg is keyed with the consumer secret alone, the access-token leg
 * with the request-token secret and the verifier, data calls with the access-token secret.
 */
import { describe, expect, it } from "@effect/vitest"
import { GarminAdapter } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { callbackUrl, credentials, endpoints, fakeHttp, json, noContent, text } from "../fixtures/FakeHttp.js"
import type { SentRequest } from "../fixtures/FakeHttp.js"
import { checkSignature } from "../fixtures/OAuth1.js"

const form = "application/x-www-form-urlencoded"

const garminTokens = {
  accessToken: Redacted.make("uat-token-1111"),
  refreshToken: null,
  tokenSecret: Redacted.make("uat-secret-2222"),
  expiresAt: null,
  scopes: ""
}

const expectSigned = (sent: SentRequest, tokenSecret: string) => {
  const check = checkSignature({
    method: sent.method,
    url: sent.url,
    authorization: sent.headers.authorization,
    consumerSecret: "client-secret-456",
    tokenSecret,
    form: sent.form
  })
  expect(check.actual).toBe(check.expected)
  expect(check.header).toMatchObject({
    oauth_consumer_key: "client-id-123",
    oauth_signature_method: "HMAC-SHA1",
    oauth_version: "1.0"
  })
  expect(check.header.oauth_nonce.length).toBeGreaterThanOrEqual(16)
  expect(Math.abs(Number(check.header.oauth_timestamp) - Date.now() / 1000)).toBeLessThan(60)
  return check
}

describe("GarminAdapter", () => {
  it.effect("gets a request token and builds the confirm URL", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        text(200, "oauth_token=rt-abc&oauth_token_secret=rts-def&oauth_callback_confirmed=true", form)
      )
      const start = yield* GarminAdapter.startAuthorization({
        credentials,
        endpoints,
        callbackUrl,
        state: "unused-state-value",
        scopes: [],
        codeVerifier: "unused".repeat(8)
      }).pipe(Effect.provide(http.layer))

      expect(http.sent).toHaveLength(1)
      const [sent] = http.sent
      expect(sent.method).toBe("POST")
      expect(sent.url.href).toBe("https://token.example.test/prefix/oauth-service/oauth/request_token")
      expect(sent.body).toBe("")
      const check = expectSigned(sent, "")
      expect(check.header.oauth_token).toBeUndefined()
      expect(check.baseString.startsWith(
        "POST&https%3A%2F%2Ftoken.example.test%2Fprefix%2Foauth-service%2Foauth%2Frequest_token&"
      )).toBe(true)

      expect(start.authorizationUrl).toBe(
        `https://auth.example.test/oauthConfirm?oauth_token=rt-abc&oauth_callback=${encodeURIComponent(callbackUrl)}`
      )
      expect(start.requestToken).toBe("rt-abc")
      expect(Redacted.value(start.requestTokenSecret!)).toBe("rts-def")
      expect(start.usesPkce).toBe(false)
    }))

  it.effect("exchanges the verifier, signed with the request-token secret", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => text(200, "oauth_token=uat-token-1111&oauth_token_secret=uat-secret-2222", form))
      const tokens = yield* GarminAdapter.exchange({
        credentials,
        endpoints,
        callbackUrl,
        code: "verifier-789",
        codeVerifier: null,
        requestToken: "rt-abc",
        requestTokenSecret: Redacted.make("rts-def")
      }).pipe(Effect.provide(http.layer))

      const [sent] = http.sent
      expect(sent.method).toBe("POST")
      expect(sent.url.href).toBe("https://token.example.test/prefix/oauth-service/oauth/access_token")
      const check = expectSigned(sent, "rts-def")
      expect(check.header.oauth_token).toBe("rt-abc")
      expect(check.header.oauth_verifier).toBe("verifier-789")
      expect(check.baseString).toContain("oauth_verifier%3Dverifier-789")
      // Keyed without the request-token secret the signature must not verify.
      const unkeyed = checkSignature({
        method: sent.method,
        url: sent.url,
        authorization: sent.headers.authorization,
        consumerSecret: "client-secret-456",
        tokenSecret: ""
      })
      expect(unkeyed.expected).not.toBe(unkeyed.actual)

      expect(Redacted.value(tokens.accessToken)).toBe("uat-token-1111")
      expect(Redacted.value(tokens.tokenSecret!)).toBe("uat-secret-2222")
      expect(tokens).toMatchObject({ refreshToken: null, expiresAt: null, scopes: "" })
    }))

  it.effect("refuses an exchange without the request token", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => text(200, "", form))
      const error = yield* GarminAdapter.exchange({
        credentials,
        endpoints,
        callbackUrl,
        code: "verifier-789",
        codeVerifier: null,
        requestToken: null,
        requestTokenSecret: null
      }).pipe(Effect.provide(http.layer), Effect.flip)
      expect(error._tag).toBe("ProviderError")
      expect(http.sent).toHaveLength(0)
    }))

  it.effect("reads the user id with a signed GET", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, { userId: "d3315b1072421d0dd7c8f6b8e1de4df8" }))
      const id = yield* GarminAdapter.providerUserId({ credentials, endpoints, tokens: garminTokens }).pipe(
        Effect.provide(http.layer)
      )
      expect(id).toBe("d3315b1072421d0dd7c8f6b8e1de4df8")
      const [sent] = http.sent
      expect(sent.method).toBe("GET")
      expect(sent.url.href).toBe("https://api.example.test/wellness-api/rest/user/id")
      expect(expectSigned(sent, "uat-secret-2222").header.oauth_token).toBe("uat-token-1111")
    }))

  it.effect("deregisters with a signed DELETE", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => noContent())
      yield* GarminAdapter.revoke({ credentials, endpoints, tokens: garminTokens }).pipe(Effect.provide(http.layer))
      const [sent] = http.sent
      expect(sent.method).toBe("DELETE")
      expect(sent.url.href).toBe("https://api.example.test/wellness-api/rest/user/registration")
      expect(expectSigned(sent, "uat-secret-2222").header.oauth_token).toBe("uat-token-1111")
    }))

  it.effect("refuses to refresh: OAuth 1.0a tokens do not expire", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, {}))
      const error = yield* GarminAdapter.refresh({ credentials, endpoints, tokens: garminTokens }).pipe(
        Effect.provide(http.layer),
        Effect.flip
      )
      expect(error).toMatchObject({ provider: "Garmin", operation: "token refresh" })
      expect(error.message).toContain("do not expire")
      expect(http.sent).toHaveLength(0)
    }))

  it.effect("maps the errorMessage body", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(401, { errorMessage: "Invalid token uat-token-1111" }))
      const error = yield* GarminAdapter.providerUserId({ credentials, endpoints, tokens: garminTokens }).pipe(
        Effect.provide(http.layer),
        Effect.flip
      )
      expect(error).toMatchObject({ provider: "Garmin", status: 401, code: undefined })
      expect(error.message).toContain("Invalid token [redacted]")
      expect(error.message).not.toContain("uat-token-1111")
    }))

  it.effect("treats a token reply without the secret as malformed", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => text(200, "oauth_token=rt-abc", form))
      const error = yield* GarminAdapter.startAuthorization({
        credentials,
        endpoints,
        callbackUrl,
        state: "unused-state-value",
        scopes: [],
        codeVerifier: "unused".repeat(8)
      }).pipe(Effect.provide(http.layer), Effect.flip)
      expect(error.message).toBe("Garmin request token: malformed response (invalid: oauth_token_secret)")
    }))
})
