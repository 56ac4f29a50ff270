/**
 * What a simulator is made from and what it offers: the options, the fault and call-log shapes,
 * the control every simulator exposes, and the `Simulator` itself. Types only, so provider
 * modules, the registry and callers can share them without pulling in the machinery.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import type { SimulatorStore } from "./Store.js"

/** An app registered at the simulated provider (for Garmin: consumer key and secret). */
export interface SimulatorClient {
  readonly clientId: string
  readonly clientSecret: string
}

export interface SimulatorOptions {
  /** The simulator's public base URL B (origin plus mount prefix, no trailing slash needed). */
  readonly baseUrl: string
  readonly clients: ReadonlyArray<SimulatorClient>
  /** Seeds the synthetic data; the same seed, user and date give the same values everywhere. */
  readonly seed?: string | undefined
  readonly store?: SimulatorStore | undefined
  /** The simulator's clock: token expiry, code lifetime, rate windows, "today" of the data. */
  readonly now?: (() => Date) | undefined
  /**
   * `false` keeps counting and sending the rate-limit headers but never answers 429 on its own
   * (benches); the `rateLimit` fault still works. Default `true`.
   */
  readonly rateLimits?: boolean | undefined
  /**
   * The client of the simulator's own calls to a subscriber (a callback checked before a subscription is made);
   * default: the platform's `fetch`. A server that mounts simulators passes its own, which trusts its certificate.
   */
  readonly httpClient?: HttpClient.HttpClient | undefined
}

export type SimulatorSlug = "fitbit" | "garmin" | "whoop" | "dexcom" | "oura" | "withings"

export type FaultKind = "rateLimit" | "serverError" | "slow" | "expiredToken" | "malformedJson" | "gone"

/**
 * Makes the next `count` (default 1) requests whose path (relative to B, no query) matches
 * `path` misbehave. `*` in `path` matches any run of characters; `"*"` alone matches all.
 * `slow` delays by `delayMs` then answers normally; `malformedJson` runs the request (side
 * effects included) and cuts the body in half with status 200; `gone` answers 410 Gone in the
 * provider's error body, as an API shut down under its clients does.
 */
export interface FaultSpec {
  readonly path: string
  readonly kind: FaultKind
  readonly method?: string | undefined
  readonly count?: number | undefined
  readonly retryAfterSeconds?: number | undefined
  readonly delayMs?: number | undefined
}

export interface PendingFault extends FaultSpec {
  readonly remaining: number
}

/**
 * One request seen by the simulator. Secrets never appear: tokens, codes and verifiers are
 * replaced by `tokenFingerprint(value)`, client secrets and PKCE verifiers are dropped. The
 * `auth` param names the credential kind: `basic:<clientId>`, `bearer:<fingerprint>`, `oauth1:<consumerKey>`.
 */
export interface CallRecord {
  readonly seq: number
  readonly time: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly params: Readonly<Record<string, string>>
  readonly clientId?: string | undefined
  readonly userId?: string | undefined
  readonly fault?: FaultKind | undefined
}

export interface CallFilter {
  readonly method?: string | undefined
  /** Same pattern syntax as `FaultSpec.path`. */
  readonly path?: string | undefined
  /** A raw token, code or verifier: matches calls where it was presented (by fingerprint). */
  readonly presented?: string | undefined
  readonly userId?: string | undefined
  readonly status?: number | undefined
}

export interface SimulatedUser {
  readonly userId: string
  readonly name: string
}

/** What tests and the sandbox can do to a running simulator besides calling it like a provider. */
export interface SimulatorControl {
  /** The current B; `serveSimulator` rebinds it to the address it listens on. */
  readonly baseUrl: () => string
  readonly setBaseUrl: (baseUrl: string) => void
  readonly now: () => Date
  readonly injectFault: (fault: FaultSpec) => void
  readonly faults: () => ReadonlyArray<PendingFault>
  readonly clearFaults: () => void
  readonly calls: (filter?: CallFilter) => ReadonlyArray<CallRecord>
  readonly clearCalls: () => void
  /** Back to a fresh simulator: faults, calls, rate counters and (unless `keepGrants`) every grant. */
  readonly reset: (options?: { readonly keepGrants?: boolean | undefined }) => void
  /** Makes every access token issued so far expired (Garmin tokens do not expire: no-op there). */
  readonly expireAccessTokens: () => void
  /** Revokes everything issued to the provider user, for every client. */
  readonly revokeUser: (providerUserId: string) => void
  readonly users: () => ReadonlyArray<SimulatedUser>
}

/**
 * A simulated provider. Serve `app` (or mount it: `HttpRouter.mountApp(prefix, sim.app)`, or
 * `HttpRouter.mount(prefix, sim.router)`) with the prefix stripped, the default for both. Every
 * absolute URL it produces starts with `baseUrl`.
 */
export interface Simulator<C extends SimulatorControl = SimulatorControl> {
  /** The provider's name (`Provider` for the four built in; a plug-in provider may bring its own). */
  readonly provider: string
  readonly slug: string
  readonly app: HttpApp.Default
  readonly router: HttpRouter.HttpRouter
  /** The current B (getter). */
  readonly baseUrl: string
  readonly control: C
}
