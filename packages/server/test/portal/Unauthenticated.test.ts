/**
 * What the portal's unauthenticated routes (login and setup) may cost and who they may slow: concurrent
 * guesses for one email are counted before any password is checked, so a burst gets no more checks than
 * a sequence; a stranger's failures lock only the stranger's address, while the operator's email waits
 * a few seconds at most; a setup with a bad token runs no password hash, is audited and is limited per
 * address; and password hashes run a few at a time, a login beyond the queue answered 429 at once.
 *
 * The wire matters: the client address comes from `X-Forwarded-For` behind a trusted proxy, the number
 * of password hashes from the server's own `/metrics`, and the answers are the ones the pages read
 * (429 with `retryAfterSeconds` and `Retry-After`).
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { createOperator, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { Operators } from "../../src/portal/operators/Operators.js"
import type { Reply } from "../fixtures/Http.js"
import { expectError, json, send } from "../fixtures/Http.js"

const password = "correct horse battery staple"
const metricsToken = "metrics-token-0123456789abcdef"

const newEmail = () => `throttle-${crypto.randomBytes(4).toString("hex")}@example.com`

/** Behind the trusted proxy, the client's address is the first hop of `X-Forwarded-For`. */
const from = (address: string) => ({ "x-forwarded-for": `${address}, 10.0.0.1`, "x-forwarded-proto": "https" })

const login = (email: string, pass: string, address: string) =>
  send("POST", "/portal/api/login", { json: { email, password: pass }, headers: from(address) })

const setup = (token: string, address: string) =>
  send("POST", "/portal/api/setup", { json: { token, password }, headers: from(address) })

/** How many password hashes (scrypt) the server has run, from its `/metrics`. */
const hashesRun = Effect.gen(function*() {
  const reply = yield* send("GET", "/metrics", { bearer: metricsToken, headers: from("192.0.2.250") })
  expect(reply.status, reply.text.slice(0, 200)).toBe(200)
  const line = reply.text.split("\n").find((l) =>
    l.startsWith("pulsebridge_portal_password_hashes_total{") &&
    l.includes("outcome=\"hashed\"")
  )
  expect(line, "pulsebridge_portal_password_hashes_total{outcome=\"hashed\"} in /metrics").toBeDefined()
  return Number(line!.split(" ").at(-1))
})

/** As if every wait had run `seconds` longer: the throttle's clock is the server's. */
const letTimePass = (seconds: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`update login_failures set blocked_until = blocked_until - make_interval(secs => ${seconds})
          where blocked_until is not null`
  )

/** The newest 200 audit events, read by the operator `email` through the portal's API. */
const auditAs = (email: string) =>
  Effect.gen(function*() {
    const address = "198.51.100.200"
    const opened = yield* login(email, password, address)
    expect(opened.status, opened.text).toBe(200)
    const cookie = opened.headers["set-cookie"]!.split(";")[0]!
    const reply = yield* send("GET", "/portal/api/audit?limit=200", { headers: { ...from(address), cookie } })
    expect(reply.status, reply.text).toBe(200)
    return json(reply).data as Array<{ action: string; address: string | null; detail: Record<string, any> }>
  })

const expectThrottled = (reply: Reply) => {
  const body = expectError(reply, 429, "TooManyRequests") as { retryAfterSeconds?: unknown }
  expect(typeof body.retryAfterSeconds).toBe("number")
  expect(reply.headers["retry-after"]).toBe(String(body.retryAfterSeconds))
  return body.retryAfterSeconds as number
}

const ServerLive = makeTestServer({ trustProxy: true, metricsToken: Option.some(Redacted.make(metricsToken)) })

layer(ServerLive, { timeout: "180 seconds" })("unauthenticated portal work", (it) => {
  it.effect("30 concurrent wrong passwords for one email from one address: at most 3 are checked, the rest 429", () =>
    Effect.gen(function*() {
      const email = newEmail()
      yield* createOperator(email, password)
      // One login first, so that the hash counter exists.
      expect((yield* login(email, password, "198.51.100.1")).status).toBe(200)
      const before = yield* hashesRun
      const replies = yield* Effect.all(
        Array.from({ length: 30 }, (_, i) => login(email, `wrong password ${i}`, "198.51.100.2")),
        { concurrency: "unbounded" }
      )
      const statuses = replies.map((reply) => reply.status)
      const checked = statuses.filter((status) => status === 401).length
      expect(checked, statuses.join(",")).toBeGreaterThanOrEqual(1)
      expect(checked, statuses.join(",")).toBeLessThanOrEqual(3)
      for (const reply of replies.filter((reply) => reply.status !== 401)) expectThrottled(reply)
      expect((yield* hashesRun) - before).toBeLessThanOrEqual(3)
      // The burst left the address waiting, as three failures in a row do.
      expectThrottled(yield* login(email, password, "198.51.100.2"))
    }))

  it.effect("a stranger's failures from one address lock that address, not the operator on another", () =>
    Effect.gen(function*() {
      const email = newEmail()
      yield* createOperator(email, password)
      const stranger = "203.0.113.66"
      // Ten failures, each after the wait the one before imposed: the stranger's wait is now 2^7 s.
      for (let i = 0; i < 10; i++) {
        expect((yield* login(email, `guess number ${i}`, stranger)).status).toBe(401)
        yield* letTimePass(24 * 3600)
      }
      expect((yield* login(email, "guess number 10", stranger)).status).toBe(401)
      expect(expectThrottled(yield* login(email, password, stranger))).toBeGreaterThanOrEqual(100)
      // From elsewhere, the operator waits a few seconds at most, then logs in.
      const operator = yield* login(email, password, "198.51.100.77")
      if (operator.status !== 200) {
        expect(expectThrottled(operator)).toBeLessThanOrEqual(5)
        yield* letTimePass(5)
        expect((yield* login(email, password, "198.51.100.77")).status).toBe(200)
      }
      // The stranger's address still waits, whatever the email.
      expect(expectThrottled(yield* login(newEmail(), password, stranger))).toBeGreaterThanOrEqual(90)
    }))

  it.effect("a setup with a bad token runs no password hash, is audited, and is limited per address", () =>
    Effect.gen(function*() {
      const email = newEmail()
      yield* createOperator(email, password)
      expect((yield* login(email, password, "198.51.100.3")).status).toBe(200)
      const before = yield* hashesRun
      const address = "203.0.113.99"
      for (let i = 0; i < 3; i++) {
        expectError(yield* setup(crypto.randomBytes(32).toString("base64url"), address), 400, "BadRequest")
      }
      // Further attempts from that address wait; another address is not held back.
      expectThrottled(yield* setup(crypto.randomBytes(32).toString("base64url"), address))
      expectError(yield* setup(crypto.randomBytes(32).toString("base64url"), "203.0.113.100"), 400, "BadRequest")
      expect((yield* hashesRun) - before).toBe(0)

      // A valid link still works from an address that is not waiting, and hashes the password once.
      const created = yield* Effect.flatMap(
        Operators,
        (operators) => operators.create(newEmail(), undefined, { operator: null, address: null, via: "cli" })
      )
      const done = yield* setup(created.setupToken!, "203.0.113.101")
      expect(done.status, done.text).toBe(204)
      expect((yield* hashesRun) - before).toBe(1)

      // Each refused setup is in the audit log, with its reason and address.
      const failed = (yield* auditAs(email)).filter((event) => event.action === "operator.setup.failed")
      expect(failed.filter((event) => event.address === address).map((event) => event.detail.reason)).toEqual([
        "throttled",
        "invalid token",
        "invalid token",
        "invalid token"
      ])
      expect(failed.filter((event) => event.address === "203.0.113.100")).toHaveLength(1)
    }))
})

layer(ServerLive, { timeout: "180 seconds" })("password hashing under load", (it) => {
  it.effect("only a few password checks run at once; a login beyond the queue is answered 429 at once", () =>
    Effect.gen(function*() {
      const email = newEmail()
      yield* createOperator(email, password)
      expect((yield* login(email, password, "198.51.100.4")).status).toBe(200)
      const replies = yield* Effect.all(
        Array.from({ length: 40 }, (_, i) => login(newEmail(), "not the password at all", `192.0.2.${i + 1}`)),
        { concurrency: "unbounded" }
      )
      const statuses = replies.map((reply) => reply.status)
      expect(statuses.every((status) => status === 401 || status === 429), statuses.join(",")).toBe(true)
      const busy = replies.filter((reply) => reply.status === 429)
      expect(busy.length, statuses.join(",")).toBeGreaterThan(0)
      for (const reply of busy) {
        expect(expectThrottled(reply)).toBe(1)
        expect(json(reply).message).toMatch(/busy/)
      }
      expect(statuses.filter((status) => status === 401).length).toBeGreaterThan(0)
    }))
})
