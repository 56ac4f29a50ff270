/**
 * Rate limits end to end: token buckets per API key, per user token and per client address, 429
 * with the JSON error body and `Retry-After`, `RateLimit-*` headers on every answer of a limited
 * route, refill on the database's clock, exempt probes, and failed authentications charged to the
 * address they come from. The harness turns the limits off; these servers turn them on, small.
 */
import { HttpClient, HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient, SqlError } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import {
  createApp,
  createOperator,
  createUser,
  makeTestServer,
  portalClient,
  portalLogin,
  portalRequest,
  testConfig,
  TestServer
} from "@pulsebridge/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Metric from "effect/Metric"
import * as crypto from "node:crypto"
import { hashSecret } from "../../src/access/CredentialHash.js"
import { hashKey, RateLimiter } from "../../src/access/RateLimit.js"
import { RateLimitRepo } from "../../src/access/RateLimitRepo.js"
import { Apps } from "../../src/apps/Apps.js"
import { makeAppMiddleware } from "../../src/http/Middleware.js"
import { rateLimitsNotApplied } from "../../src/http/RequestMetrics.js"
import { SelfCalls } from "../../src/platform/SelfCalls.js"
import type { RateLimitSettings } from "../../src/platform/ServerConfig.js"
import { ServerConfig, serverConfig } from "../../src/platform/ServerConfig.js"
import type { Reply } from "../fixtures/Http.js"
import { expectError, json, preview, send, unknownId } from "../fixtures/Http.js"

/** Slow refills (one token per 10 s), so that no token comes back while a test runs. */
const limits: RateLimitSettings = {
  enabled: true,
  apiKey: { perSecond: 0.1, burst: 5 },
  userToken: { perSecond: 0.1, burst: 3 },
  address: { perSecond: 0.1, burst: 4 }
}

const expectLimitHeaders = (reply: Reply, limit: number, remaining: number) => {
  expect(reply.headers["ratelimit-limit"], preview(reply)).toBe(String(limit))
  expect(reply.headers["ratelimit-remaining"], preview(reply)).toBe(String(remaining))
  // A bucket refilling 0.1 token a second is full again after (limit - tokens) * 10 s, where the
  // tokens left are `remaining` and a fraction refilled since the bucket was last drawn.
  const reset = Number(reply.headers["ratelimit-reset"])
  expect(reset).toBeGreaterThan((limit - remaining - 1) * 10)
  expect(reset).toBeLessThanOrEqual((limit - remaining) * 10)
}

/** A 429 with the JSON error body, `Retry-After` equal to the body's delay, and the bucket's headers. */
const expectTooMany = (reply: Reply, limit: number) => {
  expectError(reply, 429, "TooManyRequests")
  const body: { readonly retryAfterSeconds: number; readonly message: string } = json(reply)
  expect(typeof body.retryAfterSeconds).toBe("number")
  // Less than one token left, refilling 0.1 a second: at most 10 s to wait.
  expect(body.retryAfterSeconds).toBeGreaterThanOrEqual(1)
  expect(body.retryAfterSeconds).toBeLessThanOrEqual(10)
  expect(reply.headers["retry-after"]).toBe(String(body.retryAfterSeconds))
  expect(reply.headers["ratelimit-limit"]).toBe(String(limit))
  expect(reply.headers["ratelimit-remaining"]).toBe("0")
  return body
}

/** Longer than a server remembers a refusal without asking its database again (`access/RateLimit.ts`). */
const waitOutRememberedRefusal = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1100)))

/** Moves a bucket's last use back in time: on the database's clock, that much time has passed. */
const rewind = (key: string, seconds: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      update rate_limit_buckets set updated_at = updated_at - make_interval(secs => ${seconds})
      where key = ${key} returning key
    `
    expect(rows.length).toBe(1)
  })

it.layer(makeTestServer({ rateLimits: limits }), { timeout: "120 seconds" })("rate limits per credential", (it) => {
  it.effect("a burst over an API key's limit gets 429 with the JSON body, Retry-After and RateLimit headers", () =>
    Effect.gen(function*() {
      const { apiKey, user } = yield* createUser("burst")
      // Every answer of a limited route carries the headers, errors included.
      const missing = yield* send("GET", `/api/v1/users/${unknownId()}`, { bearer: apiKey })
      expectError(missing, 404)
      expectLimitHeaders(missing, 5, 4)
      for (const remaining of [3, 2, 1, 0]) {
        const reply = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })
        expect(reply.status, preview(reply)).toBe(200)
        expectLimitHeaders(reply, 5, remaining)
      }
      const refused = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })
      expectTooMany(refused, 5)
      // A refused request does not draw: the bucket stays empty but not in debt.
      expectTooMany(yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: "x" } }), 5)
      // A refused upload still gets its answer, not a reset connection.
      const large = JSON.stringify({ externalUserId: "x", padding: "p".repeat(900 * 1024) })
      expectTooMany(yield* send("POST", "/api/v1/users", { bearer: apiKey, body: large }), 5)
      const form = new FormData()
      form.append("image", new Blob([new Uint8Array(4 * 1024 * 1024)], { type: "image/jpeg" }), "meal.jpg")
      expectTooMany(
        yield* send("POST", `/api/v1/users/${user.id}/journal-entries/scans`, { bearer: apiKey, formData: form }),
        5
      )
    }))

  it.effect("each API key and each user token has its own bucket", () =>
    Effect.gen(function*() {
      const first = yield* createUser("first")
      const other = yield* createApp("other app")
      for (let i = 0; i < 5; i++) {
        expect((yield* send("GET", `/api/v1/users/${first.user.id}`, { bearer: first.apiKey })).status).toBe(200)
      }
      expectTooMany(yield* send("GET", `/api/v1/users/${first.user.id}`, { bearer: first.apiKey }), 5)
      // Another app's key is untouched.
      const otherReply = yield* send("GET", `/api/v1/users/${first.user.id}`, { bearer: other.apiKey })
      expectError(otherReply, 404)
      expectLimitHeaders(otherReply, 5, 4)
      // The user's token has a bucket of its own, with the user-token limit, also on the legacy header.
      const path = `/api/v1/users/${first.user.id}/connections`
      for (const remaining of [2, 1, 0]) {
        const reply = yield* send("GET", path, { headers: { "x-user-token": first.token } })
        expect(reply.status, preview(reply)).toBe(200)
        expectLimitHeaders(reply, 3, remaining)
      }
      expectTooMany(yield* send("GET", path, { bearer: first.token }), 3)
    }))

  it.effect("an empty bucket refills as time passes on the database's clock", () =>
    Effect.gen(function*() {
      const { apiKey, user } = yield* createUser("refill")
      for (let i = 0; i < 5; i++) yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })
      const refused = expectTooMany(yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey }), 5)
      // Waiting what Retry-After says gives one token back, and one only. (The time passes on the database's
      // clock only; the server remembers a refusal for up to a second, which passes here in earnest.)
      yield* rewind(hashKey("key", apiKey), refused.retryAfterSeconds)
      yield* waitOutRememberedRefusal
      const again = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })
      expect(again.status, preview(again)).toBe(200)
      expectLimitHeaders(again, 5, 0)
      expectTooMany(yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey }), 5)
      // A long wait fills the bucket to its burst, no further.
      yield* rewind(hashKey("key", apiKey), 3600)
      yield* waitOutRememberedRefusal
      const full = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })
      expect(full.status).toBe(200)
      expectLimitHeaders(full, 5, 4)
    }))

  it.effect("pruning deletes only buckets idle long enough to be full, and a pruned bucket starts full", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const idle = yield* createUser("idle")
      const busy = yield* createUser("busy")
      for (let i = 0; i < 5; i++) {
        yield* send("GET", `/api/v1/users/${idle.user.id}`, { bearer: idle.apiKey })
        yield* send("GET", `/api/v1/users/${busy.user.id}`, { bearer: busy.apiKey })
      }
      // Empty, a bucket of burst 5 refilling 0.1 a second is full after 50 s.
      yield* rewind(hashKey("key", idle.apiKey), 3600)
      yield* Effect.flatMap(RateLimitRepo, (repo) => repo.prune(60)).pipe(Effect.provide(RateLimitRepo.Default))
      const left = yield* sql<{ key: string }>`
        select key from rate_limit_buckets where key in (${hashKey("key", idle.apiKey)}, ${hashKey("key", busy.apiKey)})
      `
      expect(left.map((row) => row.key)).toEqual([hashKey("key", busy.apiKey)])
      expectLimitHeaders(yield* send("GET", `/api/v1/users/${idle.user.id}`, { bearer: idle.apiKey }), 5, 4)
      expectTooMany(yield* send("GET", `/api/v1/users/${busy.user.id}`, { bearer: busy.apiKey }), 5)
    }))

  it.effect("requests without a credential are limited per client address; probes and docs are exempt", () =>
    Effect.gen(function*() {
      // The webhooks and the OAuth callback draw from the same bucket: this client's address.
      const paths = [
        `/webhooks/fitbit/${unknownId()}`,
        "/api/v1/connections/callback?state=nope&code=x",
        "/no-such-route",
        `/webhooks/garmin/${unknownId()}`
      ]
      for (const [i, path] of paths.entries()) {
        const reply = yield* send("GET", path)
        expect(reply.status, preview(reply)).not.toBe(429)
        expect(reply.status, preview(reply)).toBeLessThan(500)
        expectLimitHeaders(reply, 4, 3 - i)
      }
      expectTooMany(yield* send("GET", "/api/v1/connections/callback?state=nope&code=x"), 4)
      expectTooMany(yield* send("POST", `/webhooks/fitbit/${unknownId()}`, { json: {} }), 4)
      for (const path of ["/", "/health", "/openapi.json", "/docs"]) {
        const reply = yield* send("GET", path)
        expect(reply.status, `${path}: ${preview(reply)}`).toBe(200)
        expect(reply.headers["ratelimit-limit"]).toBeUndefined()
      }
      // A credential has its own bucket, whatever the address's.
      const { apiKey } = yield* createApp("after the address")
      expectError(yield* send("GET", `/api/v1/users/${unknownId()}`, { bearer: apiKey }), 404)
    }))
})

it.layer(makeTestServer({ rateLimits: limits }), { timeout: "120 seconds" })("rate limits of the portal", (it) => {
  it.effect("a portal session has its own bucket at an API key's limit; a made-up session is a failed authentication", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer
      yield* createOperator("limits@example.com", "a long enough password")
      // The login carries no session yet: it draws from the address's bucket.
      const login = yield* portalLogin(baseUrl, "limits@example.com", "a long enough password")
      expect(login.reply.headers["ratelimit-limit"]).toBe("4")
      const portal = portalClient(baseUrl, login)
      for (let i = 0; i < 5; i++) {
        const reply = yield* portal.get("/portal/api/session")
        expect(reply.status, reply.text).toBe(200)
        expect(reply.headers["ratelimit-limit"]).toBe("5")
        expect(reply.headers["ratelimit-remaining"]).toBe(String(4 - i))
      }
      expect((yield* portal.get("/portal/api/session")).status).toBe(429)
      // A session nobody holds gets 401 and is charged to the address's failure bucket.
      for (let i = 0; i < 4; i++) {
        const guess = yield* portalRequest(baseUrl, "GET", "/portal/api/session", {
          cookie: `pb_portal_session=${crypto.randomBytes(24).toString("base64url")}`
        })
        expect(guess.status, guess.text).toBe(401)
      }
      const refused = yield* portalRequest(baseUrl, "GET", "/portal/api/session", {
        cookie: `pb_portal_session=${crypto.randomBytes(24).toString("base64url")}`
      })
      expect(refused.status).toBe(429)
      expect(refused.body.message).toMatch(/failed authentications/)
    }))
})

/** Behind a trusted proxy, the address is the first hop of `X-Forwarded-For`. */
const fromAddress = (address: string) => ({ "x-forwarded-for": `${address}, 10.0.0.1`, "x-forwarded-proto": "https" })

it.layer(makeTestServer({ rateLimits: limits, trustProxy: true }), { timeout: "120 seconds" })(
  "rate limits per address behind a proxy",
  (it) => {
    it.effect("each forwarded client address has its own bucket", () =>
      Effect.gen(function*() {
        for (let i = 0; i < 4; i++) {
          const reply = yield* send("GET", `/webhooks/fitbit/${unknownId()}`, { headers: fromAddress("203.0.113.7") })
          expectLimitHeaders(reply, 4, 3 - i)
        }
        expectTooMany(yield* send("GET", "/no-such-route", { headers: fromAddress("203.0.113.7") }), 4)
        // The proxy's own address (the last hop) is not the key.
        const other = yield* send("GET", "/no-such-route", { headers: fromAddress("203.0.113.8") })
        expectError(other, 404)
        expectLimitHeaders(other, 4, 3)
      }))

    it.effect("an IPv6 client is keyed by its /64 network", () =>
      Effect.gen(function*() {
        const hosts = ["2001:db8:7:1::1", "2001:DB8:7:1:ffff::9", "2001:db8:7:1:0:0:0:7", "2001:db8:7:1::1%eth0"]
        for (const [i, host] of hosts.entries()) {
          expectLimitHeaders(yield* send("GET", "/no-such-route", { headers: fromAddress(host) }), 4, 3 - i)
        }
        expectTooMany(yield* send("GET", "/no-such-route", { headers: fromAddress("2001:db8:7:1::abcd") }), 4)
        expectLimitHeaders(yield* send("GET", "/no-such-route", { headers: fromAddress("2001:db8:7:2::1") }), 4, 3)
        // An IPv4 address, written as IPv6 or not, is one client.
        expectLimitHeaders(yield* send("GET", "/no-such-route", { headers: fromAddress("192.0.2.99") }), 4, 3)
        expectLimitHeaders(yield* send("GET", "/no-such-route", { headers: fromAddress("::ffff:192.0.2.99") }), 4, 2)
      }))

    it.effect("failed authentications draw from the address: spraying random keys ends in 429", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* createApp("sprayed")
        const sprayer = fromAddress("198.51.100.20")
        const guess = () =>
          send("GET", `/api/v1/users/${unknownId()}`, {
            bearer: `pb_sk_${crypto.randomBytes(24).toString("base64url")}`,
            headers: sprayer
          })
        // The address's failure bucket holds 4 and refills 0.1 a second: 4 failures empty it, plus one more
        // for each token refilled while the guesses run (none unless the machine takes 10 s over them), and one
        // for each statement of the limiter that the database did not answer in time (it fails open, and counts it).
        const notApplied = () => Effect.map(Metric.value(rateLimitsNotApplied), (state) => state.count)
        const notAppliedBefore = yield* notApplied()
        const started = Date.now()
        let failures = 0
        let reply = yield* guess()
        while (reply.status === 401) {
          failures++
          const allowed = 4 + Math.floor((Date.now() - started) / 10_000) + (yield* notApplied()) - notAppliedBefore
          expect(failures).toBeLessThanOrEqual(allowed)
          reply = yield* guess()
        }
        expect(failures).toBeGreaterThanOrEqual(4)
        const refused = expectTooMany(reply, 4)
        expect(refused.message).toMatch(/failed authentications/)
        // From that address even a valid key waits; from another it is served.
        expectTooMany(yield* send("GET", `/api/v1/users/${unknownId()}`, { bearer: apiKey, headers: sprayer }), 4)
        const elsewhere = yield* send("GET", `/api/v1/users/${unknownId()}`, {
          bearer: apiKey,
          headers: fromAddress("198.51.100.21")
        })
        expectError(elsewhere, 404)
        expectLimitHeaders(elsewhere, 5, 4)
        expect(json(elsewhere)._tag).toBe("NotFound")
      }))
  }
)

it.effect("RATE_LIMIT_* settings are read as <per second>/<burst>, and a malformed one is refused", () =>
  Effect.gen(function*() {
    const read = (entries: Record<string, string>) =>
      Effect.withConfigProvider(serverConfig, ConfigProvider.fromMap(new Map(Object.entries(entries))))
    const configured = yield* read({ RATE_LIMIT_API_KEY: "50/200", RATE_LIMIT_ADDRESS: "0.5/10" })
    expect(configured.rateLimits).toEqual({
      enabled: true,
      apiKey: { perSecond: 50, burst: 200 },
      userToken: { perSecond: 10, burst: 50 },
      address: { perSecond: 0.5, burst: 10 }
    })
    expect((yield* read({ RATE_LIMIT: "off" })).rateLimits?.enabled).toBe(false)
    const malformed = yield* Effect.flip(read({ RATE_LIMIT_USER_TOKEN: "fast" }))
    expect(String(malformed)).toMatch(/RATE_LIMIT_USER_TOKEN must be <requests per second>\/<burst>/)
    expect(String(yield* Effect.flip(read({ RATE_LIMIT_API_KEY: "0/10" })))).toMatch(/RATE_LIMIT_API_KEY/)
  }))

it.layer(makeTestServer({ rateLimits: limits, trustProxy: true, sandbox: true }), { timeout: "120 seconds" })(
  "rate limits on the sandbox",
  (it) => {
    it.effect("the simulators' control routes are limited per address; a simulated provider token has its own bucket", () =>
      Effect.gen(function*() {
        const client = fromAddress("192.0.2.30")
        for (let i = 0; i < 4; i++) {
          const reply = yield* send("GET", "/sandbox/analyzer/_sim/faults", { headers: client })
          expect(reply.status, preview(reply)).toBe(200)
          expectLimitHeaders(reply, 4, 3 - i)
        }
        expectTooMany(yield* send("GET", "/sandbox/analyzer/_sim/faults", { headers: client }), 4)
        // The provider APIs are called with the simulated providers' tokens (by the sync, from this
        // server's own address): one bucket per token, at the address's limit.
        const withToken = yield* send("GET", "/sandbox/analyzer/_sim/faults", {
          headers: { ...client, authorization: "Bearer simulated-access-token" }
        })
        expect(withToken.status, preview(withToken)).toBe(200)
        expectLimitHeaders(withToken, 4, 3)
      }))
  }
)

/** Limits that the tests of this block never reach: the credential is read with the bucket on every request. */
const roomy: RateLimitSettings = {
  enabled: true,
  apiKey: { perSecond: 0.1, burst: 100 },
  userToken: { perSecond: 0.1, burst: 100 },
  address: { perSecond: 0.1, burst: 100 }
}

it.layer(makeTestServer({ rateLimits: roomy }), { timeout: "120 seconds" })(
  "credentials read with the bucket",
  (it) => {
    it.effect("a key revoked by any writer gets 401 at once, while the app's other keys keep working", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { apiKey, user } = yield* createUser("revoked-key")
        const other = yield* Effect.flatMap(Apps, (apps) => apps.createApiKey(user.appId, ["users:read"]))
        expect((yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })).status).toBe(200)
        // A plain UPDATE, as another process (the CLI, another API node) would write it: no hook of this one runs.
        yield* sql`update api_keys set revoked_at = now() where key_hash = ${hashSecret(apiKey)}`
        const revoked = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })
        expectError(revoked, 401, "Unauthorized")
        expect(revoked.headers["ratelimit-limit"], preview(revoked)).toBe("100")
        expectError(yield* send("GET", `/api/v1/users/${user.id}`, { headers: { "x-app-api-key": apiKey } }), 401)
        const kept = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: other.apiKey })
        expect(kept.status, preview(kept)).toBe(200)
      }))

    it.effect("a replaced token and a deleted user's token get 401 at once; the new token works", () =>
      Effect.gen(function*() {
        const { apiKey, token, user } = yield* createUser("rotated-token")
        const path = `/api/v1/users/${user.id}/connections`
        expect((yield* send("GET", path, { bearer: token })).status).toBe(200)
        const rotated = yield* send("POST", `/api/v1/users/${user.id}/rotate-token`, { bearer: apiKey })
        expect(rotated.status, preview(rotated)).toBe(200)
        const fresh = json(rotated).token as string
        expectError(yield* send("GET", path, { bearer: token }), 401, "Unauthorized")
        expect((yield* send("GET", path, { bearer: fresh })).status).toBe(200)
        expect((yield* send("DELETE", `/api/v1/users/${user.id}`, { bearer: apiKey })).status).toBe(204)
        expectError(yield* send("GET", path, { bearer: fresh }), 401, "Unauthorized")
        expectError(yield* send("GET", path, { headers: { "x-user-token": fresh } }), 401, "Unauthorized")
      }))

    it.effect("a user token sent where an API key belongs, and a malformed key, still get their own 401s", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("wrong-type")
        const wrongType = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: token })
        expectError(wrongType, 401, "Unauthorized")
        expect(json(wrongType).message).toMatch(/Wrong credential type/)
        const malformed = yield* send("GET", `/api/v1/users/${user.id}`, { bearer: "pb_sk_short" })
        expectError(malformed, 401, "Unauthorized")
      }))
  }
)

it.layer(makeTestServer({ rateLimits: limits }), { timeout: "120 seconds" })(
  "concurrent requests on one bucket",
  (it) => {
    it.effect("are decided together yet one by one: exactly the burst is served, each with its own remaining count", () =>
      Effect.gen(function*() {
        const { apiKey, user } = yield* createUser("concurrent")
        const replies = yield* Effect.forEach(
          Array.from({ length: 12 }),
          () => send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey }),
          { concurrency: "unbounded" }
        )
        const served = replies.filter((reply) => reply.status !== 429)
        for (const reply of served) expect(reply.status, preview(reply)).toBe(200)
        expect(served.length).toBe(5)
        expect(served.map((reply) => Number(reply.headers["ratelimit-remaining"])).sort()).toEqual([0, 1, 2, 3, 4])
        for (const reply of replies.filter((reply) => reply.status === 429)) expectTooMany(reply, 5)
      }))
  }
)

/** A server of one route behind the request middleware, its limiter over the given bucket store. */
const limitedServer = (repo: Layer.Layer<RateLimitRepo>, rateLimits: RateLimitSettings = limits) =>
  Layer.unwrapEffect(Effect.map(RateLimiter, (limiter) =>
    HttpServer.serve(
      HttpRouter.empty.pipe(
        HttpRouter.get("/ok", Effect.succeed(HttpServerResponse.unsafeJson({ ok: true }))),
        HttpRouter.get(
          "/denied",
          Effect.succeed(HttpServerResponse.unsafeJson({ _tag: "Unauthorized", message: "no" }, { status: 401 }))
        )
      ),
      makeAppMiddleware({ trustProxy: false, rateLimit: limiter.middleware })
    ))).pipe(
      Layer.provideMerge(NodeHttpServer.layerTest),
      Layer.provide(RateLimiter.DefaultWithoutDependencies),
      Layer.provide(SelfCalls.Default),
      Layer.provide(repo),
      Layer.provide(Layer.succeed(ServerConfig, testConfig("unused", { rateLimits }))),
      Layer.provide(Logger.minimumLogLevel(LogLevel.None))
    )

const stubRepo = (take: RateLimitRepo["take"]) =>
  Layer.succeed(RateLimitRepo, RateLimitRepo.make({ take, charge: () => Effect.void, prune: () => Effect.void }))

const getOk = Effect.flatMap(HttpClient.HttpClient, (client) => client.get("/ok"))

/** The statements the stub below was asked for. */
let takes = 0

it.layer(limitedServer(stubRepo(() => Effect.sync(() => (takes++, { remaining: null, level: 0.5, gate: null })))))(
  "an empty bucket",
  (it) => {
    it.effect("refuses with 429 and the headers", () =>
      Effect.gen(function*() {
        const response = yield* getOk
        expect(response.status).toBe(429)
        expect(response.headers["retry-after"]).toBe("5")
        expect(response.headers["ratelimit-remaining"]).toBe("0")
        expect((yield* response.json as Effect.Effect<any, unknown>)._tag).toBe("TooManyRequests")
      }))

    it.effect("is remembered: a client that keeps knocking is refused without a statement, for a second at most", () =>
      Effect.gen(function*() {
        yield* waitOutRememberedRefusal
        const before = takes
        const first = yield* getOk
        expect(first.status).toBe(429)
        expect(takes).toBe(before + 1)
        for (let i = 0; i < 5; i++) {
          const again = yield* getOk
          expect(again.status).toBe(429)
          expect(again.headers["retry-after"]).toBe("5")
          expect(again.headers["ratelimit-remaining"]).toBe("0")
          expect((yield* again.json as Effect.Effect<any, unknown>).message).toMatch(/^Rate limit reached; retry in/)
        }
        expect(takes).toBe(before + 1)
        // Then the database is asked again: another process may have drawn from the bucket, never filled it.
        yield* waitOutRememberedRefusal
        expect((yield* getOk).status).toBe(429)
        expect(takes).toBe(before + 2)
      }))
  }
)

it.layer(
  limitedServer(
    stubRepo(() =>
      Effect.fail(new SqlError.SqlError({ cause: new Error("connect ECONNREFUSED"), message: "Failed to connect" }))
    )
  )
)("a database that does not answer", (it) => {
  it.effect("lets requests through without rate-limit headers (fail open)", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) {
        const response = yield* getOk
        expect(response.status).toBe(200)
        expect(response.headers["ratelimit-limit"]).toBeUndefined()
      }
    }))
})

/** When each failed authentication's charge ended (it takes 200 ms). */
const charged: Array<number> = []

it.layer(
  limitedServer(Layer.succeed(
    RateLimitRepo,
    RateLimitRepo.make({
      take: () => Effect.succeed({ remaining: 4, level: 5, gate: 4 }),
      charge: () =>
        Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 200))).pipe(
          Effect.andThen(Effect.sync(() => void charged.push(Date.now())))
        ),
      prune: () => Effect.void
    })
  ))
)("a failed authentication", (it) => {
  it.effect("is charged to its address before its 401 is written, so that the next guess finds it", () =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const response = yield* client.get("/denied", { headers: { authorization: "Bearer pb_sk_guess" } })
      expect(response.status).toBe(401)
      expect(charged).toHaveLength(1)
      expect(response.headers["ratelimit-remaining"]).toBe("4")
      // An answer that is not a 401 charges nothing.
      expect((yield* client.get("/ok", { headers: { authorization: "Bearer pb_sk_guess" } })).status).toBe(200)
      expect(charged).toHaveLength(1)
    }))
})

/** A bucket of 50 as the database would keep it (no refill during the test), and the token counts asked of it. */
const shared = { tokens: 50, asked: [] as Array<number> }

it.layer(
  limitedServer(
    stubRepo(({ count }) =>
      Effect.sync(() => {
        const n = count ?? 1
        shared.asked.push(n)
        const level = shared.tokens
        if (level < n) return { remaining: null, level, gate: null }
        shared.tokens -= n
        return { remaining: shared.tokens, level, gate: null }
      })
    ),
    { ...limits, address: { perSecond: 0.001, burst: 50 } }
  )
)("a bucket of 50 (leases of 5)", (it) => {
  it.effect("serves five requests per statement, each told what remains", () =>
    Effect.gen(function*() {
      shared.asked.length = 0
      const remaining: Array<string | undefined> = []
      for (let i = 0; i < 12; i++) {
        const response = yield* getOk
        expect(response.status).toBe(200)
        remaining.push(response.headers["ratelimit-remaining"])
      }
      expect(shared.asked).toEqual([5, 5, 5])
      expect(remaining).toEqual(Array.from({ length: 12 }, (_, i) => String(49 - i)))
      expect(shared.tokens).toBe(35)
    }))

  it.effect("concurrent requests wait for the lease under way and share it; near the end, one token at a time", () =>
    Effect.gen(function*() {
      // three are still leased from the test before: 38 in all
      shared.asked.length = 0
      const replies = yield* Effect.forEach(Array.from({ length: 45 }), () => getOk, { concurrency: "unbounded" })
      const served = replies.filter((response) => response.status === 200)
      expect(served).toHaveLength(38)
      expect(replies.filter((response) => response.status === 429)).toHaveLength(7)
      expect(shared.tokens).toBe(0)
      // leases of five while five remain, then a lease refused and the last tokens one by one
      expect(shared.asked.filter((n) => n === 5).length).toBeLessThanOrEqual(8)
      expect(shared.asked.length).toBeLessThan(served.length)
      expect(served.map((response) => Number(response.headers["ratelimit-remaining"])).sort((a, b) => a - b))
        .toEqual(Array.from({ length: 38 }, (_, i) => i))
    }))
})
