/**
 * The Withings simulator against Withings' Public API reference (developer.withings.com/api-reference): the
 * consent page and the `requesttoken` rules (a code used once and dead after 30 s, `redirect_uri` matched, a
 * rotated refresh token refused), every answer HTTP 200 with a status, scopes enforced, small pages with
 * `more`/`offset`, the app-wide 120 requests a minute (601), the signed revoke, notification subscriptions after
 * the callback's HEAD check, and the records: every kind for every account, the same for the same seed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { serveSimulator } from "../src/index.js"
import { makeWithingsSimulator } from "../src/withings/Simulator.js"
import {
  CLIENT,
  formAction,
  get,
  HttpLive,
  ManualClock,
  options,
  postForm,
  receiver,
  REDIRECT,
  STATE
} from "./simulatorHarness.js"

const SCOPES = "user.info,user.metrics,user.activity"

const servedWithings = (clock: ManualClock, seed = "withings-seed") =>
  Effect.gen(function*() {
    const sim = makeWithingsSimulator({ ...options(clock), seed })
    const server = yield* serveSimulator(sim)
    return { sim, base: server.baseUrl }
  })

/** The consent approved as `user`; the code from the redirect. */
const authorize = (base: string, user = "ada", scope = SCOPES) =>
  Effect.gen(function*() {
    const query = new URLSearchParams({
      response_type: "code",
      client_id: CLIENT.clientId,
      scope,
      redirect_uri: REDIRECT,
      state: STATE
    })
    const page = yield* get(`${base}/oauth2_user/authorize2?${query}`)
    expect(page.status).toBe(200)
    const back = yield* postForm(formAction(page.text), { decision: "approve", user })
    expect(back.status).toBe(302)
    expect(back.location().searchParams.get("state")).toBe(STATE)
    return back.location().searchParams.get("code")!
  })

const requestToken = (base: string, form: Record<string, string>) =>
  postForm(`${base}/v2/oauth2`, {
    action: "requesttoken",
    client_id: CLIENT.clientId,
    client_secret: CLIENT.clientSecret,
    ...form
  })

const connect = (base: string, user = "ada", scope = SCOPES) =>
  Effect.gen(function*() {
    const code = yield* authorize(base, user, scope)
    const reply = yield* requestToken(base, { grant_type: "authorization_code", code, redirect_uri: REDIRECT })
    expect(reply.status).toBe(200)
    expect(reply.json().status).toBe(0)
    return reply.json().body as { userid: number; access_token: string; refresh_token: string; scope: string }
  })

const call = (base: string, path: string, token: string, form: Record<string, string>) =>
  Effect.map(postForm(`${base}${path}`, form, { authorization: `Bearer ${token}` }), (r) => {
    expect(r.status).toBe(200)
    return r.json() as { status: number; body: any; error?: string }
  })

describe("Withings simulator", () => {
  it.scopedLive("exchanges a code once, within 30 s, for the redirect_uri it was issued to", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* servedWithings(clock)
      const code = yield* authorize(base)
      const wrongUri = yield* requestToken(base, {
        grant_type: "authorization_code",
        code,
        redirect_uri: "https://x.example/cb"
      })
      expect(wrongUri.status).toBe(200)
      expect(wrongUri.json()).toMatchObject({ status: 503 })
      // the code was spent by the failed try, as a single-use code is
      const again = yield* requestToken(base, { grant_type: "authorization_code", code, redirect_uri: REDIRECT })
      expect(again.json()).toMatchObject({ status: 503, error: "Invalid Params: invalid code" })

      const late = yield* authorize(base)
      clock.advance(31_000)
      const expired = yield* requestToken(base, {
        grant_type: "authorization_code",
        code: late,
        redirect_uri: REDIRECT
      })
      expect(expired.json()).toMatchObject({ status: 503, error: "Invalid Params: invalid code" })

      const fresh = yield* connect(base)
      expect(fresh).toMatchObject({ expires_in: 10800, scope: SCOPES, token_type: "Bearer" })
      expect(typeof fresh.userid).toBe("number")
      const badSecret = yield* postForm(`${base}/v2/oauth2`, {
        action: "requesttoken",
        client_id: CLIENT.clientId,
        client_secret: "nope",
        grant_type: "refresh_token",
        refresh_token: fresh.refresh_token
      })
      expect(badSecret.json().status).toBe(100)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("rotates the refresh token: the old one is refused once used", () =>
    Effect.gen(function*() {
      const { base } = yield* servedWithings(new ManualClock())
      const first = yield* connect(base)
      const second = yield* requestToken(base, { grant_type: "refresh_token", refresh_token: first.refresh_token })
      expect(second.json().status).toBe(0)
      expect(second.json().body.refresh_token).not.toBe(first.refresh_token)
      expect(second.json().body.userid).toBe(first.userid)
      const replay = yield* requestToken(base, { grant_type: "refresh_token", refresh_token: first.refresh_token })
      expect(replay.status).toBe(200)
      expect(replay.json()).toMatchObject({ status: 503, error: "Invalid Params: invalid refresh_token" })
      const third = yield* requestToken(base, {
        grant_type: "refresh_token",
        refresh_token: second.json().body.refresh_token
      })
      expect(third.json().status).toBe(0)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("answers a bad token 401 and a service outside the grant 214, both as HTTP 200", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* servedWithings(clock)
      const tokens = yield* connect(base, "ada", "user.metrics")
      const denied = yield* call(base, "/v2/measure", tokens.access_token, {
        action: "getactivity",
        startdateymd: "2025-06-01",
        enddateymd: "2025-06-10"
      })
      expect(denied.status).toBe(214)
      const measures = yield* call(base, "/measure", tokens.access_token, { action: "getmeas", category: "1" })
      expect(measures.status).toBe(0)
      clock.advance(10_800_000)
      const expired = yield* call(base, "/measure", tokens.access_token, { action: "getmeas" })
      expect(expired.status).toBe(401)
      const bad = yield* call(base, "/measure", "not-a-token", { action: "getmeas" })
      expect(bad.status).toBe(401)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("pages every list with more and offset, and serves every kind for every account", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* servedWithings(new ManualClock())
      for (const user of ["ada", "grace"]) {
        const tokens = yield* connect(base, user)
        const userId = String(tokens.userid)
        const range = { from: "2025-05-01", to: "2025-05-31" }
        for (
          const [path, action, key, kind] of [
            ["/v2/measure", "getactivity", "activities", "activity"],
            ["/v2/measure", "getworkouts", "series", "workouts"],
            ["/v2/sleep", "getsummary", "series", "sleep"]
          ] as const
        ) {
          const all: Array<unknown> = []
          let offset: number | undefined
          let pages = 0
          do {
            const page = yield* call(base, path, tokens.access_token, {
              action,
              startdateymd: range.from,
              enddateymd: range.to,
              ...(offset === undefined ? {} : { offset: String(offset) })
            })
            expect(page.status).toBe(0)
            all.push(...page.body[key])
            offset = page.body.more === true ? page.body.offset : undefined
            pages++
          } while (offset !== undefined)
          expect(pages).toBeGreaterThan(1)
          expect(all).toEqual(sim.control.records(userId, kind, range))
          expect(all.length).toBeGreaterThan(kind === "workouts" ? 2 : 25)
        }
        const start = String(Date.parse("2025-05-01T00:00:00Z") / 1000)
        const end = String(Date.parse("2025-06-01T00:00:00Z") / 1000)
        const first = yield* call(base, "/measure", tokens.access_token, {
          action: "getmeas",
          category: "1",
          startdate: start,
          enddate: end
        })
        expect(first.body.more).toBe(1)
        expect(typeof first.body.timezone).toBe("string")
        const weights = first.body.measuregrps.flatMap((g: any) => g.measures.filter((m: any) => m.type === 1))
        for (const w of weights) {
          expect(w.unit).toBe(-3)
          expect(w.value / 1000).toBeGreaterThan(40)
          expect(w.value / 1000).toBeLessThan(130)
        }
      }
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("counts the app's requests across its users: the 121st in a minute is 601", () =>
    Effect.gen(function*() {
      const clock = new ManualClock("2025-06-15T12:00:00.000Z")
      const { base } = yield* servedWithings(clock)
      const ada = yield* connect(base, "ada")
      const grace = yield* connect(base, "grace")
      // the two token exchanges counted too
      const statuses: Array<number> = []
      for (let i = 0; i < 118; i++) {
        statuses.push(
          (yield* call(base, "/notify", i % 2 === 0 ? ada.access_token : grace.access_token, { action: "list" })).status
        )
      }
      expect(statuses.every((s) => s === 0)).toBe(true)
      const limited = yield* call(base, "/notify", grace.access_token, { action: "list" })
      expect(limited).toMatchObject({ status: 601 })
      clock.advance(60_000)
      expect((yield* call(base, "/notify", ada.access_token, { action: "list" })).status).toBe(0)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("subscribes once the callback answers HEAD, and posts form notifications to it", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* servedWithings(new ManualClock())
      const tokens = yield* connect(base)
      const down = yield* receiver(() => 404)
      const refused = yield* call(base, "/notify", tokens.access_token, {
        action: "subscribe",
        callbackurl: down.url,
        appli: "1"
      })
      expect(refused.status).not.toBe(0)
      expect(down.received.map((r) => r.method)).toEqual(["HEAD"])

      const hook = yield* receiver(() => 200)
      const subscribed = yield* call(base, "/notify", tokens.access_token, {
        action: "subscribe",
        callbackurl: hook.url,
        appli: "44"
      })
      expect(subscribed.status).toBe(0)
      const listed = yield* call(base, "/notify", tokens.access_token, { action: "list" })
      expect(listed.body.profiles).toEqual([{ appli: 44, callbackurl: hook.url, comment: null }])
      const deliveries = yield* sim.control.sendNotification(String(tokens.userid), 44, {
        startdate: 1749945600,
        enddate: 1749974400
      })
      expect(deliveries.map((d) => d.status)).toEqual([200])
      const post = hook.received.find((r) => r.method === "POST")!
      expect(post.headers["content-type"]).toContain("application/x-www-form-urlencoded")
      expect(Object.fromEntries(new URLSearchParams(post.body))).toEqual({
        userid: String(tokens.userid),
        appli: "44",
        startdate: "1749945600",
        enddate: "1749974400"
      })
      const revoked = yield* call(base, "/notify", tokens.access_token, {
        action: "revoke",
        callbackurl: hook.url,
        appli: "44"
      })
      expect(revoked.status).toBe(0)
      expect(sim.control.subscriptions(String(tokens.userid))).toEqual([])
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("revokes with a signed nonce: tokens and subscriptions go", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* servedWithings(clock)
      const tokens = yield* connect(base)
      const sign = (values: ReadonlyArray<string>) =>
        crypto.createHmac("sha256", CLIENT.clientSecret).update(values.join(",")).digest("hex")
      const timestamp = String(Math.floor(clock.ms / 1000))
      const nonceReply = yield* postForm(`${base}/v2/signature`, {
        action: "getnonce",
        client_id: CLIENT.clientId,
        timestamp,
        signature: sign(["getnonce", CLIENT.clientId, timestamp])
      })
      expect(nonceReply.json().status).toBe(0)
      const nonce = nonceReply.json().body.nonce as string
      const unsigned = yield* postForm(`${base}/v2/oauth2`, {
        action: "revoke",
        client_id: CLIENT.clientId,
        nonce,
        signature: "0".repeat(64),
        userid: String(tokens.userid)
      })
      expect(unsigned.json().status).toBe(503)
      const revoke = yield* postForm(`${base}/v2/oauth2`, {
        action: "revoke",
        client_id: CLIENT.clientId,
        nonce,
        signature: sign(["revoke", CLIENT.clientId, nonce]),
        userid: String(tokens.userid)
      })
      expect(revoke.json().status).toBe(0)
      expect((yield* call(base, "/notify", tokens.access_token, { action: "list" })).status).toBe(401)
      const refresh = yield* requestToken(base, { grant_type: "refresh_token", refresh_token: tokens.refresh_token })
      expect(refresh.json().status).toBe(503)
    }).pipe(Effect.provide(HttpLive)))

  it("serves the same records for the same seed, in the user's time zone", () => {
    const clock = new ManualClock()
    const a = makeWithingsSimulator({ ...options(clock), seed: "s1" })
    const b = makeWithingsSimulator({ ...options(clock), seed: "s1" })
    const c = makeWithingsSimulator({ ...options(clock), seed: "s2" })
    const range = { from: "2025-05-01", to: "2025-05-20" }
    for (const kind of ["measures", "activity", "workouts", "sleep"] as const) {
      expect(a.control.records("1234567", kind, range)).toEqual(b.control.records("1234567", kind, range))
    }
    expect(a.control.records("1234567", "sleep", range)).not.toEqual(c.control.records("1234567", "sleep", range))
    const night = a.control.records("1234567", "sleep", range)[0]!
    expect(typeof night["timezone"]).toBe("string")
    expect(Intl.DateTimeFormat(undefined, { timeZone: night["timezone"] as string })).toBeDefined()
  })
})
