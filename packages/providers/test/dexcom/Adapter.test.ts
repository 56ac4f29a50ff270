/**
 * Dexcom's adapter against a scripted HttpClient: the login URL with `offline_access`, credentials
 * in the form body, rotation on refresh, the data-range user id, revocation without a call, and
 * the regional host table.
 */
import { describe, expect, it } from "@effect/vitest"
import { DexcomAdapter, dexcomEndpoints, DexcomHosts } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { callbackUrl, credentials, endpoints, fakeHttp, json, oauth2Tokens, queryOf } from "../fixtures/FakeHttp.js"

const tokenReply = {
  access_token: "dexcom-access-1",
  expires_in: 7200,
  token_type: "Bearer",
  refresh_token: "dexcom-refresh-1",
  refresh_expires_in: 0,
  "not-before-policy": 0
}

const exchangeInput = {
  credentials,
  endpoints,
  callbackUrl,
  code: "dexcom-code-1",
  codeVerifier: null,
  requestToken: null,
  requestTokenSecret: null
}

describe("DexcomAdapter", () => {
  it("defaults to the US production host and lists the regions", () => {
    expect(DexcomHosts).toEqual({
      sandbox: "https://sandbox-api.dexcom.com",
      us: "https://api.dexcom.com",
      eu: "https://api.dexcom.eu",
      jp: "https://api.dexcom.jp"
    })
    expect(DexcomAdapter.defaultEndpoints).toEqual({
      authBaseUrl: "https://api.dexcom.com",
      tokenBaseUrl: "https://api.dexcom.com",
      apiBaseUrl: "https://api.dexcom.com"
    })
    expect(dexcomEndpoints("eu").tokenBaseUrl).toBe("https://api.dexcom.eu")
  })

  it.effect("builds the login URL with offline_access whatever was asked for", () =>
    Effect.gen(function*() {
      const start = yield* DexcomAdapter.startAuthorization({
        credentials,
        endpoints,
        callbackUrl,
        state: "state-abcdefgh",
        scopes: ["egv"],
        codeVerifier: "v".repeat(43)
      })
      expect(start.authorizationUrl.startsWith("https://auth.example.test/v3/oauth2/login?")).toBe(true)
      expect(queryOf(start.authorizationUrl)).toEqual({
        client_id: "client-id-123",
        redirect_uri: callbackUrl,
        response_type: "code",
        scope: "offline_access",
        state: "state-abcdefgh"
      })
      expect(start.usesPkce).toBe(false)
    }).pipe(Effect.provide(fakeHttp(() => json(500, {})).layer)))

  it.effect("exchanges the code with the credentials in the body", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, tokenReply))
      const tokens = yield* DexcomAdapter.exchange(exchangeInput).pipe(Effect.provide(http.layer))
      const [sent] = http.sent
      expect(sent.method).toBe("POST")
      expect(sent.url.href).toBe("https://token.example.test/prefix/v3/oauth2/token")
      expect(sent.contentType).toBe("application/x-www-form-urlencoded")
      expect(sent.headers.authorization).toBeUndefined()
      expect(Object.fromEntries(sent.form)).toEqual({
        grant_type: "authorization_code",
        code: "dexcom-code-1",
        redirect_uri: callbackUrl,
        client_id: "client-id-123",
        client_secret: "client-secret-456"
      })
      expect(Redacted.value(tokens.accessToken)).toBe("dexcom-access-1")
      expect(Redacted.value(tokens.refreshToken!)).toBe("dexcom-refresh-1")
      // `expires_in` is seconds (the test clock starts at 0): two hours, not 7.2 seconds
      expect(tokens.expiresAt).toEqual(new Date(7200 * 1000))
      // Dexcom names no scope in the reply.
      expect(tokens.scopes).toBe("offline_access")
    }))

  it.effect("uses the configured /v2/oauth2 paths for login, exchange and refresh", () =>
    Effect.gen(function*() {
      const v2 = { ...endpoints, oauthPath: "/v2/oauth2" }
      const start = yield* DexcomAdapter.startAuthorization({
        credentials,
        endpoints: v2,
        callbackUrl,
        state: "state-abcdefgh",
        scopes: [],
        codeVerifier: "v".repeat(43)
      })
      expect(start.authorizationUrl.startsWith("https://auth.example.test/v2/oauth2/login?")).toBe(true)
      const http = fakeHttp(() => json(200, tokenReply))
      yield* DexcomAdapter.exchange({ ...exchangeInput, endpoints: v2 }).pipe(Effect.provide(http.layer))
      yield* DexcomAdapter.refresh({ credentials, endpoints: v2, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      expect(http.sent.map((s) => s.url.href)).toEqual([
        "https://token.example.test/prefix/v2/oauth2/token",
        "https://token.example.test/prefix/v2/oauth2/token"
      ])
    }).pipe(Effect.provide(fakeHttp(() => json(500, {})).layer)))

  it.effect("refreshes and keeps the rotated pair", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(200, { ...tokenReply, access_token: "dexcom-access-2", refresh_token: "dexcom-refresh-2" })
      )
      const tokens = yield* DexcomAdapter.refresh({
        credentials,
        endpoints,
        tokens: oauth2Tokens({ scopes: "offline_access" })
      }).pipe(Effect.provide(http.layer))
      expect(Object.fromEntries(http.sent[0].form)).toEqual({
        grant_type: "refresh_token",
        refresh_token: "refresh-token-rrrr",
        client_id: "client-id-123",
        client_secret: "client-secret-456"
      })
      expect(Redacted.value(tokens.accessToken)).toBe("dexcom-access-2")
      expect(Redacted.value(tokens.refreshToken!)).toBe("dexcom-refresh-2")
      expect(tokens.scopes).toBe("offline_access")
    }))

  it.effect("keeps the old refresh token when a refresh reply does not rotate it", () =>
    Effect.gen(function*() {
      const { refresh_token: _, ...withoutRefresh } = tokenReply
      const http = fakeHttp(() => json(200, withoutRefresh))
      const tokens = yield* DexcomAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      expect(Redacted.value(tokens.refreshToken!)).toBe("refresh-token-rrrr")
    }))

  it.effect("maps invalid_grant", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(400, { error: "invalid_grant", error_description: "Invalid refresh token" }))
      const error = yield* DexcomAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer),
        Effect.flip
      )
      expect(error).toMatchObject({ provider: "Dexcom", status: 400, code: "invalid_grant" })
    }))

  it.effect("reads userId from the data range", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(200, { recordType: "dataRange", recordVersion: "3.0", userId: "8f2a-user", egvs: {} })
      )
      const id = yield* DexcomAdapter.providerUserId({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      expect(id).toBe("8f2a-user")
      const [sent] = http.sent
      expect(sent.method).toBe("GET")
      expect(sent.url.href).toBe("https://api.example.test/v3/users/self/dataRange")
      expect(sent.headers.authorization).toBe("Bearer access-token-aaaa")
    }))

  it.effect("revokes without calling Dexcom", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(500, {}))
      yield* DexcomAdapter.revoke({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(Effect.provide(http.layer))
      expect(http.sent).toHaveLength(0)
    }))
})
