/**
 * Request rate limits (docs/rate-limits.md): a token bucket per presented credential (API key,
 * user token) and per client address for requests without one, kept in PostgreSQL so that every
 * API process of a deployment draws from the same buckets. Failed authentications also draw from
 * a per-address bucket, and an address whose failures have emptied it is refused before its
 * credentials are looked up, so that spraying random keys earns no fresh buckets.
 *
 * A bucket lives in the database and is drawn from by a short statement (`RateLimitRepo.take`), which also looks
 * the presented API key or user token up. A process takes a bucket's tokens ahead of its requests, a tenth of the
 * burst at a time (`leaseOf`: one for a burst under 20), and serves the next requests of that bucket from them in
 * memory: a busy credential costs one statement per ten requests, not one per request. Tokens only leave the shared
 * bucket, so every process together still lets through no more than the bucket holds; the stated error is the other
 * way, a client spread over several processes may be refused while others hold unspent tokens of their leases
 * (fewer than a lease each). A request served from a lease has its credential looked up by authentication's own
 * statement, after it arrived, so a key revoked before it is refused. Requests on one bucket that arrive while its
 * statement runs wait for it and are served from what it brings. A bucket found empty is remembered for up to a
 * second (never past its refill), so that a client that keeps knocking is refused without a statement. When the
 * database does not answer, requests are let through (fail open) with a warning: the limiter protects the
 * service, and the requests themselves will meet the same database.
 *
 * The server's own calls to the simulators it mounts in sandbox mode (`SelfCalls`) are not limited: they come
 * from this machine's address, whose bucket a newcomer's browser draws from, and the simulators keep limits of
 * their own as the providers do.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import * as net from "node:net"
import { drain } from "../http/Drain.js"
import type { AnswerHooks } from "../http/Middleware.js"
import { provideForRequest } from "../http/RequestFiber.js"
import { countRateLimited, rateLimitsNotApplied } from "../http/RequestMetrics.js"
import { SelfCalls } from "../platform/SelfCalls.js"
import type { RateLimit, RateLimitSettings } from "../platform/ServerConfig.js"
import { ServerConfig } from "../platform/ServerConfig.js"
import { ApiKeyPrefix, isWellFormed, McpTokenPrefix, UserTokenPrefix } from "./CredentialHash.js"
import { Caller, portalSessionCookie, PresentedCredentials } from "./Credentials.js"
import type { CredentialLookup } from "./RateLimitRepo.js"
import { RateLimitRepo } from "./RateLimitRepo.js"

/** Routes never limited: probes, the landing page and the API's documentation. */
const exemptPaths: ReadonlySet<string> = new Set([
  "/",
  "/health",
  "/health/live",
  "/health/ready",
  "/docs",
  "/openapi.json"
])

/** How often each process deletes idle buckets. */
const pruneEvery = Duration.minutes(10)

/**
 * How long a process remembers, at most, that a bucket it found empty is still empty (never past the moment its
 * refill brings a token back): the requests of a client that keeps knocking get their 429 without a statement.
 */
const rememberEmptyMillis = 1000

/** How many empty buckets a process remembers at once; beyond it the oldest are forgotten (and asked for again). */
const rememberEmptyAtMost = 10_000

/** The bucket a request draws from. */
export interface Bucket {
  readonly key: string
  readonly limit: RateLimit
  /** The address's failure bucket, which must not be empty (requests with a credential only). */
  readonly failures: { readonly key: string; readonly limit: RateLimit } | undefined
  /** The presented API key or user token to look up with the bucket, when it is well formed. */
  readonly lookup?: CredentialLookup | undefined
}

/** The client's address: the first hop of `X-Forwarded-For` behind a trusted proxy, else the socket's peer. */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  if (trustProxy) {
    const first = request.headers["x-forwarded-for"]?.split(",")[0]?.trim()
    if (first !== undefined && first !== "") return first
  }
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

/**
 * The part of an address that names one client: an IPv4 address, or the /64 network of an IPv6
 * one (a single host commonly holds a whole /64, so one key per IPv6 address would be no limit).
 */
export const addressKey = (address: string): string => {
  const bare = address.split("%")[0]!
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)
  if (mapped !== null) return mapped[1]!
  if (!net.isIPv6(bare)) return bare
  const [head, tail] = bare.split("::")
  const groups = (part: string | undefined) => (part === undefined || part === "" ? [] : part.split(":"))
  const before = groups(head)
  const after = groups(tail)
  const full = [
    ...before,
    ...Array.from({ length: Math.max(0, 8 - before.length - after.length) }, () => "0"),
    ...after
  ]
  return `${full.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(":")}::/64`
}

/** Keys are hashes: no credential and no address is stored, and no lookup is needed to key a request. */
export const hashKey = (kind: "key" | "token" | "session" | "provider" | "address" | "failed", value: string) =>
  `${kind}:${crypto.hash("sha256", value, "base64url").slice(0, 32)}`

/**
 * `hashKey` of a client address, kept for the next requests from it (most come from a few addresses): the failure
 * bucket's key is asked for on every request with a credential. Bounded: forgotten all at once when full.
 */
const addressHashes = { address: new Map<string, string>(), failed: new Map<string, string>() }
const addressHashesAtMost = 10_000
const addressHash = (kind: "address" | "failed", address: string): string => {
  const known = addressHashes[kind]
  let key = known.get(address)
  if (key === undefined) {
    if (known.size >= addressHashesAtMost) known.clear()
    key = hashKey(kind, address)
    known.set(address, key)
  }
  return key
}

/**
 * Which bucket a request draws from: its credential's when it carries an API key or a user token
 * (told apart by their prefixes), or a portal session on the portal's JSON API, or, on the simulators' routes, a simulated provider's token; else
 * its address's.
 */
export const bucketFor = (
  request: HttpServerRequest.HttpServerRequest,
  caller: PresentedCredentials,
  settings: RateLimitSettings,
  trustProxy: boolean
): Bucket => {
  const address = addressKey(clientAddress(request, trustProxy))
  const credential = caller.presented
  const failures = { key: addressHash("failed", address), limit: settings.address }
  if (credential?.startsWith(ApiKeyPrefix) === true) {
    const lookup = isWellFormed(credential, ApiKeyPrefix)
      ? { kind: "key", hash: caller.hashOf(credential) } as const
      : undefined
    return { key: caller.bucketKeyOf("key", credential), limit: settings.apiKey, failures, lookup }
  }
  if (credential?.startsWith(UserTokenPrefix) === true) {
    const lookup = isWellFormed(credential, UserTokenPrefix)
      ? { kind: "token", hash: caller.hashOf(credential) } as const
      : undefined
    return { key: caller.bucketKeyOf("token", credential), limit: settings.userToken, failures, lookup }
  }
  // An MCP token (looked up by the MCP route itself) draws from a bucket of its own, at a user token's limit.
  if (credential?.startsWith(McpTokenPrefix) === true) {
    return { key: caller.bucketKeyOf("token", credential), limit: settings.userToken, failures }
  }
  // An operator's pages call the portal's JSON API several at a time: each session gets a bucket at
  // an API key's limit. A made-up session answers 401 and so draws from the failure bucket.
  const session = request.url.startsWith("/portal/api/") ? request.cookies[portalSessionCookie] : undefined
  if (session !== undefined && session !== "") {
    return { key: hashKey("session", session), limit: settings.apiKey, failures }
  }
  // The simulators' provider APIs (sandbox mode) are called with their own access tokens, mostly by
  // this server's sync from its own address: each token gets a bucket, at the address's limit.
  if (credential !== undefined && request.url.startsWith("/sandbox/")) {
    return { key: hashKey("provider", credential), limit: settings.address, failures }
  }
  return { key: addressHash("address", address), limit: settings.address, failures: undefined }
}

/**
 * This process's share of one bucket: tokens it took from the shared bucket ahead of its requests (a lease) and has
 * not spent yet, what the shared bucket held after that take (for the headers), and the take under way, which the
 * requests that arrive meanwhile wait for.
 */
interface Local {
  leased: number
  shared: number
  sharedAt: number
  pending: Deferred.Deferred<void> | undefined
  usedAt: number
}

/**
 * How many tokens one statement takes for this process: a tenth of the burst (one for a burst under 20). The rest
 * serve the bucket's next requests here without a statement; tokens are only ever taken from the shared bucket,
 * never added but by its refill, so several processes together never let through more than the bucket holds. A
 * client whose requests are spread over several processes may meanwhile be refused by one while another still
 * holds tokens of its lease: at most `lease - 1` per process, until they are spent or the entry is forgotten.
 */
export const leaseOf = (limit: RateLimit): number => Math.max(1, Math.floor(limit.burst / 10))

/** A bucket found empty: refused without a statement until `until` (ms since the epoch). */
interface KnownEmpty {
  readonly limit: RateLimit
  /** The bucket's level at `at`. */
  readonly level: number
  readonly at: number
  readonly until: number
  readonly message: string
}

/** The key of a bucket's local share: its own key, with the failure bucket that gates it. */
const groupKeyOf = (bucket: Bucket) =>
  bucket.failures === undefined ? bucket.key : `${bucket.key} ${bucket.failures.key}`

/** What the limiter decided for one request. */
export interface Verdict {
  readonly allowed: boolean
  /** `RateLimit-*` (and `Retry-After` when refused), for every answer to the request. */
  readonly headers: Readonly<Record<string, string>>
  readonly retryAfterSeconds: number
  readonly message: string
}

const secondsUntil = (tokens: number, target: number, limit: RateLimit) =>
  Math.max(0, Math.ceil((target - tokens) / limit.perSecond))

const limitHeaders = (limit: RateLimit, remaining: number) => ({
  "ratelimit-limit": String(limit.burst),
  "ratelimit-remaining": String(Math.max(0, Math.floor(remaining))),
  "ratelimit-reset": String(secondsUntil(Math.max(0, remaining), limit.burst, limit))
})

const refused = (limit: RateLimit, level: number, message: string): Verdict => {
  const retryAfterSeconds = Math.max(1, secondsUntil(level, 1, limit))
  return {
    allowed: false,
    headers: { ...limitHeaders(limit, level), "retry-after": String(retryAfterSeconds) },
    retryAfterSeconds,
    message: `${message}; retry in ${retryAfterSeconds} s`
  }
}

export class RateLimiter extends Effect.Service<RateLimiter>()("@pulsebridge/server/RateLimiter", {
  scoped: Effect.gen(function*() {
    const config = yield* ServerConfig
    const repo = yield* RateLimitRepo
    const selfCalls = yield* SelfCalls
    const settings = config.rateLimits

    // One warning per minute at most while the database does not answer.
    let lastWarning = 0
    const failOpen = (cause: unknown) =>
      Effect.zipRight(
        Metric.increment(rateLimitsNotApplied),
        Effect.suspend(() => {
          const now = Date.now()
          if (now - lastWarning < 60_000) return Effect.void
          lastWarning = now
          return Effect.logWarning("Rate limits not applied: the database did not answer", cause)
        })
      )

    if (settings.enabled) {
      // A bucket idle for as long as the slowest one takes to fill is full, the same as no row.
      const idleSeconds = Math.max(
        ...[settings.apiKey, settings.userToken, settings.address].map((limit) => limit.burst / limit.perSecond)
      )
      yield* Effect.sleep(pruneEvery).pipe(
        Effect.zipRight(repo.prune(Math.ceil(idleSeconds) + 60)),
        Effect.catchAllCause((cause) => Effect.logWarning("Pruning rate-limit buckets failed", cause)),
        Effect.forever,
        Effect.forkScoped
      )
    }

    /** This process's share of each bucket in use, by its local key (bounded: see `forget`). */
    const locals = new Map<string, Local>()

    const localOf = (groupKey: string, now: number): Local => {
      let local = locals.get(groupKey)
      if (local === undefined) {
        local = { leased: 0, shared: 0, sharedAt: now, pending: undefined, usedAt: now }
        locals.set(groupKey, local)
      }
      local.usedAt = now
      return local
    }

    /** What a request served from the lease is told remains: the lease's tokens and the shared bucket's refill. */
    const remainingOf = (local: Local, limit: RateLimit, now: number) =>
      Math.min(limit.burst, local.leased + local.shared + Math.max(0, now - local.sharedAt) / 1000 * limit.perSecond)

    /**
     * Takes the next lease of `bucket` for this request: `leaseOf` tokens at once, or, when the bucket holds fewer,
     * one. The first statement also looks the request's credential up.
     */
    const takeLease = (bucket: Bucket) =>
      Effect.gen(function*() {
        const lease = leaseOf(bucket.limit)
        const take = (count: number) =>
          repo.take({ key: bucket.key, limit: bucket.limit, gate: bucket.failures, lookup: bucket.lookup, count })
        const taken = yield* take(lease)
        const gateShut = bucket.failures !== undefined && taken.gate !== null && taken.gate < 1
        if (taken.remaining !== null || lease === 1 || gateShut || (taken.level !== null && taken.level < 1)) {
          return { taken, count: taken.remaining === null ? 0 : lease }
        }
        const one = yield* take(1)
        return {
          taken: { ...one, credential: taken.credential ?? one.credential },
          count: one.remaining === null ? 0 : 1
        }
      })

    /**
     * Forgets the shares of buckets unused for as long as the slowest bucket takes to fill (their leased tokens go
     * with them, to be taken afresh), and keeps at most `rememberEmptyAtMost` of them.
     */
    const forgetAfterMillis = 1000 * Math.max(
      ...[settings.apiKey, settings.userToken, settings.address].map((limit) => limit.burst / limit.perSecond)
    )
    if (settings.enabled) {
      yield* Effect.sleep(Duration.minutes(1)).pipe(
        Effect.zipRight(Effect.sync(() => {
          const now = Date.now()
          for (const [key, local] of locals) {
            if (local.pending === undefined && now - local.usedAt > forgetAfterMillis) locals.delete(key)
          }
        })),
        Effect.forever,
        Effect.forkScoped
      )
    }

    /**
     * The buckets this process found empty, by batch key. A refusal remembered here is one the database would
     * make too: no process ever adds tokens to a bucket but the refill, so the level can only be lower than the
     * refill since the refusal says. Bounded: the map keeps the order the buckets were found empty in, so the
     * first one is the oldest (an expired entry goes when it is next looked up, or when it is the oldest).
     */
    const knownEmpty = new Map<string, KnownEmpty>()

    const rememberEmpty = (groupKey: string, limit: RateLimit, level: number, message: string) => {
      const now = Date.now()
      const refilled = Math.max(0, (1 - level) / limit.perSecond) * 1000
      knownEmpty.delete(groupKey)
      if (knownEmpty.size >= rememberEmptyAtMost) knownEmpty.delete(knownEmpty.keys().next().value!)
      knownEmpty.set(groupKey, { limit, level, at: now, until: now + Math.min(rememberEmptyMillis, refilled), message })
    }

    /** The refusal of a bucket still known to be empty, with its level now. */
    const stillEmpty = (groupKey: string): Verdict | undefined => {
      const known = knownEmpty.get(groupKey)
      if (known === undefined) return undefined
      const now = Date.now()
      if (now >= known.until) {
        knownEmpty.delete(groupKey)
        return undefined
      }
      const level = Math.min(known.limit.burst, known.level + (now - known.at) / 1000 * known.limit.perSecond)
      return refused(known.limit, level, known.message)
    }

    type Checked = Option.Option<{ readonly verdict: Verdict; readonly bucket: Bucket }>

    const exempt = (request: HttpServerRequest.HttpServerRequest) =>
      !settings.enabled || exemptPaths.has(request.url.split("?")[0]!) ||
      (request.url.startsWith("/sandbox/") && selfCalls.isSelfCall(request.headers))

    const allowed = (bucket: Bucket, remaining: number): Checked =>
      Option.some({
        verdict: { allowed: true, headers: limitHeaders(bucket.limit, remaining), retryAfterSeconds: 0, message: "" },
        bucket
      })

    /**
     * The decision this process can make by itself, with no statement: a token of the bucket's lease, or the
     * refusal of a bucket known to be empty. Undefined when the bucket needs its next lease (or another request
     * is taking it).
     */
    const decideLocally = (bucket: Bucket, groupKey: string): Checked | undefined => {
      const now = Date.now()
      const local = localOf(groupKey, now)
      if (local.leased >= 1) {
        local.leased -= 1
        return allowed(bucket, remainingOf(local, bucket.limit, now))
      }
      const known = stillEmpty(groupKey)
      return known === undefined ? undefined : Option.some({ verdict: known, bucket })
    }

    /** The decision for `bucket`, waiting for the lease another request is taking, or taking the next one. */
    const takeToken = (bucket: Bucket, groupKey: string, caller: PresentedCredentials) =>
      Effect.gen(function*() {
        for (;;) {
          const decided = decideLocally(bucket, groupKey)
          if (decided !== undefined) return decided
          const local = localOf(groupKey, Date.now())
          if (local.pending !== undefined) {
            // Another request of this bucket is taking the next lease: decide after it, from what it brings.
            yield* Deferred.await(local.pending)
            continue
          }
          const pending = yield* Deferred.make<void>()
          local.pending = pending
          const leased = yield* takeLease(bucket).pipe(
            Effect.ensuring(Effect.suspend(() => {
              local.pending = undefined
              return Deferred.succeed(pending, undefined)
            })),
            Effect.uninterruptible
          )
          const { count, taken } = leased
          if (bucket.lookup !== undefined && taken.credential !== undefined) {
            caller.setFound({ ...bucket.lookup, row: taken.credential })
          }
          if (count >= 1) {
            const at = Date.now()
            local.leased += count - 1
            local.shared = taken.remaining ?? 0
            local.sharedAt = at
            return allowed(bucket, remainingOf(local, bucket.limit, at))
          }
          if (bucket.failures !== undefined && taken.gate !== null && taken.gate < 1) {
            const message = "Too many failed authentications from this address"
            rememberEmpty(groupKey, bucket.failures.limit, taken.gate, message)
            return Option.some({ verdict: refused(bucket.failures.limit, taken.gate, message), bucket })
          }
          if (taken.level !== null) rememberEmpty(groupKey, bucket.limit, taken.level, "Rate limit reached")
          return Option.some({ verdict: refused(bucket.limit, taken.level ?? 0, "Rate limit reached"), bucket })
        }
      })

    /**
     * Takes a token for the request, or says why not; none for exempt routes and calls, or when disabled. Decided
     * without an effect where this process can (an exempt request, a token of the lease, a bucket known to be
     * empty): most requests take this path, so it costs them a few function calls.
     */
    const check = (
      request: HttpServerRequest.HttpServerRequest,
      caller: PresentedCredentials
    ): Effect.Effect<Checked> => {
      try {
        if (exempt(request)) return noCheck
        const bucket = bucketFor(request, caller, settings, config.trustProxy)
        const groupKey = groupKeyOf(bucket)
        const decided = decideLocally(bucket, groupKey)
        if (decided !== undefined) return Effect.succeed(decided)
        return takeToken(bucket, groupKey, caller).pipe(
          Effect.catchAllCause((cause) => Effect.as(failOpen(cause), Option.none()))
        )
      } catch (error) {
        return Effect.as(failOpen(Cause.die(error)), Option.none())
      }
    }
    const noCheck: Effect.Effect<Checked> = Effect.succeed(Option.none())

    /** A failed authentication draws from its address's failure bucket. */
    const chargeFailure = (bucket: Bucket) =>
      bucket.failures === undefined
        ? Effect.void
        : repo.charge(bucket.failures.key, bucket.failures.limit).pipe(Effect.catchAllCause(failOpen))

    /**
     * The request decided: refused with 429, or served with the bucket's headers on every answer (`hooks`, which the
     * request middleware puts on the answer, charging a 401 to the address's failure bucket before it is written).
     */
    const admit = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      checked: Checked,
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      hooks: AnswerHooks
    ) => {
      if (Option.isNone(checked)) return app
      const { bucket, verdict } = checked.value
      hooks.headers = verdict.headers
      if (bucket.failures !== undefined) hooks.beforeUnauthorized = chargeFailure(bucket)
      if (verdict.allowed) return app
      return Effect.gen(function*() {
        yield* countRateLimited(bucket.key)
        yield* drain(request)
        return HttpServerResponse.unsafeJson(
          { _tag: "TooManyRequests", message: verdict.message, retryAfterSeconds: verdict.retryAfterSeconds },
          { status: 429, headers: verdict.headers }
        )
      })
    }

    /**
     * Wraps the app: provides the request's `Caller`, refuses a request over its limit with 429 and the JSON
     * error body, and has the bucket's headers put on every answer, including those the platform sends after the
     * app (404, 500).
     */
    const middleware = <E, R>(
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      hooks: AnswerHooks
    ): Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      E,
      Exclude<R, Caller> | HttpServerRequest.HttpServerRequest
    > =>
      Effect.withFiberRuntime((fiber) => {
        const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
        const caller = new PresentedCredentials(request.headers)
        return Effect.zipRight(
          provideForRequest(Caller, caller),
          Effect.flatMap(check(request, caller), (checked) => admit(request, checked, app, hooks))
        ) as Effect.Effect<HttpServerResponse.HttpServerResponse, E, Exclude<R, Caller>>
      })

    return { check, middleware, settings } as const
  }),
  dependencies: [RateLimitRepo.Default]
}) {}
