/**
 * Portal logins: one generic 401 for an unknown email and a wrong password, the growing delay per
 * address and the short one per email (429 with `retryAfterSeconds` and `Retry-After`, before the
 * password is looked at), every failure audited without the password (which appears in no log line and no table), and the
 * one-time setup link.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import {
  createOperator,
  makeTestServer,
  portalClient,
  portalLogin,
  portalRequest,
  TestServer
} from "@pulsebridge/testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as crypto from "node:crypto"
import { Operators } from "../../src/portal/operators/Operators.js"
import { delayAfter, Sessions } from "../../src/portal/operators/Sessions.js"

const password = "correct horse battery staple"
const logLines: Array<string> = []
const capture = Logger.make(({ annotations, cause, message }) => {
  logLines.push(JSON.stringify({ message, cause: String(cause), annotations: [...annotations] }))
})

const newEmail = () => `login-${crypto.randomBytes(4).toString("hex")}@example.com`

const attempt = (email: string, pass: string) =>
  Effect.flatMap(
    TestServer,
    ({ baseUrl }) => portalRequest(baseUrl, "POST", "/portal/api/login", { json: { email, password: pass } })
  )

/** Forgets the failures of earlier tests: every test logs in from the same address. */
const forgetFailures = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from login_failures`)

const ServerLive = makeTestServer({}, { logLevel: LogLevel.All }).pipe(Layer.provide(Logger.add(capture)))

layer(ServerLive, { timeout: "120 seconds" })("portal login", (it) => {
  it.effect("an unknown email and a wrong password get the same 401, both audited as login.failed", () =>
    Effect.gen(function*() {
      yield* forgetFailures
      const email = newEmail()
      yield* createOperator(email, password)
      const wrong = yield* attempt(email, "wrong password 123")
      const unknown = yield* attempt(newEmail(), "wrong password 123")
      expect(wrong.status).toBe(401)
      expect(unknown.status).toBe(401)
      expect(wrong.body).toEqual(unknown.body)
      expect(wrong.body).toEqual({ _tag: "Unauthorized", message: "Wrong email or password" })
      expect(wrong.headers["set-cookie"]).toBeUndefined()
      const { baseUrl } = yield* TestServer
      const login = yield* portalLogin(baseUrl, email, password)
      const audit = yield* portalClient(baseUrl, login).get("/portal/api/audit?limit=3")
      expect(audit.body.data.map((event: { action: string }) => event.action)).toEqual([
        "login",
        "login.failed",
        "login.failed"
      ])
      expect(audit.body.data[1]).toMatchObject({ operatorId: null, detail: { reason: "unknown email" } })
      expect(audit.body.data[2]).toMatchObject({ detail: { email, reason: "wrong password" } })
      expect(audit.body.data[2].address).toMatch(/127\.0\.0\.1/)
    }))

  it.effect("after 3 failures the next attempt is 429 with Retry-After, even with the right password", () =>
    Effect.gen(function*() {
      yield* forgetFailures
      const email = newEmail()
      yield* createOperator(email, password)
      for (let i = 0; i < 3; i++) expect((yield* attempt(email, `wrong password ${i}`)).status).toBe(401)
      const throttled = yield* attempt(email, password)
      expect(throttled.status).toBe(429)
      expect(throttled.body).toMatchObject({ _tag: "TooManyRequests", retryAfterSeconds: 1 })
      expect(throttled.headers["retry-after"]).toBe("1")
      expect(throttled.headers["set-cookie"]).toBeUndefined()
      // the address is held back too, whatever the email
      expect((yield* attempt(newEmail(), password)).status).toBe(429)
      yield* forgetFailures
    }))

  // On a clock of the test's own: the server's TestClock would also run the cluster's timers.
  it.effect("the address waits 1 s, 2 s, 4 s ... to 15 minutes, the email at most 5 s elsewhere; a success resets", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const sessions = yield* Sessions
      const email = newEmail()
      yield* createOperator(email, password)
      const login = (pass: string, address = "10.9.8.7") =>
        Effect.map(
          Effect.either(sessions.login(email, Redacted.make(pass), address)),
          (result) => ({ _tag: result._tag, left: result._tag === "Left" ? result.left : undefined })
        )
      for (let i = 0; i < 3; i++) expect((yield* login("wrong wrong wrong")).left?._tag).toBe("LoginRefused")
      const expected = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]
      for (const seconds of expected) {
        const refused = yield* login(password)
        expect(refused.left).toMatchObject({ _tag: "LoginThrottled", retryAfterSeconds: seconds })
        yield* TestClock.adjust(Duration.seconds(seconds))
        expect((yield* login("wrong wrong wrong")).left?._tag).toBe("LoginRefused")
      }
      // From another address the email waits 5 s at most, then the right password gets in.
      const elsewhere = yield* login(password, "10.1.1.1")
      expect(elsewhere.left).toMatchObject({ _tag: "LoginThrottled", retryAfterSeconds: 5 })
      yield* TestClock.adjust("5 seconds")
      expect((yield* login(password, "10.1.1.1"))._tag).toBe("Right")
      // The failing address still waits, whatever the email.
      expect((yield* login(password))._tag).toBe("Left")
      const other = yield* Effect.flip(sessions.login(newEmail(), Redacted.make(password), "10.9.8.7"))
      expect(other._tag).toBe("LoginThrottled")
      yield* TestClock.adjust("15 minutes")
      expect((yield* login(password))._tag).toBe("Right")
      expect((yield* login("wrong wrong wrong")).left?._tag).toBe("LoginRefused")
      expect((yield* login(password))._tag).toBe("Right")
      expect(delayAfter(2)).toBeUndefined()
    }).pipe(Effect.provide(TestContext.TestContext)))

  it.effect("the one-time setup link sets the password once; a used or unknown token is 400", () =>
    Effect.gen(function*() {
      yield* forgetFailures
      const operators = yield* Operators
      const email = newEmail()
      const created = yield* operators.create(email, undefined, { operator: null, address: null, via: "cli" })
      const token = created.setupToken!
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect((yield* attempt(email, password)).status).toBe(401)
      const { baseUrl } = yield* TestServer
      const setup = yield* portalRequest(baseUrl, "POST", "/portal/api/setup", { json: { token, password } })
      expect(setup.status, setup.text).toBe(204)
      expect((yield* attempt(email, password)).status).toBe(200)
      const again = yield* portalRequest(baseUrl, "POST", "/portal/api/setup", { json: { token, password } })
      expect(again.status).toBe(400)
      expect(again.body._tag).toBe("BadRequest")
      const short = yield* portalRequest(baseUrl, "POST", "/portal/api/setup", { json: { token, password: "short" } })
      expect(short.status).toBe(400)
      yield* forgetFailures
    }))

  it.effect("a setup link expires after 24 hours", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const operators = yield* Operators
      const created = yield* operators.create(newEmail(), undefined, { operator: null, address: null, via: "cli" })
      yield* TestClock.adjust("24 hours")
      const error = yield* Effect.flip(operators.completeSetup(created.setupToken!, Redacted.make(password), "::1"))
      expect(error._tag).toBe("SetupTokenInvalid")
    }).pipe(Effect.provide(TestContext.TestContext)))

  it.effect("a password sent to the login appears in no log line and no table", () =>
    Effect.gen(function*() {
      yield* forgetFailures
      const secret = `Pw-${crypto.randomBytes(12).toString("hex")}`
      const email = newEmail()
      yield* createOperator(email, secret)
      expect((yield* attempt(email, `${secret}-wrong`)).status).toBe(401)
      expect((yield* attempt(newEmail(), secret)).status).toBe(401)
      expect((yield* attempt(email, secret)).status).toBe(200)
      const { baseUrl } = yield* TestServer
      const setupToken = (yield* (yield* Operators).create(newEmail(), undefined, {
        operator: null,
        address: null,
        via: "cli"
      })).setupToken!
      expect(
        (yield* portalRequest(baseUrl, "POST", "/portal/api/setup", {
          json: { token: setupToken, password: secret }
        })).status
      ).toBe(204)
      expect(logLines.length).toBeGreaterThan(0)
      for (const line of logLines) {
        expect(line).not.toContain(secret)
        expect(line).not.toContain(setupToken)
      }
      const sql = yield* SqlClient.SqlClient
      const tables = yield* sql<{ name: string }>`
        select table_name as name from information_schema.tables where table_schema = 'public'
      `
      expect(tables.map((table) => table.name)).toContain("audit_events")
      for (const table of tables) {
        const rows = yield* sql.unsafe(`select * from "${table.name}"`)
        const text = JSON.stringify(rows)
        expect(text, table.name).not.toContain(secret)
        expect(text, table.name).not.toContain(setupToken)
      }
      yield* forgetFailures
    }))
})
