/**
 * Garmin's OAuth 2.0 adapter against a scripted HttpClient: the authorization URL (PKCE S256, no
 * scope), the token endpoint's form (client credentials in the body, as Garmin's OAuth2 PKCE
 * specification has it) and reply (`refresh_token_expires_in`), the permissions read as scopes,
 * and the token exchange of an OAuth 1.0a connection, signed with the user's OAuth 1.0a token and
 * the kept OAuth 1.0a consumer secret.
 */
import { describe, expect, it } from "@effect/vitest"
import { codeChallengeS256, GarminOAuth2Adapter } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { callbackUrl, credentials, endpoints, fakeHttp, json } from "../fixtures/FakeHttp.js"
import { checkSignature } from "../fixtures/OAuth1.js"

/** Garmin's token reply, as its identity service writes it. */
const tokenReply = {
  access_token: "eyJhbGciOiJSUzI1NiJ9.access",
  token_type: "bearer",
  refresh_token: "eyJyZWZyZXNoVG9rZW5WYWx1ZSI6.refresh",
  expires_in: 86_400,
  scope: "PARTNER_WRITE PARTNER_READ CONNECT_READ CONNECT_WRITE",
  jti: "39af6e66-b855-4925-8f00-000000000000",
  refresh_token_expires_in: 7_775_998
}
const permissions = ["ACTIVITY_EXPORT", "HEALTH_EXPORT", "HISTORICAL_DATA_EXPORT"]

describe("GarminOAuth2Adapter", () => {
  it.effect("sends the user to oauth2Confirm with an S256 challenge and no scope", () =>
    Effect.gen(function*() {
      const noHttp = fakeHttp(() => json(500, {}))
      const verifier = "v".repeat(43)
      const start = yield* GarminOAuth2Adapter.startAuthorization({
        credentials,
        endpoints,
        callbackUrl,
        state: "state-value-123",
        scopes: [],
        codeVerifier: verifier
      }).pipe(Effect.provide(noHttp.layer))
      expect(noHttp.sent).toHaveLength(0)
      const url = new URL(start.authorizationUrl)
      expect(`${url.origin}${url.pathname}`).toBe("https://auth.example.test/oauth2Confirm")
      expect(Object.fromEntries(url.searchParams)).toEqual({
        response_type: "code",
        client_id: "client-id-123",
        code_challenge: codeChallengeS256(verifier),
        code_challenge_method: "S256",
        redirect_uri: callbackUrl,
        state: "state-value-123"
      })
      expect(start).toMatchObject({ usesPkce: true, requestToken: null, requestTokenSecret: null })
    }))

  it.effect("exchanges the code at di-oauth2-service with the verifier, then reads the permissions as scopes", () =>
    Effect.gen(function*() {
      const http = fakeHttp((sent) =>
        sent.url.pathname.endsWith("/user/permissions") ? json(200, permissions) : json(200, tokenReply)
      )
      const tokens = yield* GarminOAuth2Adapter.exchange({
        credentials,
        endpoints,
        callbackUrl,
        code: "code-abc",
        codeVerifier: "v".repeat(43),
        requestToken: null,
        requestTokenSecret: null
      }).pipe(Effect.provide(http.layer))
      const [token, read] = http.sent
      expect(token!.method).toBe("POST")
      expect(token!.url.href).toBe("https://token.example.test/prefix/di-oauth2-service/oauth/token")
      expect(Object.fromEntries(new URLSearchParams(token!.body))).toEqual({
        grant_type: "authorization_code",
        code: "code-abc",
        code_verifier: "v".repeat(43),
        redirect_uri: callbackUrl,
        client_id: "client-id-123",
        client_secret: "client-secret-456"
      })
      expect(read!.url.href).toBe("https://api.example.test/wellness-api/rest/user/permissions")
      expect(read!.headers.authorization).toBe(`Bearer ${tokenReply.access_token}`)
      expect(Redacted.value(tokens.accessToken)).toBe(tokenReply.access_token)
      expect(Redacted.value(tokens.refreshToken!)).toBe(tokenReply.refresh_token)
      expect(tokens.tokenSecret).toBeNull()
      expect(tokens.scopes).toBe(permissions.join(" "))
      // The test clock starts at 0: the token lives Garmin's 86,400 s.
      expect(tokens.expiresAt!.getTime()).toBe(86_400_000)
    }))

  it.effect("refreshes with the refresh_token grant, keeping the permissions; invalid_grant is reported as such", () =>
    Effect.gen(function*() {
      const tokens = {
        accessToken: Redacted.make("old-access"),
        refreshToken: Redacted.make("old-refresh"),
        tokenSecret: null,
        expiresAt: new Date(0),
        scopes: "HEALTH_EXPORT"
      }
      const http = fakeHttp(() => json(200, { ...tokenReply, refresh_token: "new-refresh" }))
      const refreshed = yield* GarminOAuth2Adapter.refresh({ credentials, endpoints, tokens }).pipe(
        Effect.provide(http.layer)
      )
      expect(Object.fromEntries(new URLSearchParams(http.sent[0]!.body))).toEqual({
        grant_type: "refresh_token",
        refresh_token: "old-refresh",
        client_id: "client-id-123",
        client_secret: "client-secret-456"
      })
      expect(Redacted.value(refreshed.refreshToken!)).toBe("new-refresh")
      expect(refreshed.scopes).toBe("HEALTH_EXPORT")

      const refused = fakeHttp(() => json(400, { error: "invalid_grant", error_description: "expired old-refresh" }))
      const error = yield* GarminOAuth2Adapter.refresh({ credentials, endpoints, tokens }).pipe(
        Effect.provide(refused.layer),
        Effect.flip
      )
      expect(error).toMatchObject({ status: 400, code: "invalid_grant" })
      expect(error.message).not.toContain("old-refresh")
    }))

  it.effect("a refresh answered without refresh_token keeps the refresh token held (the connection lives on)", () =>
    Effect.gen(function*() {
      const tokens = {
        accessToken: Redacted.make("old-access"),
        refreshToken: Redacted.make("old-refresh"),
        tokenSecret: null,
        expiresAt: new Date(0),
        scopes: "HEALTH_EXPORT"
      }
      // Garmin's token schema lists refresh_token as required; a reply may still leave it out.
      const { refresh_token: _left, ...withoutRefresh } = tokenReply
      const http = fakeHttp(() => json(200, { ...withoutRefresh, access_token: "new-access" }))
      const refreshed = yield* GarminOAuth2Adapter.refresh({ credentials, endpoints, tokens }).pipe(
        Effect.provide(http.layer)
      )
      expect(Redacted.value(refreshed.accessToken)).toBe("new-access")
      expect(Redacted.value(refreshed.refreshToken!)).toBe("old-refresh")
      expect(refreshed.expiresAt!.getTime()).toBe(86_400_000)
      expect(refreshed.scopes).toBe("HEALTH_EXPORT")
      // the next refresh sends the kept one
      yield* GarminOAuth2Adapter.refresh({ credentials, endpoints, tokens: refreshed }).pipe(Effect.provide(http.layer))
      expect(new URLSearchParams(http.sent[1]!.body).get("refresh_token")).toBe("old-refresh")
    }))

  it.effect("exchanges OAuth 1.0a tokens at partner-gateway, signed with the user's token and the kept consumer secret", () =>
    Effect.gen(function*() {
      const http = fakeHttp((sent) =>
        sent.url.pathname.endsWith("/user/permissions") ? json(200, { permissions }) : json(200, tokenReply)
      )
      const oauth1 = { clientId: "consumer-key-1", clientSecret: Redacted.make("consumer-secret-1") }
      const tokens = yield* GarminOAuth2Adapter.migrateTokens!({
        credentials: { ...credentials, oauth1 },
        endpoints,
        tokens: {
          accessToken: Redacted.make("uat-token-1111"),
          refreshToken: null,
          tokenSecret: Redacted.make("uat-secret-2222"),
          expiresAt: null,
          scopes: ""
        }
      }).pipe(Effect.provide(http.layer))
      const [exchange] = http.sent
      expect(exchange!.method).toBe("POST")
      expect(exchange!.url.href).toBe("https://api.example.test/partner-gateway/rest/user/token-exchange")
      const check = checkSignature({
        method: exchange!.method,
        url: exchange!.url,
        authorization: exchange!.headers.authorization,
        consumerSecret: "consumer-secret-1",
        tokenSecret: "uat-secret-2222"
      })
      expect(check.actual).toBe(check.expected)
      expect(check.header).toMatchObject({ oauth_consumer_key: "consumer-key-1", oauth_token: "uat-token-1111" })
      expect(tokens.tokenSecret).toBeNull()
      expect(Redacted.value(tokens.accessToken)).toBe(tokenReply.access_token)
      expect(tokens.scopes).toBe(permissions.join(" "))

      // a revoked OAuth 1.0a token: 403, the grant is gone
      const revoked = fakeHttp(() => json(403, { errorMessage: "User access token revoked" }))
      const error = yield* GarminOAuth2Adapter.migrateTokens!({
        credentials,
        endpoints,
        tokens: {
          accessToken: Redacted.make("uat-token-1111"),
          refreshToken: null,
          tokenSecret: Redacted.make("uat-secret-2222"),
          expiresAt: null,
          scopes: ""
        }
      }).pipe(Effect.provide(revoked.layer), Effect.flip)
      expect(error).toMatchObject({ status: 403, code: "access_revoked" })
    }))
})
