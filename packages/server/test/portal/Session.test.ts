/**
 * Portal sessions over HTTP: the login's cookie and CSRF token, the session check of the portal's
 * routes, CSRF and Origin on changes, logout, idle and absolute expiry (on the TestClock), and the
 * end of a disabled operator's sessions.
 */
import { expect, layer } from "@effect/vitest"
import {
  createOperator,
  makeTestServer,
  portalClient,
  portalLogin,
  portalRequest,
  TestServer
} from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { Operators } from "../../src/portal/operators/Operators.js"
import { Sessions } from "../../src/portal/operators/Sessions.js"
import { send } from "../fixtures/Http.js"

const password = "correct horse battery staple"

let unique = 0
const newOperator = () =>
  Effect.gen(function*() {
    const email = `op${++unique}-${Date.now()}@example.com`
    yield* createOperator(email, password)
    const { baseUrl } = yield* TestServer
    const login = yield* portalLogin(baseUrl, email, password)
    return { email, baseUrl, login, client: portalClient(baseUrl, login) }
  })

layer(makeTestServer(), { timeout: "120 seconds" })("portal sessions", (it) => {
  it.effect("a login sets an HttpOnly, Secure, SameSite=Strict cookie on /portal and answers the CSRF token", () =>
    Effect.gen(function*() {
      const { email, login } = yield* newOperator()
      const attributes = login.setCookie.split(";").map((part) => part.trim().toLowerCase())
      expect(login.cookie).toMatch(/^pb_portal_session=[A-Za-z0-9_-]{43}$/)
      expect(attributes).toContain("httponly")
      expect(attributes).toContain("secure")
      expect(attributes).toContain("samesite=strict")
      expect(attributes).toContain("path=/portal")
      expect(attributes).toContain(`max-age=${7 * 24 * 3600}`)
      expect(login.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(login.reply.body.operator.email).toBe(email)
      expect(login.reply.body.operator.lastLoginAt).not.toBeNull()
      expect(login.reply.body.sandbox).toBe(false)
    }))

  it.effect("the session answers the same CSRF token; without a cookie, or with an unknown one, 401", () =>
    Effect.gen(function*() {
      const { baseUrl, client, email, login } = yield* newOperator()
      const session = yield* client.get("/portal/api/session")
      expect(session.status).toBe(200)
      expect(session.body.csrfToken).toBe(login.csrfToken)
      expect(session.body.operator.email).toBe(email)
      const none = yield* portalRequest(baseUrl, "GET", "/portal/api/session")
      expect(none.status).toBe(401)
      expect(none.body._tag).toBe("Unauthorized")
      const unknown = yield* portalRequest(baseUrl, "GET", "/portal/api/operators", {
        cookie: "pb_portal_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
      })
      expect(unknown.status).toBe(401)
    }))

  it.effect("the pages' session check answers null without a cookie, the session with one, 401 with an unknown one", () =>
    Effect.gen(function*() {
      const { baseUrl, client, email, login } = yield* newOperator()
      const current = yield* client.get("/portal/api/session/current")
      expect(current.status, current.text).toBe(200)
      expect(current.body.session.csrfToken).toBe(login.csrfToken)
      expect(current.body.session.operator.email).toBe(email)
      const none = yield* portalRequest(baseUrl, "GET", "/portal/api/session/current")
      expect(none.status, none.text).toBe(200)
      expect(none.body).toEqual({ session: null })
      const unknown = yield* portalRequest(baseUrl, "GET", "/portal/api/session/current", {
        cookie: "pb_portal_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
      })
      expect(unknown.status).toBe(401)
      expect(unknown.body._tag).toBe("Unauthorized")
      expect((yield* client.post("/portal/api/logout")).status).toBe(204)
      expect((yield* client.get("/portal/api/session/current")).status).toBe(401)
    }))

  it.effect("a change without the CSRF token is 403, with a wrong one 403, from another origin 403, with it 2xx", () =>
    Effect.gen(function*() {
      const { client } = yield* newOperator()
      const without = yield* client.post("/portal/api/logout", { csrf: null })
      expect(without.status).toBe(403)
      expect(without.body._tag).toBe("Forbidden")
      const wrong = yield* client.post("/portal/api/logout", { csrf: "x".repeat(43) })
      expect(wrong.status).toBe(403)
      const otherOrigin = yield* client.post("/portal/api/logout", { headers: { origin: "https://evil.example" } })
      expect(otherOrigin.status).toBe(403)
      expect((yield* client.get("/portal/api/session")).status).toBe(200)
      const ok = yield* client.post("/portal/api/logout")
      expect(ok.status).toBe(204)
    }))

  it.effect("every answer under /portal/api is Cache-Control: no-store, errors included", () =>
    Effect.gen(function*() {
      const { baseUrl, client, email } = yield* newOperator()
      const replies = {
        login: (yield* portalLogin(baseUrl, email, password)).reply,
        session: yield* client.get("/portal/api/session"),
        audit: yield* client.get("/portal/api/audit?limit=1"),
        apps: yield* client.get("/portal/api/apps"),
        wrongPassword: yield* portalRequest(baseUrl, "POST", "/portal/api/login", {
          json: { email, password: "not the password" }
        }),
        noCookie: yield* portalRequest(baseUrl, "GET", "/portal/api/session"),
        noCsrf: yield* client.post("/portal/api/logout", { csrf: null }),
        badCursor: yield* client.get("/portal/api/audit?cursor=nope"),
        badBody: yield* portalRequest(baseUrl, "POST", "/portal/api/setup", { json: { token: 1 } }),
        // Refused in front of the API, before any handler.
        notJson: yield* send("POST", "/portal/api/login", { body: "email=a", contentType: "text/plain" }),
        tooLarge: yield* send("POST", "/portal/api/login", { body: "x".repeat(1024 * 1024 + 1) }),
        unknownRoute: yield* client.get("/portal/api/no-such-route"),
        unknownPost: yield* client.post("/portal/api/no-such-route", { json: {} })
      }
      for (const [name, reply] of Object.entries(replies)) {
        expect(reply.status, name).toBeLessThan(500)
        expect(reply.headers["cache-control"], `${name} (${reply.status})`).toBe("no-store")
      }
      expect(replies.session.status).toBe(200)
      expect(replies.notJson.text).toContain("Content-Type must be application/json")
      expect(replies.tooLarge.status).toBe(413)
      expect(replies.unknownPost.status).toBe(404)
    }))

  it.effect("logout ends the session and clears the cookie", () =>
    Effect.gen(function*() {
      const { client } = yield* newOperator()
      const out = yield* client.post("/portal/api/logout")
      expect(out.status).toBe(204)
      expect(out.headers["set-cookie"]).toMatch(/^pb_portal_session=;/)
      expect(out.headers["set-cookie"]).toMatch(/Max-Age=0/)
      expect((yield* client.get("/portal/api/session")).status).toBe(401)
    }))

  it.effect("a disabled operator's session is refused at once, and it cannot log in again", () =>
    Effect.gen(function*() {
      const { baseUrl, client, email } = yield* newOperator()
      const operators = yield* Operators
      const disabled = yield* operators.disable({ email }, { operator: null, address: null, via: "cli" })
      expect(disabled.sessionsEnded).toBe(1)
      expect((yield* client.get("/portal/api/session")).status).toBe(401)
      const again = yield* portalRequest(baseUrl, "POST", "/portal/api/login", { json: { email, password } })
      expect(again.status).toBe(401)
      // the CLI's changes are audited without an operator, as made by the CLI
      const watcher = yield* newOperator()
      const audit = yield* watcher.client.get("/portal/api/audit?limit=10")
      const disabledEvent = audit.body.data.find((event: { action: string }) => event.action === "operator.disable")
      expect(disabledEvent).toMatchObject({
        operatorId: null,
        operatorEmail: null,
        targetType: "operator",
        detail: { email, sessionsEnded: 1, via: "cli" }
      })
    }))

  // The server's own TestClock would also run the cluster's timers; the rule is checked on a clock of its own.
  it.effect("a session ends after 12 idle hours, and after 7 days however busy", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const sessions = yield* Sessions
      const email = `clock${++unique}-${Date.now()}@example.com`
      yield* createOperator(email, password)
      const start = () =>
        Effect.map(sessions.login(email, Redacted.make(password), "127.0.0.1"), (opened) => {
          if (opened._tag !== "Session") throw new Error("no second factor was set up: a session opens")
          return opened
        })
      const live = (token: string) => Effect.isSuccess(sessions.authenticate(token))

      const idle = yield* start()
      yield* TestClock.adjust("11 hours")
      expect(yield* live(idle.token)).toBe(true)
      yield* TestClock.adjust("11 hours")
      expect(yield* live(idle.token)).toBe(true)
      yield* TestClock.adjust("12 hours")
      expect(yield* live(idle.token)).toBe(false)

      const busy = yield* start()
      for (let hour = 0; hour < 7 * 24 - 10; hour += 10) {
        yield* TestClock.adjust("10 hours")
        expect(yield* live(busy.token)).toBe(true)
      }
      yield* TestClock.adjust("10 hours")
      const expired = yield* Effect.flip(sessions.authenticate(busy.token))
      expect(expired.message).toMatch(/expired/)
    }).pipe(Effect.provide(TestContext.TestContext)))
})
