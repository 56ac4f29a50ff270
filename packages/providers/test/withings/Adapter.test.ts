/**
 * Withings' adapter: the authorization URL with comma-separated scopes, the `requesttoken` form with the client
 * secret (api-reference, "OAuth 2.0 - Request Access and Refresh Tokens"), an error status inside an HTTP 200,
 * and, against the simulator, a rotated refresh token used twice (the second use is a refused grant) and the
 * signed revoke (api-reference, "OAuth 2.0 - Revoke user access", "Signature v2 - Getnonce").
 */
import { describe, expect, it } from "@effect/vitest"
import { isInvalidGrant } from "@pulsebridge/providers"
import { WithingsAdapter } from "@pulsebridge/providers/withings/index"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { callbackUrl, credentials, endpoints, fakeHttp, json, oauth2Tokens, queryOf } from "../fixtures/FakeHttp.js"
import { simCredentials, TestClock, withHttp } from "../fixtures/Simulated.js"
import { connectWithings } from "./Simulated.js"

const exchange = (code = "code-1") =>
  WithingsAdapter.exchange({
    credentials,
    endpoints,
    callbackUrl,
    code,
    codeVerifier: null,
    requestToken: null,
    requestTokenSecret: null
  })

describe("WithingsAdapter", () => {
  it.effect("builds the authorization URL with comma-separated scopes and no PKCE", () =>
    Effect.gen(function*() {
      const start = yield* WithingsAdapter.startAuthorization({
        credentials,
        endpoints,
        callbackUrl,
        state: "state-123",
        scopes: [],
        codeVerifier: "v".repeat(43)
      })
      expect(start.authorizationUrl.startsWith("https://auth.example.test/oauth2_user/authorize2?")).toBe(true)
      expect(queryOf(start.authorizationUrl)).toEqual({
        response_type: "code",
        client_id: "client-id-123",
        scope: "user.info,user.metrics,user.activity",
        redirect_uri: callbackUrl,
        state: "state-123"
      })
      expect(start.usesPkce).toBe(false)
    }).pipe(Effect.provide(fakeHttp(() => json(500, {})).layer)))

  it.effect("exchanges the code with action=requesttoken and reads the user from the reply", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(200, {
          status: 0,
          body: {
            userid: 363,
            access_token: "a075f8c14fb8df40b08ebc8508533dc332a6910a",
            refresh_token: "f631236f02b991810feb774765b6ae8e6c6839ca",
            expires_in: 10800,
            scope: "user.info,user.metrics",
            csrf_token: "PACnnxwHTaBQOzF7bQqwFUUotIuvtzSM",
            token_type: "Bearer"
          }
        })
      )
      const tokens = yield* exchange().pipe(Effect.provide(http.layer))
      const [sent] = http.sent
      expect(sent!.url.href).toBe("https://token.example.test/prefix/v2/oauth2")
      expect(Object.fromEntries(sent!.form)).toEqual({
        action: "requesttoken",
        client_id: "client-id-123",
        client_secret: "client-secret-456",
        grant_type: "authorization_code",
        code: "code-1",
        redirect_uri: callbackUrl
      })
      expect(tokens.providerUserId).toBe("363")
      expect(tokens.scopes).toBe("user.info user.metrics")
      expect(Redacted.value(tokens.refreshToken!)).toBe("f631236f02b991810feb774765b6ae8e6c6839ca")
      expect(tokens.expiresAt!.getTime()).toBe(10_800_000)
    }).pipe(Effect.provide(fakeHttp(() => json(500, {})).layer)))

  it.effect("reads an error status inside an HTTP 200 (a spent code) as a refused grant", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, { status: 503, body: {}, error: "Invalid Params: invalid code" }))
      const error = yield* Effect.flip(exchange().pipe(Effect.provide(http.layer)))
      expect(error).toMatchObject({ provider: "Withings", status: 400, code: "invalid_grant" })
      expect(isInvalidGrant(error)).toBe(true)
    }))

  it.effect("never echoes the refresh token of a refused refresh", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() =>
        json(200, { status: 401, body: {}, error: "invalid_token: refresh-token-rrrr is not valid" })
      )
      const error = yield* Effect.flip(
        WithingsAdapter.refresh({ credentials, endpoints, tokens: oauth2Tokens() }).pipe(Effect.provide(http.layer))
      )
      expect(error.code).toBe("invalid_grant")
      expect(error.message).not.toContain("refresh-token-rrrr")
      expect(Object.fromEntries(http.sent[0]!.form)).toMatchObject({
        grant_type: "refresh_token",
        refresh_token: "refresh-token-rrrr"
      })
    }))

  it.scopedLive("rotates the refresh token: the new one works, the old one used again is a refused grant", () =>
    withHttp(Effect.gen(function*() {
      const { endpoints: simEndpoints, tokens } = yield* connectWithings()
      const refreshed = yield* WithingsAdapter.refresh({ credentials: simCredentials, endpoints: simEndpoints, tokens })
      expect(Redacted.value(refreshed.refreshToken!)).not.toBe(Redacted.value(tokens.refreshToken!))
      expect(refreshed.providerUserId).toBe(tokens.providerUserId)
      const again = yield* Effect.flip(
        WithingsAdapter.refresh({ credentials: simCredentials, endpoints: simEndpoints, tokens })
      )
      expect(isInvalidGrant(again)).toBe(true)
      const next = yield* WithingsAdapter.refresh({
        credentials: simCredentials,
        endpoints: simEndpoints,
        tokens: refreshed
      })
      expect(next.accessToken).toBeDefined()
    })))

  it.scopedLive("revokes with a signed nonce, after which the tokens are refused", () =>
    withHttp(Effect.gen(function*() {
      // the signature's timestamp is the adapter's clock (live here): the simulator's must agree
      const { endpoints: simEndpoints, sim, tokens } = yield* connectWithings({
        clock: new TestClock(new Date().toISOString())
      })
      yield* WithingsAdapter.revoke({ credentials: simCredentials, endpoints: simEndpoints, tokens })
      expect(sim.control.calls({ path: "/v2/signature" }).map((c) => c.status)).toEqual([200])
      const refused = yield* Effect.flip(
        WithingsAdapter.refresh({ credentials: simCredentials, endpoints: simEndpoints, tokens })
      )
      expect(isInvalidGrant(refused)).toBe(true)
    })))
})
