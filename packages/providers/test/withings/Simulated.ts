/**
 * The Withings simulator served on a loopback port with a clock the test sets, and a user connected to it through
 * the Withings adapter (consent approved, code exchanged): what the data tests need to call the plug-in as the sync
 * engine would. The plug-in is not in the registry yet, so this is the shared fixture's `connect` for it.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { FetchInput, ProviderEndpoints } from "@pulsebridge/providers"
import { makeState } from "@pulsebridge/providers"
import { WithingsAdapter } from "@pulsebridge/providers/withings/index"
import { serveSimulator } from "@pulsebridge/sandbox"
import type { WithingsSimulatorOptions } from "@pulsebridge/sandbox/withings/Simulator"
import { makeWithingsSimulator } from "@pulsebridge/sandbox/withings/Simulator"
import * as Effect from "effect/Effect"
import { simClient, simCredentials, TestClock } from "../fixtures/Simulated.js"

const callbackUrl = "https://pulsebridge.example.test/api/v1/oauth/callback"

export const connectWithings = (
  options: {
    readonly user?: string
    readonly seed?: string
    readonly clock?: TestClock
    readonly scopes?: ReadonlyArray<string>
    readonly probe?: WithingsSimulatorOptions["probe"]
  } = {}
) =>
  Effect.gen(function*() {
    const clock = options.clock ?? new TestClock()
    const sim = makeWithingsSimulator({
      baseUrl: "http://127.0.0.1",
      clients: [simClient],
      seed: options.seed ?? "data-seed",
      now: clock.now,
      probe: options.probe
    })
    const served = yield* serveSimulator(sim)
    const endpoints: ProviderEndpoints = {
      authBaseUrl: served.baseUrl,
      tokenBaseUrl: served.baseUrl,
      apiBaseUrl: served.baseUrl
    }
    const scopes = options.scopes ?? WithingsAdapter.defaultScopes
    const start = yield* WithingsAdapter.startAuthorization({
      credentials: simCredentials,
      endpoints,
      callbackUrl,
      state: makeState(),
      scopes,
      codeVerifier: "v".repeat(43)
    })
    const response = yield* HttpClientRequest.post(start.authorizationUrl).pipe(
      HttpClientRequest.bodyUrlParams({ decision: "approve", user: options.user ?? "data-user" }),
      HttpClient.execute,
      Effect.provide(FetchHttpClient.layer),
      Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" })
    )
    const code = new URL(response.headers.location ?? "http://x.invalid").searchParams.get("code") ?? ""
    const tokens = yield* WithingsAdapter.exchange({
      credentials: simCredentials,
      endpoints,
      callbackUrl,
      code,
      codeVerifier: null,
      requestToken: null,
      requestTokenSecret: null,
      scopes
    })
    const providerUserId = yield* WithingsAdapter.providerUserId({ credentials: simCredentials, endpoints, tokens })
    sim.control.clearCalls()
    const input = (): FetchInput => ({
      credentials: simCredentials,
      endpoints,
      tokens,
      providerUserId,
      now: clock.now()
    })
    return { sim, clock, endpoints, tokens, providerUserId, input }
  })
