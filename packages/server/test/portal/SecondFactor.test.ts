/**
 * Operators' second factor over HTTP: setting TOTP up (a secret, its otpauth URI and QR code, in effect only once
 * a code confirms it, ten recovery codes answered once and stored hashed, the secret sealed), the login's second
 * step (a challenge, not a session, for the password; a code or a recovery code for the session; no code accepted
 * twice; wrong codes throttled as wrong passwords are), turning it off, an admin's reset, and the operator-wide
 * requirement (an operator without it can do nothing but set it up).
 *
 * The wire matters: the cookie is set only by the second step, and the codes are computed as an authenticator app
 * computes them, from the secret the page shows.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { makeTestServer, portalClient, portalRequest, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as OTPAuth from "otpauth"
import { secondFactorFirst } from "../../src/portal/operators/PortalAuthLive.js"
import type { PortalClient } from "./fixtures.js"
import { auditOfOperator, loggedInAs, operatorPassword } from "./fixtures.js"

/** The code an authenticator app shows for `secret` at `ms`. */
const codeAt = (secret: string, ms: number) =>
  new OTPAuth.TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate({
    timestamp: ms
  })

/** Sets TOTP up for the client's operator; its secret and recovery codes. */
const enrol = (client: PortalClient) =>
  Effect.gen(function*() {
    const begun = yield* client.post("/portal/api/account/second-factor")
    expect(begun.status, begun.text).toBe(200)
    const secret = begun.body.secret as string
    const code = codeAt(secret, Date.now())
    const confirmed = yield* client.post("/portal/api/account/second-factor/confirm", { json: { code } })
    expect(confirmed.status, confirmed.text).toBe(200)
    return { secret, code, recoveryCodes: confirmed.body.recoveryCodes as Array<string>, begun }
  })

const loginStep = (email: string, password = operatorPassword) =>
  Effect.flatMap(
    TestServer,
    ({ baseUrl }) => portalRequest(baseUrl, "POST", "/portal/api/login", { json: { email, password } })
  )

const codeStep = (challenge: string, code: string) =>
  Effect.flatMap(
    TestServer,
    ({ baseUrl }) => portalRequest(baseUrl, "POST", "/portal/api/login/second-factor", { json: { challenge, code } })
  )

layer(makeTestServer(), { timeout: "180 seconds", excludeTestServices: true })("portal second factor", (it) => {
  it.effect("TOTP is set up with a QR code and the secret, in effect once a code confirms it; stored sealed and hashed", () =>
    Effect.gen(function*() {
      const viewer = yield* loggedInAs("viewer")
      const begun = yield* viewer.client.post("/portal/api/account/second-factor")
      expect(begun.status, begun.text).toBe(200)
      const secret = begun.body.secret as string
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      expect(begun.body.otpauthUri).toContain("otpauth://totp/PulseBridge:")
      expect(begun.body.otpauthUri).toContain(`secret=${secret}`)
      expect(begun.body.otpauthUri).toMatch(/algorithm=SHA1&digits=6&period=30/)
      expect(begun.body.qrSvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/)
      // Not in effect yet: the password alone still opens a session.
      expect((yield* loginStep(viewer.email)).body.csrfToken).toBeDefined()

      const wrong = yield* viewer.client.post("/portal/api/account/second-factor/confirm", {
        json: { code: codeAt(secret, Date.now() - 5 * 60_000) }
      })
      expect(wrong.status).toBe(400)
      const confirmed = yield* viewer.client.post("/portal/api/account/second-factor/confirm", {
        json: { code: codeAt(secret, Date.now()) }
      })
      expect(confirmed.status, confirmed.text).toBe(200)
      const codes = confirmed.body.recoveryCodes as Array<string>
      expect(codes).toHaveLength(10)
      expect(new Set(codes).size).toBe(10)
      for (const code of codes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/)
      expect((yield* viewer.client.get("/portal/api/session")).body.operator.secondFactor).toBe(true)
      // A second enrolment is refused while one is on.
      expect((yield* viewer.client.post("/portal/api/account/second-factor")).status).toBe(409)

      // Neither the secret nor a recovery code is stored as it is.
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ row: string }>`
        select o::text as row from operators o where lower(email) = lower(${viewer.email})
        union all select c::text from operator_recovery_codes c
      `
      const stored = rows.map((r) => r.row).join("\n")
      expect(stored).not.toContain(secret)
      for (const code of codes) expect(stored).not.toContain(code)
      expect(yield* auditOfOperator(viewer.client, "operator.secondFactor.enable", viewer.email)).toHaveLength(1)
    }))

  it.effect("the login asks for a code after the password; a code is not accepted twice; a recovery code works once", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer
      const admin = yield* loggedInAs("admin")
      const { code, recoveryCodes, secret } = yield* enrol(admin.client)

      const first = yield* loginStep(admin.email)
      expect(first.status, first.text).toBe(200)
      expect(first.body._tag).toBe("SecondFactorChallenge")
      expect(first.body.csrfToken).toBeUndefined()
      expect(first.headers["set-cookie"]).toBeUndefined()
      const challenge = first.body.challenge as string

      // The code that confirmed the enrolment is not accepted again. (That code, not the code of the time now: the
      // enrolment's step may have ended meanwhile, and the next step's code is a fresh one.)
      const replay = yield* codeStep(challenge, code)
      expect(replay.status, replay.text).toBe(401)
      expect(replay.body.message).toMatch(/used already/)
      // The next step's code (an app a little ahead) opens the session, once.
      const next = codeAt(secret, Date.now() + 30_000)
      const opened = yield* codeStep(challenge, next)
      expect(opened.status, opened.text).toBe(200)
      expect(opened.headers["set-cookie"]).toMatch(/^pb_portal_session=/)
      const client = portalClient(baseUrl, {
        cookie: opened.headers["set-cookie"]!.split(";")[0]!,
        csrfToken: opened.body.csrfToken
      })
      expect((yield* client.get("/portal/api/session")).body.operator.email).toBe(admin.email)
      // The challenge is spent, and the code too, even for a new challenge.
      expect((yield* codeStep(challenge, next)).status).toBe(401)
      const again = (yield* loginStep(admin.email)).body.challenge as string
      expect((yield* codeStep(again, next)).status).toBe(401)

      // A recovery code, typed in capitals with a space, works once.
      const recovery = recoveryCodes[3]!.toUpperCase().replace(/-/g, " ")
      expect((yield* codeStep(again, recovery)).status).toBe(200)
      const third = (yield* loginStep(admin.email)).body.challenge as string
      expect((yield* codeStep(third, recoveryCodes[3]!)).status).toBe(401)
      expect((yield* codeStep(third, recoveryCodes[4]!)).status).toBe(200)

      const logins = yield* auditOfOperator(client, "login", admin.email)
      expect(logins.slice(0, 3).map((event) => event.detail.secondFactor)).toEqual([
        "recovery code",
        "recovery code",
        "totp"
      ])

      // Turning it off needs a code; then the password alone opens a session again.
      expect((yield* client.post("/portal/api/account/second-factor/disable", { json: { code: "123456" } })).status)
        .toBe(400)
      const off = yield* client.post("/portal/api/account/second-factor/disable", { json: { code: recoveryCodes[5]! } })
      expect(off.status, off.text).toBe(204)
      expect((yield* loginStep(admin.email)).body.csrfToken).toBeDefined()
    }))

  it.effect("an admin resets an operator's second factor; the operator logs in with its password alone", () =>
    Effect.gen(function*() {
      const admin = yield* loggedInAs("admin")
      const viewer = yield* loggedInAs("viewer")
      yield* enrol(viewer.client)
      expect((yield* loginStep(viewer.email)).body._tag).toBe("SecondFactorChallenge")
      const reset = yield* admin.client.post(`/portal/api/operators/${viewer.id}/reset-second-factor`)
      expect(reset.status, reset.text).toBe(200)
      expect(reset.body.secondFactor).toBe(false)
      expect((yield* loginStep(viewer.email)).body.csrfToken).toBeDefined()
      // A viewer may not reset anyone's.
      expect((yield* viewer.client.post(`/portal/api/operators/${admin.id}/reset-second-factor`)).status).toBe(403)
    }))

  it.effect("while required, an operator without a second factor can only set it up, then works; it cannot turn it off", () =>
    Effect.gen(function*() {
      const admin = yield* loggedInAs("admin")
      const viewer = yield* loggedInAs("viewer")
      expect((yield* viewer.client.put("/portal/api/settings", { json: { secondFactorRequired: true } })).status)
        .toBe(403)
      const on = yield* admin.client.put("/portal/api/settings", { json: { secondFactorRequired: true } })
      expect(on.status, on.text).toBe(200)
      expect(on.body.secondFactorRequired).toBe(true)

      const session = yield* viewer.client.get("/portal/api/session")
      expect(session.status).toBe(200)
      expect(session.body.secondFactorRequired).toBe(true)
      for (const path of ["/portal/api/apps", "/portal/api/audit", "/portal/api/operators", "/portal/api/settings"]) {
        const refused = yield* viewer.client.get(path)
        expect(refused.status, path).toBe(403)
        expect(refused.body.message).toBe(secondFactorFirst)
      }
      // The admin who turned it on has none either: it too is sent to set it up.
      expect((yield* admin.client.get("/portal/api/apps")).status).toBe(403)
      const { recoveryCodes } = yield* enrol(viewer.client)
      expect((yield* viewer.client.get("/portal/api/apps")).status).toBe(200)
      const off = yield* viewer.client.post("/portal/api/account/second-factor/disable", {
        json: { code: recoveryCodes[0]! }
      })
      expect(off.status).toBe(409)

      yield* enrol(admin.client)
      expect((yield* admin.client.put("/portal/api/settings", { json: { secondFactorRequired: false } })).status)
        .toBe(200)
      expect((yield* auditOfOperator(admin.client, "settings.update", admin.email)).map((e) => e.summary)).toEqual([
        "second factor required: off",
        "second factor required: on"
      ])
    }))

  it.effect("a pending login ends after five wrong codes, and after five minutes", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const admin = yield* loggedInAs("admin")
      const { secret } = yield* enrol(admin.client)
      const challenge = (yield* loginStep(admin.email)).body.challenge as string
      for (let i = 0; i < 5; i++) {
        // As if each wait had passed: the count of the challenge is the subject, not the throttle's.
        yield* sql`delete from login_failures`
        expect((yield* codeStep(challenge, `99999${i}`)).status).toBe(401)
      }
      yield* sql`delete from login_failures`
      const ended = yield* codeStep(challenge, codeAt(secret, Date.now() + 30_000))
      expect(ended.status).toBe(401)
      expect(ended.body.message).toMatch(/expired/)

      const late = (yield* loginStep(admin.email)).body.challenge as string
      yield* sql`update operator_login_challenges set expires_at = now() - interval '1 second'`
      const expired = yield* codeStep(late, codeAt(secret, Date.now() + 30_000))
      expect(expired.status).toBe(401)
      expect(expired.body.message).toMatch(/expired/)
      const fresh = (yield* loginStep(admin.email)).body.challenge as string
      expect((yield* codeStep(fresh, codeAt(secret, Date.now() + 30_000))).status).toBe(200)
    }))

  it.effect("wrong codes are throttled as wrong passwords are, even with the right code after them", () =>
    Effect.gen(function*() {
      const admin = yield* loggedInAs("admin")
      const { secret } = yield* enrol(admin.client)
      const challenge = (yield* loginStep(admin.email)).body.challenge as string
      const statuses: Array<number> = []
      for (const code of ["111111", "222222", "333333"]) statuses.push((yield* codeStep(challenge, code)).status)
      const held = yield* codeStep(challenge, codeAt(secret, Date.now() + 30_000))
      statuses.push(held.status)
      expect(statuses).toEqual([401, 401, 429, 429])
      expect(held.headers["retry-after"]).toBe(String(held.body.retryAfterSeconds))
    }))
})
