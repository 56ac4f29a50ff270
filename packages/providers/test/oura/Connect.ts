/**
 * The Oura simulator served on a loopback port with a clock the test sets, and a user connected to it through
 * `OuraAdapter` (start, consent approved, exchange, user id): what the data and webhook tests start from.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { FetchInput, ProviderEndpoints } from "@pulsebridge/providers"
import { makeCodeVerifier, makeState } from "@pulsebridge/providers"
import { OuraAdapter } from "@pulsebridge/providers/oura/index"
import { serveSimulator } from "@pulsebridge/sandbox"
import { makeOuraSimulator } from "@pulsebridge/sandbox/oura/index"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

export const ouraClient = { clientId: "pulsebridge-oura", clientSecret: "oura-secret-0123456789" }
export const ouraCredentials = { clientId: ouraClient.clientId, clientSecret: Redacted.make(ouraClient.clientSecret) }
export const callbackUrl = "https://pulsebridge.example.test/api/v1/oauth/callback"
export const NOW = "2025-06-15T12:00:00.000Z"

export class TestClock {
  ms: number
  constructor(iso: string = NOW) {
    this.ms = Date.parse(iso)
  }
  readonly now = (): Date => new Date(this.ms)
}

/** Approves the consent form as `user` (only `granted` ticked, when given); the 302 is not followed. */
const approve = (url: string, user: string, granted?: ReadonlyArray<string>) =>
  HttpClientRequest.post(url).pipe(
    HttpClientRequest.bodyUrlParams(
      granted === undefined
        ? { decision: "approve", user }
        : [["decision", "approve"], ["user", user], ["consent_form", "1"], ...granted.map((g) => ["scope", g] as const)]
    ),
    HttpClient.execute,
    Effect.flatMap((response) =>
      response.status === 302 && response.headers.location !== undefined
        ? Effect.succeed(new URL(response.headers.location))
        : Effect.dieMessage(`consent answered ${response.status}`)
    ),
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" })
  )

export const connectOura = (
  options: { readonly user?: string; readonly clock?: TestClock; readonly granted?: ReadonlyArray<string> } = {}
) =>
  Effect.gen(function*() {
    const clock = options.clock ?? new TestClock()
    const sim = makeOuraSimulator({
      baseUrl: "http://127.0.0.1",
      clients: [ouraClient],
      seed: "oura-data-seed",
      now: clock.now
    })
    const served = yield* serveSimulator(sim)
    const endpoints: ProviderEndpoints = {
      authBaseUrl: served.baseUrl,
      tokenBaseUrl: served.baseUrl,
      apiBaseUrl: served.baseUrl
    }
    const start = yield* OuraAdapter.startAuthorization({
      credentials: ouraCredentials,
      endpoints,
      callbackUrl,
      state: makeState(),
      scopes: OuraAdapter.defaultScopes,
      codeVerifier: makeCodeVerifier()
    })
    const callback = yield* approve(start.authorizationUrl, options.user ?? "oura-user", options.granted)
    const tokens = yield* OuraAdapter.exchange({
      credentials: ouraCredentials,
      endpoints,
      callbackUrl,
      code: callback.searchParams.get("code") ?? "",
      codeVerifier: null,
      requestToken: null,
      requestTokenSecret: null
    })
    const providerUserId = yield* OuraAdapter.providerUserId({ credentials: ouraCredentials, endpoints, tokens })
    sim.control.clearCalls()
    const input = (overrides: Partial<FetchInput> = {}): FetchInput => ({
      credentials: ouraCredentials,
      endpoints,
      tokens,
      providerUserId,
      now: clock.now(),
      ...overrides
    })
    return { sim, clock, endpoints, tokens, providerUserId, input, base: served.baseUrl }
  })

export const withHttp = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, FetchHttpClient.layer)
