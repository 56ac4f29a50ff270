/**
 * An operator's own account over HTTP: the password change (the current password required, a wrong one audited
 * and throttled as a failed login is, the other sessions ended, this one kept), for a viewer as for an admin.
 *
 * The wire matters: the session cookie of each browser decides which sessions end, and the answers are the ones
 * the account page reads (400, 429 with `Retry-After`).
 */
import { expect, layer } from "@effect/vitest"
import { makeTestServer, portalClient, portalLogin, portalRequest, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { auditOfOperator, loggedInAs, operatorPassword } from "./fixtures.js"

const newPassword = "a brand new password here"

layer(makeTestServer(), { timeout: "180 seconds" })("portal account", (it) => {
  it.effect("a password change needs the current password and ends the operator's other sessions, not this one", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer
      const viewer = yield* loggedInAs("viewer")
      const elsewhere = portalClient(baseUrl, yield* portalLogin(baseUrl, viewer.email, operatorPassword))

      const wrong = yield* viewer.client.post("/portal/api/account/password", {
        json: { currentPassword: "not my password at all", newPassword }
      })
      expect(wrong.status, wrong.text).toBe(400)
      expect(wrong.body.message).toBe("The current password is wrong")
      expect((yield* elsewhere.get("/portal/api/session")).status).toBe(200)

      const short = yield* viewer.client.post("/portal/api/account/password", {
        json: { currentPassword: operatorPassword, newPassword: "short" }
      })
      expect(short.status).toBe(400)

      // A viewer changes its own password: its account is its own to change.
      const changed = yield* viewer.client.post("/portal/api/account/password", {
        json: { currentPassword: operatorPassword, newPassword }
      })
      expect(changed.status, changed.text).toBe(204)
      expect((yield* viewer.client.get("/portal/api/session")).status).toBe(200)
      expect((yield* elsewhere.get("/portal/api/session")).status).toBe(401)

      const old = yield* portalRequest(baseUrl, "POST", "/portal/api/login", {
        json: { email: viewer.email, password: operatorPassword }
      })
      expect(old.status).toBe(401)
      yield* portalLogin(baseUrl, viewer.email, newPassword)

      const events = yield* auditOfOperator(viewer.client, "operator.password.change", viewer.email)
      expect(events.map((event) => event.summary)).toEqual(["other sessions ended: 1"])
      expect(yield* auditOfOperator(viewer.client, "operator.password.change.failed", viewer.email)).toHaveLength(1)
      expect(JSON.stringify(events)).not.toContain(newPassword)
    }))

  it.effect("wrong current passwords are throttled as failed logins are", () =>
    Effect.gen(function*() {
      const admin = yield* loggedInAs("admin")
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) {
        const reply = yield* admin.client.post("/portal/api/account/password", {
          json: { currentPassword: `wrong guess ${i}`, newPassword }
        })
        statuses.push(reply.status)
        if (reply.status === 429) {
          expect(reply.headers["retry-after"]).toBe(String(reply.body.retryAfterSeconds))
        }
      }
      expect(statuses).toEqual([400, 400, 400, 429])
      // The right password waits its turn too, then works.
      const waiting = yield* admin.client.post("/portal/api/account/password", {
        json: { currentPassword: operatorPassword, newPassword }
      })
      expect(waiting.status).toBe(429)
    }))
})
