/**
 * WHOOP's adapter against a scripted HttpClient: the authorization URL (always with `offline`, no
 * PKCE), client credentials in the form body, `scope=offline` on refresh, Hydra's error body, the
 * basic-profile user id and revocation.
 */
import { describe, expect, it } from "@effect/vitest"
import { isInvalidGrant, WhoopAdapter } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import {
  callbackUrl,
  credentials,
  endpoints,
  fakeHttp,
  json,
  noContent,
  oauth2Tokens,
  queryOf
} from "../fixtures/FakeHttp.js"

const tokenReply = {
  access_token: "whoop-access-1",
  expires_in: 3600,
  refresh_token: "whoop-refresh-1",
  scope: "offline read:sleep",
  token_type: "bearer"
}

const start = (scopes: ReadonlyArray<string>, state = "state-abcdefgh") =>
  WhoopAdapter.startAuthorization({ credentials, endpoints, callbackUrl, state, scopes, codeVerifier: "v".repeat(43) })

describe("WhoopAdapter", () => {
  it.effect("builds the authorization URL with the default scopes", () =>
    Effect.gen(function*() {
      const result = yield* start([])
      expect(result.authorizationUrl.startsWith("https://auth.example.test/oauth/oauth2/auth?")).toBe(true)
      expect(queryOf(result.authorizationUrl)).toEqual({
        response_type: "code",
        client_id: "client-id-123",
        redirect_uri: callbackUrl,
        scope: "offline read:recovery read:cycles read:workout read:sleep read:profile read:body_measurement",
        state: "state-abcdefgh"
      })
      expect(result).toMatchObject({ usesPkce: false, requestToken: null, requestTokenSecret: null })
    }).pipe(Effect.provide(fakeHttp(() => json(500, {})).layer)))

  it.effect("always asks for offline", () =>
    Effect.gen(function*() {
      const result = yield* start(["read:sleep"])
      expect(queryOf(result.authorizationUrl).scope).toBe("offline read:sleep")
    }).pipe(Effect.provide(fakeHttp(() => json(500, {})).layer)))

  it.effect("refuses a state shorter than 8 characters", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(start([], "short"))
      expect(error).toMatchObject({ provider: "WHOOP", operation: "authorization" })
    }).pipe(Effect.provide(fakeHttp(() => json(500, {})).layer)))

  it.effect("exchanges the code with the credentials in the body", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, tokenReply))
      const tokens = yield* WhoopAdapter.exchange({
        credentials,
        endpoints,
        callbackUrl,
        code: "whoop-code-1",
        codeVerifier: null,
        requestToken: null,
        requestTokenSecret: null
      }).pipe(Effect.provide(http.layer))
      const [sent] = http.sent
      expect(sent.method).toBe("POST")
      expect(sent.url.href).toBe("https://token.example.test/prefix/oauth/oauth2/token")
      expect(sent.contentType).toBe("application/x-www-form-urlencoded")
      expect(sent.headers.authorization).toBeUndefined()
      expect(Object.fromEntries(sent.form)).toEqual({
        grant_type: "authorization_code",
        code: "whoop-code-1",
        redirect_uri: callbackUrl,
        client_id: "client-id-123",
        client_secret: "client-secret-456"
      })
      expect(Redacted.value(tokens.accessToken)).toBe("whoop-access-1")
      expect(Redacted.value(tokens.refreshToken!)).toBe("whoop-refresh-1")
      expect(tokens.expiresAt).toEqual(new Date(3600 * 1000))
      expect(tokens.scopes).toBe("offline read:sleep")
    }))

  it.effect("refreshes with scope=offline and keeps the rotated pair", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(200, { ...tokenReply, access_token: "whoop-access-2", refresh_token: "whoop-refresh-2" })
      )
      const tokens = yield* WhoopAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      const [sent] = http.sent
      expect(sent.url.href).toBe("https://token.example.test/prefix/oauth/oauth2/token")
      expect(Object.fromEntries(sent.form)).toEqual({
        grant_type: "refresh_token",
        refresh_token: "refresh-token-rrrr",
        scope: "offline",
        client_id: "client-id-123",
        client_secret: "client-secret-456"
      })
      expect(Redacted.value(tokens.accessToken)).toBe("whoop-access-2")
      expect(Redacted.value(tokens.refreshToken!)).toBe("whoop-refresh-2")
    }))

  it.effect("maps Hydra's invalid_grant", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(400, {
          error: "invalid_grant",
          error_description: "The provided authorization grant is invalid",
          status_code: 400
        })
      )
      const error = yield* WhoopAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer),
        Effect.flip
      )
      expect(error).toMatchObject({ provider: "WHOOP", status: 400, code: "invalid_grant" })
      expect(isInvalidGrant(error)).toBe(true)
      expect(error.message).toContain("The provided authorization grant is invalid")
    }))

  it.effect("reads user_id from the basic profile as a string", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, { user_id: 10129, email: "a@b.c", first_name: "A", last_name: "B" }))
      const id = yield* WhoopAdapter.providerUserId({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(
        Effect.provide(http.layer)
      )
      expect(id).toBe("10129")
      const [sent] = http.sent
      expect(sent.method).toBe("GET")
      expect(sent.url.href).toBe("https://api.example.test/developer/v2/user/profile/basic")
      expect(sent.headers.authorization).toBe("Bearer access-token-aaaa")
    }))

  it.effect("revokes with a bearer DELETE", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => noContent())
      yield* WhoopAdapter.revoke({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(Effect.provide(http.layer))
      const [sent] = http.sent
      expect(sent.method).toBe("DELETE")
      expect(sent.url.href).toBe("https://api.example.test/developer/v2/user/access")
      expect(sent.headers.authorization).toBe("Bearer access-token-aaaa")
    }))
})
