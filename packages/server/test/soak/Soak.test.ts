/**
 * The soak test: several parties at once against one server with its default rate limits, behind a
 * TLS proxy so that each party has an address of its own (`X-Forwarded-For`):
 *
 * - a noisy app with 24 webhook endpoints that never answer, whose test events it sends as fast as
 *   its key allows (its 429s are its own business);
 * - a stranger sending setup links with made-up tokens and wrong passwords for the operator's email;
 * - a healthy app whose test events go to a receiver that answers at once, and whose user has a
 *   sandbox connection backfilling and makes MCP calls;
 * - the operator, logging in to the portal from an address of its own (waiting out what the stranger's guesses at
 *   its email may cost it, as the login page does: a few seconds at most);
 * - a probe user whose reads are timed alone first, then during the soak.
 *
 * What must hold: no error for any healthy party (every read, login and MCP call answers 2xx, every
 * test event of the healthy app arrives), and the probe's reads keep answering. The figures (p50 and
 * p99 alone and under the soak, the parties' counts) are printed; how much the p99 may grow is a
 * benchmark's question (`npm run bench:soak`, docs/benchmarks.md), not a test's.
 */
import { expect, layer } from "@effect/vitest"
import { defaultRateLimits } from "@pulsebridge/server"
import {
  createApp,
  createOperator,
  createUser,
  makeTestServer,
  portalClient,
  portalLogin,
  TestServer
} from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { receiverCaFile, startReceiver, startSilentListener } from "../fixtures/Receiver.js"

/** How long the parties run at once. */
const soakSeconds = Number(process.env["SOAK_SECONDS"] ?? 20)

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

/** Headers of a party behind the proxy. */
const from = (address: string) => ({ "x-forwarded-for": address, "x-forwarded-proto": "https" })

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const value = yield* effect
    return { value, ms: performance.now() - start }
  })

/** Runs `round` again and again until `until` (a time in ms), `pauseMs` apart. */
const repeatUntil = <E, R>(until: number, pauseMs: number, round: Effect.Effect<void, E, R>) =>
  Effect.gen(function*() {
    while (Date.now() < until) {
      yield* round
      if (pauseMs > 0) yield* Effect.sleep(`${pauseMs} millis`)
    }
  })

layer(
  makeTestServer({
    sandbox: true,
    trustProxy: true,
    rateLimits: defaultRateLimits,
    webhookAllowPrivate: true,
    webhookCaFile: Option.some(receiverCaFile)
  }),
  { timeout: "300 seconds", excludeTestServices: true }
)("soak", (it) => {
  it.scoped("a noisy app, a stranger and a backfill at once slow no healthy party into an error", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const hanging = yield* startSilentListener

      // The parties.
      const noisy = yield* createApp("noisy")
      const noisyEndpoints: Array<string> = []
      for (let i = 0; i < 24; i++) {
        const made = yield* send("POST", "/api/v1/webhook-endpoints", {
          bearer: noisy.apiKey,
          headers: from("198.51.100.10"),
          json: { url: `https://127.0.0.1:${hanging.port}/hook-${i}` }
        })
        expect(made.status, preview(made)).toBe(201)
        noisyEndpoints.push(json(made).id)
      }
      const healthy = yield* createUser(`soak-healthy-${crypto.randomUUID().slice(0, 8)}`)
      const endpoint = yield* send("POST", "/api/v1/webhook-endpoints", {
        bearer: healthy.apiKey,
        headers: from("198.51.100.20"),
        json: { url: receiver.url }
      })
      expect(endpoint.status, preview(endpoint)).toBe(201)
      const healthyEndpoint = json(endpoint).id as string
      const probe = yield* createUser(`soak-probe-${crypto.randomUUID().slice(0, 8)}`)
      const email = `operator-${crypto.randomUUID().slice(0, 8)}@example.com`
      const password = "soak operator password"
      yield* createOperator(email, password)

      const probeRead = timed(send("GET", `/api/v1/users/${probe.user.id}`, {
        bearer: probe.apiKey,
        headers: from("198.51.100.30")
      }))

      // The probe alone.
      const alone: Array<number> = []
      for (let i = 0; i < 60; i++) {
        const { ms, value } = yield* probeRead
        expect(value.status, preview(value)).toBe(200)
        alone.push(ms)
      }

      // Everyone at once.
      // A backfill under way: the operator connects the healthy user to the Dexcom simulator (the sandbox
      // page's one call, the real connect flow run by the server).
      const { baseUrl } = yield* TestServer
      const login = yield* portalLogin(baseUrl, email, password)
      const operator = portalClient(baseUrl, login)
      const connected = yield* operator.post(`/portal/api/sandbox/users/${healthy.user.id}/connections`, {
        json: { provider: "Dexcom" },
        headers: from("192.0.2.44")
      })
      expect(connected.status, connected.text).toBe(201)
      const until = Date.now() + soakSeconds * 1000
      const noisyStatuses = new Map<number, number>()
      const count = (map: Map<number, number>, status: number) => map.set(status, (map.get(status) ?? 0) + 1)
      const noisyParty = repeatUntil(
        until,
        50,
        Effect.forEach(noisyEndpoints.slice(0, 4), (id) =>
          Effect.map(
            send("POST", `/api/v1/webhook-endpoints/${id}/test`, {
              bearer: noisy.apiKey,
              headers: from("198.51.100.10")
            }),
            (reply) => void count(noisyStatuses, reply.status)
          ), { concurrency: 4, discard: true })
      )
      const strangerStatuses = new Map<number, number>()
      const strangerParty = repeatUntil(
        until,
        20,
        Effect.all([
          Effect.map(
            send("POST", "/portal/api/setup", {
              headers: from("203.0.113.66"),
              json: { token: crypto.randomBytes(24).toString("base64url"), password: "a long enough password" }
            }),
            (reply) => void count(strangerStatuses, reply.status)
          ),
          Effect.map(
            send("POST", "/portal/api/login", {
              headers: from("203.0.113.66"),
              json: { email, password: "not the password" }
            }),
            (reply) => void count(strangerStatuses, reply.status)
          )
        ], { concurrency: 2, discard: true })
      )
      const healthyErrors: Array<string> = []
      const sentEvents: Array<{ readonly at: number }> = []
      const healthyParty = repeatUntil(
        until,
        1000,
        Effect.gen(function*() {
          const tested = yield* send("POST", `/api/v1/webhook-endpoints/${healthyEndpoint}/test`, {
            bearer: healthy.apiKey,
            headers: from("198.51.100.20")
          })
          if (tested.status !== 202) healthyErrors.push(`test event: ${tested.status} ${preview(tested)}`)
          else sentEvents.push({ at: Date.now() })
          const read = yield* send("GET", `/api/v1/users/${healthy.user.id}/connections`, {
            bearer: healthy.token,
            headers: from("198.51.100.21")
          })
          if (read.status !== 200) healthyErrors.push(`connections: ${read.status} ${preview(read)}`)
          const mcp = yield* send("POST", "/mcp", {
            bearer: healthy.token,
            headers: { ...from("198.51.100.21"), accept: "application/json, text/event-stream" },
            json: { jsonrpc: "2.0", id: 1, method: "tools/list" }
          })
          if (mcp.status !== 200) healthyErrors.push(`mcp: ${mcp.status} ${preview(mcp)}`)
        })
      )
      const loginTimes: Array<number> = []
      const operatorParty = repeatUntil(
        until,
        2000,
        Effect.gen(function*() {
          // The stranger's guesses at the operator's email may make it wait a few seconds (never longer:
          // docs/portal.md); the portal's login page counts the Retry-After down and tries again, and so
          // does the operator here. Logged in within the per-email limit is no error.
          const start = performance.now()
          let reply = yield* send("POST", "/portal/api/login", {
            headers: from("192.0.2.44"),
            json: { email, password }
          })
          for (let retry = 0; retry < 3 && reply.status === 429; retry++) {
            yield* Effect.sleep(`${Number(json(reply).retryAfterSeconds ?? 1)} seconds`)
            reply = yield* send("POST", "/portal/api/login", { headers: from("192.0.2.44"), json: { email, password } })
          }
          const ms = performance.now() - start
          if (reply.status !== 200 || ms > 10_000) {
            healthyErrors.push(`operator login: ${reply.status} after ${Math.round(ms)} ms ${preview(reply)}`)
          }
          loginTimes.push(ms)
        })
      )
      const fibers = yield* Effect.forEach(
        [noisyParty, strangerParty, healthyParty, operatorParty],
        (party) => Effect.fork(party)
      )
      const underSoak: Array<number> = []
      while (Date.now() < until) {
        const { ms, value } = yield* probeRead
        if (value.status !== 200) healthyErrors.push(`probe: ${value.status} ${preview(value)}`)
        underSoak.push(ms)
        yield* Effect.sleep("100 millis")
      }
      yield* Effect.forEach(fibers, Fiber.join, { discard: true })

      // Every test event of the healthy app arrives, though the noisy app's deliveries hang.
      yield* eventually(
        Effect.sync(() => receiver.received.filter((r) => r.event?.type === "webhook.test").length),
        (arrived) => arrived >= sentEvents.length,
        "the healthy app's test events",
        { within: "30 seconds" }
      )

      const figures = {
        seconds: soakSeconds,
        probe: {
          aloneP50: quantile(alone, 0.5),
          aloneP99: quantile(alone, 0.99),
          soakP50: quantile(underSoak, 0.5),
          soakP99: quantile(underSoak, 0.99),
          reads: underSoak.length
        },
        operatorLogins: { count: loginTimes.length, p99: quantile(loginTimes, 0.99) },
        healthyEvents: sentEvents.length,
        noisyStatuses: Object.fromEntries(noisyStatuses),
        strangerStatuses: Object.fromEntries(strangerStatuses)
      }
      console.log(`soak ${JSON.stringify(figures)}`)
      expect(healthyErrors, healthyErrors.slice(0, 5).join("\n")).toEqual([])
      expect(sentEvents.length).toBeGreaterThan(0)
      expect(loginTimes.length).toBeGreaterThan(0)
      expect(underSoak.length).toBeGreaterThan(0)
      // The stranger got nowhere: no 2xx.
      expect([...strangerStatuses.keys()].every((status) => status >= 400)).toBe(true)
    }))
})
