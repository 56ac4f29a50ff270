/**
 * Each adapter's whole life against its provider simulator served on a loopback port: start,
 * consent (`decision=approve`), the 302 to our callback, exchange, provider user id, refresh
 * (OAuth 2.0), revoke, and what the provider says afterwards.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import type { ProviderAdapter, ProviderEndpoints, ProviderError, TokenSet } from "@pulsebridge/providers"
import {
  DexcomAdapter,
  FitbitAdapter,
  GarminAdapter,
  makeCodeVerifier,
  makeState,
  WhoopAdapter
} from "@pulsebridge/providers"
import type { Simulator } from "@pulsebridge/sandbox"
import {
  healthUserIdOf,
  makeDexcomSimulator,
  makeFitbitSimulator,
  makeGarminSimulator,
  makeWhoopSimulator,
  providerUserIds,
  serveSimulator
} from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"

/** The little of a simulator this test uses. */
interface SimulatorLike {
  readonly baseUrl: string
  readonly control: {
    readonly calls: (filter?: { readonly method?: string; readonly path?: string }) => ReadonlyArray<{
      readonly method: string
      readonly path: string
      readonly status: number
    }>
    readonly injectFault: (fault: {
      readonly path: string
      readonly kind: "rateLimit" | "serverError" | "malformedJson"
      readonly retryAfterSeconds?: number
    }) => void
  }
}

interface SimulatorKit {
  readonly make: (options: {
    readonly baseUrl: string
    readonly clients: ReadonlyArray<{ readonly clientId: string; readonly clientSecret: string }>
  }) => SimulatorLike
  readonly serve: (sim: SimulatorLike) => Effect.Effect<{ readonly baseUrl: string }, unknown, Scope.Scope>
  readonly userId: (consentName: string) => string | number
}

const makers: Record<Case["module"], SimulatorKit["make"]> = {
  Fitbit: makeFitbitSimulator,
  Garmin: makeGarminSimulator,
  Whoop: makeWhoopSimulator,
  Dexcom: makeDexcomSimulator
}

/** The simulator, its server and its user ids for one case, seen through the narrow types above. */
const loadKit = (module: Case["module"], slug: string) =>
  Effect.sync((): SimulatorKit => ({
    make: makers[module],
    // every maker above returns a full simulator; `SimulatorLike` only narrows what the test reads
    serve: (sim) => serveSimulator(sim as Simulator),
    // Fitbit's data comes through the Google Health API, whose users have Google Health ids
    userId: slug === "fitbit" ? healthUserIdOf : providerUserIds[slug as keyof typeof providerUserIds]
  }))

const client = { clientId: "pulsebridge-it", clientSecret: "it-secret-0123456789" }
const credentials = { clientId: client.clientId, clientSecret: Redacted.make(client.clientSecret) }
const callbackUrl = "https://pulsebridge.example.test/api/v1/oauth/callback"
const consentUser = "integration-user"

/** The consent form, submitted as a user would; the 302 it answers is not followed. */
const approve = (authorizationUrl: string) =>
  HttpClientRequest.post(authorizationUrl).pipe(
    HttpClientRequest.bodyUrlParams({ decision: "approve", user: consentUser }),
    HttpClient.execute,
    Effect.map((response) => {
      expect(response.status).toBe(302)
      const location = response.headers.location
      expect(location).toBeDefined()
      return new URL(location!)
    }),
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" })
  )

interface Case {
  readonly module: "Fitbit" | "Garmin" | "Whoop" | "Dexcom"
  readonly slug: string
  readonly adapter: ProviderAdapter
  /** The simulator path the revocation is sent to; null: the provider has none. */
  readonly revokePath: string | null
  /** The path of the first call the adapter makes (token exchange, or Garmin's request token). */
  readonly firstCallPath: string
}

const cases: ReadonlyArray<Case> = [
  {
    module: "Fitbit",
    slug: "fitbit",
    adapter: FitbitAdapter,
    revokePath: "/revoke",
    firstCallPath: "/token"
  },
  {
    module: "Garmin",
    slug: "garmin",
    adapter: GarminAdapter,
    revokePath: "/wellness-api/rest/user/registration",
    firstCallPath: "/oauth-service/oauth/request_token"
  },
  {
    module: "Whoop",
    slug: "whoop",
    adapter: WhoopAdapter,
    revokePath: "/developer/v2/user/access",
    firstCallPath: "/oauth/oauth2/token"
  },
  { module: "Dexcom", slug: "dexcom", adapter: DexcomAdapter, revokePath: null, firstCallPath: "/v3/oauth2/token" }
]

const secretOf = (token: Redacted.Redacted | null) => (token === null ? null : Redacted.value(token))

const serve = (c: Case) =>
  Effect.gen(function*() {
    const kit = yield* loadKit(c.module, c.slug)
    const sim = kit.make({ baseUrl: "http://127.0.0.1", clients: [client] })
    const served = yield* kit.serve(sim)
    const endpoints: ProviderEndpoints = {
      authBaseUrl: served.baseUrl,
      tokenBaseUrl: served.baseUrl,
      apiBaseUrl: served.baseUrl
    }
    return { kit, sim, served, endpoints }
  })

/** The adapter's first provider call, made with a code the simulator never issued. */
const firstCall = (
  c: Case,
  endpoints: ProviderEndpoints
): Effect.Effect<unknown, ProviderError, HttpClient.HttpClient> =>
  c.adapter.authType === "OAuth1"
    ? c.adapter.startAuthorization({
      credentials,
      endpoints,
      callbackUrl,
      state: makeState(),
      scopes: [],
      codeVerifier: makeCodeVerifier()
    })
    : c.adapter.exchange({
      credentials,
      endpoints,
      callbackUrl,
      code: "never-issued-code",
      codeVerifier: makeCodeVerifier(),
      requestToken: null,
      requestTokenSecret: null
    })

describe.each(cases.map((c) => [c.adapter.provider, c] as const))("%s against its simulator", (_, c) => {
  it.scopedLive("connects, refreshes and revokes", () =>
    Effect.gen(function*() {
      const { endpoints, kit, served, sim } = yield* serve(c)
      const adapter = c.adapter
      const codeVerifier = makeCodeVerifier()
      const state = makeState()

      const start = yield* adapter.startAuthorization({
        credentials,
        endpoints,
        callbackUrl,
        state,
        scopes: adapter.defaultScopes,
        codeVerifier
      })
      expect(start.authorizationUrl.startsWith(served.baseUrl)).toBe(true)

      const callback = yield* approve(start.authorizationUrl)
      expect(`${callback.origin}${callback.pathname}`).toBe(callbackUrl)
      let code: string | null
      if (adapter.authType === "OAuth2") {
        expect(callback.searchParams.get("state")).toBe(state)
        code = callback.searchParams.get("code")
      } else {
        expect(callback.searchParams.get("oauth_token")).toBe(start.requestToken)
        code = callback.searchParams.get("oauth_verifier")
      }
      expect(code).toBeTruthy()

      const tokens = yield* adapter.exchange({
        credentials,
        endpoints,
        callbackUrl,
        code: code!,
        codeVerifier: start.usesPkce ? codeVerifier : null,
        requestToken: start.requestToken,
        requestTokenSecret: start.requestTokenSecret,
        scopes: adapter.defaultScopes
      })
      const userId = yield* adapter.providerUserId({ credentials, endpoints, tokens })
      expect(userId).toBe(String(kit.userId(consentUser)))

      let current: TokenSet = tokens
      if (adapter.authType === "OAuth2") {
        expect(tokens.refreshToken).not.toBeNull()
        expect(tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now())
        const refreshed = yield* adapter.refresh({ credentials, endpoints, tokens })
        expect(secretOf(refreshed.accessToken)).not.toBe(secretOf(tokens.accessToken))
        // Google keeps the refresh token; the others rotate it
        if (c.module === "Fitbit") expect(secretOf(refreshed.refreshToken)).toBe(secretOf(tokens.refreshToken))
        else expect(secretOf(refreshed.refreshToken)).not.toBe(secretOf(tokens.refreshToken))
        expect(yield* adapter.providerUserId({ credentials, endpoints, tokens: refreshed })).toBe(userId)
        current = refreshed
      } else {
        // Garmin has no OAuth scopes: the permissions the user ticked are read after the exchange
        expect(tokens).toMatchObject({ refreshToken: null, expiresAt: null })
        expect(tokens.scopes.split(" ")).toContain("HEALTH_EXPORT")
        expect(tokens.tokenSecret).not.toBeNull()
        const error = yield* Effect.flip(adapter.refresh({ credentials, endpoints, tokens }))
        expect(error.message).toContain("do not expire")
      }

      const callsBefore = sim.control.calls().length
      yield* adapter.revoke({ credentials, endpoints, tokens: current })
      if (c.revokePath === null) {
        // Nothing to call: the grant stays valid until the user withdraws it at the provider.
        expect(sim.control.calls()).toHaveLength(callsBefore)
        expect(yield* adapter.providerUserId({ credentials, endpoints, tokens: current })).toBe(userId)
      } else {
        const revocations = sim.control.calls({ path: c.revokePath })
        expect(revocations).toHaveLength(1)
        expect(revocations[0].status).toBeLessThan(300)
        const after = yield* Effect.flip(adapter.providerUserId({ credentials, endpoints, tokens: current }))
        // Garmin answers a revoked token 403 (a lost grant); the others 401
        expect(after).toMatchObject({
          _tag: "ProviderError",
          provider: adapter.provider,
          status: adapter.provider === "Garmin" ? 403 : 401
        })
      }
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("reads the simulator's rate limits, server errors, refusals and cut replies", () =>
    Effect.gen(function*() {
      const { endpoints, sim } = yield* serve(c)
      sim.control.injectFault({ path: c.firstCallPath, kind: "rateLimit", retryAfterSeconds: 17 })
      const limited = yield* Effect.flip(firstCall(c, endpoints))
      expect(limited).toMatchObject({ provider: c.adapter.provider, status: 429 })
      // Google's 429 carries no Retry-After
      expect(limited.retryAfterSeconds).toBe(c.module === "Fitbit" ? undefined : 17)

      sim.control.injectFault({ path: c.firstCallPath, kind: "serverError" })
      const failed = yield* Effect.flip(firstCall(c, endpoints))
      expect(failed.status).toBeGreaterThanOrEqual(500)

      // A halved form reply (Garmin's request token) can still parse, so only JSON replies are cut.
      if (c.adapter.authType === "OAuth2") {
        const refused = yield* Effect.flip(firstCall(c, endpoints))
        expect(refused).toMatchObject({ status: 400, code: "invalid_grant" })
        expect(refused.message).not.toContain("never-issued-code")

        sim.control.injectFault({ path: c.firstCallPath, kind: "malformedJson" })
        const malformed = yield* Effect.flip(firstCall(c, endpoints))
        expect(malformed.message).toContain("malformed response")
      }
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
