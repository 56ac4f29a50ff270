/**
 * `/metrics` end to end: after a sandbox backfill the sync counters of that provider have moved and
 * the request counter names routes by template; the public route requires `METRICS_TOKEN` (401
 * without it or with a wrong one) and does not exist without it (404); the separate listener of
 * `METRICS_PORT` serves the same document without a token; a request refused by the rate limits
 * moves the rate-limited counter, and webhook deliveries and meal analyses the counters of their outcome.
 *
 * The metric registry is the process's, shared by the servers of this file: assertions compare
 * values before and after, or name what only one server does.
 */
import { HttpClientRequest } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { createApp, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { MetricsListener } from "../../src/observability/MetricsRoutes.js"
import type { RateLimitSettings } from "../../src/platform/ServerConfig.js"
import { connect, sim, simulatedUser } from "../fixtures/Connect.js"
import { execute, expectError, json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { receiverCaFile, startReceiver } from "../fixtures/Receiver.js"
import { waitForSync } from "../fixtures/Sync.js"
import { makePng } from "../journal/fixtures/Images.js"
import { isSettled, pollEntry, scan, scanForm } from "../journal/fixtures/Journal.js"

const token = "metrics-token-0123456789abcdef"

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** The samples of a text exposition document (the lines that are not comments). */
const parse = (text: string): ReadonlyArray<Sample> =>
  text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    expect(match, `a sample line: ${line}`).not.toBeNull()
    const labels: Record<string, string> = {}
    for (const pair of (match![2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!
    }
    return { name: match![1]!, labels, value: Number(match![3]!.replace("+Inf", "Infinity")) }
  })

/** The sum of the samples of `name` whose labels include `labels`. */
const total = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0)

/** Scrapes the public `/metrics` with the token. */
const scrape = Effect.gen(function*() {
  const reply = yield* send("GET", "/metrics", { bearer: token })
  expect(reply.status, preview(reply)).toBe(200)
  expect(reply.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/)
  return parse(reply.text)
})

layer(
  makeTestServer({ sandbox: true, metricsToken: Option.some(Redacted.make(token)), metricsPort: Option.some(0) }),
  { timeout: "300 seconds", excludeTestServices: true }
)("metrics", (it) => {
  it.effect("after a sandbox backfill the sync counters of the provider and the request counter have moved", () =>
    Effect.gen(function*() {
      const { token: userToken, user } = yield* createUser(`metrics-${simulatedUser("u")}`)
      // Metrics are the process's: the test files run before this one in the same process have counted theirs.
      const before = yield* scrape
      const moved = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
        total(samples, name, labels) - total(before, name, labels)
      // Two 429s from the provider on the way, each counted as a failed call.
      yield* sim("Dexcom", "DELETE", "faults")
      yield* sim("Dexcom", "POST", "faults", {
        path: "/v3/users/self/egvs",
        kind: "rateLimit",
        count: 2,
        retryAfterSeconds: 1
      })
      const { connectionId } = yield* connect(user.id, userToken, "Dexcom", simulatedUser("dexcom"))
      yield* waitForSync(user.id, userToken, connectionId)
      expect((yield* sim("Dexcom", "GET", "faults")).faults, "every injected fault was hit").toEqual([])
      const samples = yield* scrape
      expect(moved(samples, "pulsebridge_sync_provider_errors_total", { provider: "dexcom", kind: "rate_limited" }))
        .toBe(2)
      expect(moved(samples, "pulsebridge_sync_provider_errors_total", { provider: "dexcom", kind: "server_error" }))
        .toBe(0)

      expect(moved(samples, "pulsebridge_sync_windows_fetched_total", { provider: "dexcom" })).toBeGreaterThan(0)
      expect(moved(samples, "pulsebridge_sync_records_stored_total", { provider: "dexcom" })).toBeGreaterThan(0)
      // Only Dexcom synced on this server: the label is the slug, and no other provider has read anything.
      expect(moved(samples, "pulsebridge_sync_windows_fetched_total", { provider: "fitbit" })).toBe(0)

      // The listing polled while waiting, counted under its route template, never under its raw path.
      expect(total(samples, "pulsebridge_http_requests_total", {
        route: "/api/v1/users/:userId/connections",
        method: "GET",
        status: "200"
      })).toBeGreaterThan(0)
      expect(total(samples, "pulsebridge_http_request_duration_seconds_count", {
        route: "/api/v1/users/:userId/connections",
        method: "GET"
      })).toBeGreaterThan(0)
      const routes = new Set(samples.flatMap((s) => s.labels["route"] === undefined ? [] : [s.labels["route"]]))
      for (const route of routes) expect(route).not.toContain(user.id)
      expect(routes).toContain("/api/v1/connections/callback")

      // The pool gauges (one connection to the embedded database, more to PostgreSQL) and the analysis queue.
      expect(total(samples, "pulsebridge_db_pool_max")).toBeGreaterThanOrEqual(1)
      expect(samples.some((s) => s.name === "pulsebridge_db_pool_connections" && s.labels["state"] === "idle"))
        .toBe(true)
      expect(samples.some((s) => s.name === "pulsebridge_meal_analysis_pending")).toBe(true)
    }))

  it.effect("unknown paths are counted under one label", () =>
    Effect.gen(function*() {
      const before = total(yield* scrape, "pulsebridge_http_requests_total", { route: "unmatched", status: "404" })
      for (const path of ["/no-such-route", "/api/v1/nothing/here", "/wp-login.php"]) {
        expectError(yield* send("GET", path), 404, "NotFound")
      }
      const after = yield* scrape
      expect(total(after, "pulsebridge_http_requests_total", { route: "unmatched", status: "404" })).toBe(before + 3)
      expect(after.some((s) => s.labels["route"]?.includes("wp-login") === true)).toBe(false)
    }))

  it.effect("the public /metrics requires the token", () =>
    Effect.gen(function*() {
      const missing = expectError(yield* send("GET", "/metrics"), 401, "Unauthorized")
      expect(missing.message).toContain("METRICS_TOKEN")
      expectError(yield* send("GET", "/metrics", { bearer: `${token}x` }), 401, "Unauthorized")
      expectError(yield* send("GET", "/metrics", { bearer: token.slice(0, -1) }), 401, "Unauthorized")
      expectError(yield* send("GET", "/metrics", { headers: { authorization: token } }), 401, "Unauthorized")
      const ok = yield* send("GET", "/metrics", { bearer: token })
      expect(ok.status).toBe(200)
      expect(ok.text).toContain("# TYPE pulsebridge_http_requests_total counter")
      expect(ok.text).not.toContain(token)
    }))

  it.effect("the metrics listener serves /metrics without a token, and nothing else", () =>
    Effect.gen(function*() {
      const listener = yield* MetricsListener
      expect(Option.isSome(listener.address)).toBe(true)
      const { host, port } = Option.getOrThrow(listener.address)
      expect(host).toBe("127.0.0.1")
      const reply = yield* execute(HttpClientRequest.get(`http://${host}:${port}/metrics`))
      expect(reply.status, preview(reply)).toBe(200)
      expect(total(parse(reply.text), "pulsebridge_http_requests_total")).toBeGreaterThan(0)
      const other = yield* execute(HttpClientRequest.get(`http://${host}:${port}/api/v1/users`))
      expectError(other, 404, "NotFound")
    }))
})

layer(makeTestServer(), { timeout: "60 seconds", excludeTestServices: true })("metrics disabled", (it) => {
  it.effect("without METRICS_TOKEN the public port has no /metrics, and no listener runs", () =>
    Effect.gen(function*() {
      expectError(yield* send("GET", "/metrics"), 404, "NotFound")
      expectError(yield* send("GET", "/metrics", { bearer: token }), 404, "NotFound")
      expect(Option.isNone((yield* MetricsListener).address)).toBe(true)
    }))
})

/** One request per API key before the bucket is empty; no refill while the test runs. */
const limits: RateLimitSettings = {
  enabled: true,
  apiKey: { perSecond: 0.01, burst: 2 },
  userToken: { perSecond: 0.01, burst: 2 },
  address: { perSecond: 10, burst: 100 }
}

layer(
  makeTestServer({ rateLimits: limits, metricsToken: Option.some(Redacted.make(token)) }),
  { timeout: "60 seconds", excludeTestServices: true }
)("metrics of the rate limits", (it) => {
  it.effect("a request refused by the rate limits moves the counter of its credential kind", () =>
    Effect.gen(function*() {
      const kind = { credential: "api_key" }
      const before = total(yield* scrape, "pulsebridge_http_rate_limited_total", kind)
      const { apiKey } = yield* createApp()
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) {
        statuses.push((yield* send("GET", "/api/v1/webhook-endpoints", { bearer: apiKey })).status)
      }
      expect(statuses).toEqual([200, 200, 429, 429])
      const after = yield* scrape
      expect(total(after, "pulsebridge_http_rate_limited_total", kind)).toBe(before + 2)
      expect(total(after, "pulsebridge_http_requests_total", { route: "/api/v1/webhook-endpoints", status: "429" }))
        .toBeGreaterThanOrEqual(2)
    }))
})

layer(
  makeTestServer({
    analyzer: "sandbox",
    webhookCaFile: Option.some(receiverCaFile),
    // The receiver listens on loopback, which the address guard refuses unless the operator allows it.
    webhookAllowPrivate: true,
    metricsToken: Option.some(Redacted.make(token))
  }),
  { timeout: "120 seconds", excludeTestServices: true }
)("metrics of webhook deliveries and meal analyses", (it) => {
  it.effect("a delivered and a failed webhook delivery move the counter of their outcome", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const count = (outcome: string) =>
        Effect.map(scrape, (samples) => total(samples, "pulsebridge_webhook_deliveries_total", { outcome }))
      const delivered = yield* count("delivered")
      const failed = yield* count("failed_attempt")
      const { apiKey } = yield* createApp()
      const created = yield* send("POST", "/api/v1/webhook-endpoints", { bearer: apiKey, json: { url: receiver.url } })
      expect(created.status, preview(created)).toBe(201)
      const endpointId = json(created).id as string

      const sendTest = send("POST", `/api/v1/webhook-endpoints/${endpointId}/test`, { bearer: apiKey })
      expect((yield* sendTest).status).toBe(202)
      yield* eventually(count("delivered"), (n) => n === delivered + 1, "the delivery to be counted")
      expect(receiver.received).toHaveLength(1)

      receiver.answer = () => ({ status: 500 })
      expect((yield* sendTest).status).toBe(202)
      yield* eventually(count("failed_attempt"), (n) => n === failed + 1, "the failed attempt to be counted")
      expect(yield* count("delivered")).toBe(delivered + 1)
    })))

  it.effect("a completed meal analysis moves the counter of its outcome", () =>
    Effect.gen(function*() {
      const count = (outcome: string) =>
        Effect.map(scrape, (samples) => total(samples, "pulsebridge_meal_analyses_total", { outcome }))
      const completed = yield* count("completed")
      const { token: userToken, user } = yield* createUser(`metrics-meal-${simulatedUser("u")}`)
      const entry = yield* scan(
        userToken,
        user.id,
        scanForm({ bytes: makePng(32, 32, 7), type: "image/png", name: "m.png" })
      )
      const done = yield* pollEntry(userToken, user.id, entry.id, isSettled)
      expect(done.analysisStatus).toBe("Completed")
      expect(yield* count("completed")).toBe(completed + 1)
      expect(total(yield* scrape, "pulsebridge_meal_analysis_pending")).toBe(0)
    }))
})
