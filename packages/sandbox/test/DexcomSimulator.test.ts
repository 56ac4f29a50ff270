/**
 * The Dexcom simulator over real HTTP: login page and `offline_access`, token rotation, the v3
 * envelope, EGV cadence and range, the 30-day window, the data delay, sparse records, dataRange.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { egvsInSlices, recordsIn } from "../src/dexcom/Data.js"
import { Glucose } from "../src/dexcom/Glucose.js"
import {
  bearer,
  CLIENT,
  dexcomConnect,
  dexcomLoginUrl,
  formAction,
  get,
  HttpLive,
  ManualClock,
  postForm,
  REDIRECT,
  served,
  STATE
} from "./simulatorHarness.js"

const tokenUrl = (base: string) => `${base}/v2/oauth2/token`

const range = (base: string, kind: string, start: string, end: string) =>
  `${base}/v3/users/self/${kind}?startDate=${start}&endDate=${end}`

describe("Dexcom simulator", () => {
  it.scopedLive("the login page posts back to itself; approve redirects with code and state, deny with access_denied", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      const url = dexcomLoginUrl(base)
      const page = yield* get(url)
      expect(page.status).toBe(200)
      expect(formAction(page.text)).toBe(url)
      expect(page.text).toContain("SandboxUser7")
      const approved = (yield* postForm(url, { decision: "approve" })).location()
      expect(`${approved.origin}${approved.pathname}`).toBe(REDIRECT)
      expect(approved.searchParams.get("code")).toMatch(/.{20,}/)
      expect(approved.searchParams.get("state")).toBe(STATE)
      const denied = (yield* postForm(url, { decision: "deny" })).location()
      expect(denied.searchParams.get("error")).toBe("access_denied")
      expect(denied.searchParams.get("state")).toBe(STATE)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a scope other than offline_access is refused, and an unknown client gets an error page", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      const scoped = yield* get(dexcomLoginUrl(base, { scope: "egv" }))
      expect(scoped.status).toBe(302)
      expect(scoped.location().searchParams.get("error")).toBe("invalid_scope")
      const unknown = yield* get(dexcomLoginUrl(base, { client_id: "nobody" }))
      expect(unknown.status).toBe(400)
      expect(unknown.headers["content-type"]).toContain("text/html")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the token endpoint needs body client credentials and answers a two-hour token", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      const code = (yield* postForm(dexcomLoginUrl(base), { decision: "approve" })).location().searchParams.get("code")!
      const form = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: CLIENT.clientId }
      const wrong = yield* postForm(tokenUrl(base), { ...form, client_secret: "nope" })
      expect(wrong.status).toBe(401)
      expect(wrong.json()).toEqual({ error: "invalid_client", error_description: expect.any(String) })
      const ok = yield* postForm(tokenUrl(base), { ...form, client_secret: CLIENT.clientSecret })
      expect(ok.status).toBe(200)
      expect(ok.json()).toEqual({
        access_token: expect.any(String),
        expires_in: 7200,
        token_type: "Bearer",
        refresh_token: expect.any(String)
      })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("refresh rotates and a spent refresh token answers invalid_grant", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Dexcom", new ManualClock())
      const first = yield* dexcomConnect(base)
      const refresh = (refresh_token: string) =>
        postForm(tokenUrl(base), {
          grant_type: "refresh_token",
          refresh_token,
          client_id: CLIENT.clientId,
          client_secret: CLIENT.clientSecret
        })
      const second = yield* refresh(first.refresh!)
      expect(second.status).toBe(200)
      expect(second.json().refresh_token).not.toBe(first.refresh)
      const spent = yield* refresh(first.refresh!)
      expect(spent.status).toBe(400)
      expect(spent.json().error).toBe("invalid_grant")
      expect((yield* refresh(second.json().refresh_token)).status).toBe(200)
      expect(sim.control.calls({ path: "/v2/oauth2/token", presented: first.refresh! })).toHaveLength(2)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("EGVs come every five minutes in the v3 envelope, 40-400 mg/dL or the sentinels 39/401, some without a value", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      // with the default seed this user's week goes below 40 and above 400 mg/dL
      const tokens = yield* dexcomConnect(base, "dexcom-user-58")
      const reply = yield* get(range(base, "egvs", "2025-06-01T00:00:00", "2025-06-08T00:00:00"), bearer(tokens.access))
      expect(reply.status).toBe(200)
      const body = reply.json()
      expect(body.recordType).toBe("egv")
      expect(body.recordVersion).toBe("3.0")
      expect(body.userId).toMatch(/^[0-9a-f]{64}$/)
      const records = body.records
      expect(records).toHaveLength(7 * 288)
      const times = records.map((r: any) => Date.parse(`${r.systemTime.replace(/Z$/, "")}Z`))
      for (let i = 1; i < times.length; i++) expect(times[i - 1] - times[i]).toBe(300_000)
      const values = records.map((r: any) => r.value)
      expect(values.some((v: number | null) => v === null)).toBe(true)
      for (const r of records.filter((r: any) => r.value !== null)) {
        if (r.value === 39) expect(r.status).toBe("low")
        else if (r.value === 401) expect(r.status).toBe("high")
        else {
          expect(r.value).toBeGreaterThanOrEqual(40)
          expect(r.value).toBeLessThanOrEqual(400)
          expect(r.status).toBeNull()
        }
      }
      expect(values).toContain(39)
      expect(values).toContain(401)
      expect(records[0]).toMatchObject({
        recordId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        unit: "mg/dL",
        rateUnit: "mg/dL/min",
        transmitterGeneration: "g7",
        transmitterGenerationVariant: "g715day",
        displayDevice: "iOS",
        displayApp: "G7"
      })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("time stamps as Dexcom writes them: a receiver's without offset, an app's systemTime in Z and displayTime with its offset", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      const url = (tokens: { access: string }) =>
        get(range(base, "egvs", "2025-06-10T00:00:00", "2025-06-10T06:00:00"), bearer(tokens.access))
      // with the default seed: data-user reads a receiver at UTC-05:00, dexcom-user-40 the
      // Dexcom ONE app at UTC-10:00 written with seconds, bob the G7 app at UTC+08:00
      const receiver = (yield* url(yield* dexcomConnect(base, "data-user"))).json().records
      expect(receiver.length).toBeGreaterThan(0)
      for (const r of receiver) {
        expect(r).toMatchObject({ displayDevice: "receiver", displayApp: "receiver" })
        expect(r.systemTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
        expect(r.displayTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
        // the wall clock is five hours behind the system clock
        expect(Date.parse(`${r.systemTime}Z`) - Date.parse(`${r.displayTime}Z`)).toBe(5 * 3_600_000)
      }
      const one = (yield* url(yield* dexcomConnect(base, "dexcom-user-40"))).json().records
      expect(one.length).toBeGreaterThan(0)
      for (const r of one) {
        expect(r).toMatchObject({ displayDevice: "iOS", displayApp: "DexcomOne", transmitterGeneration: "g6" })
        expect(r.systemTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
        expect(r.displayTime).toMatch(/-10:00:00$/)
        expect(Date.parse(r.displayTime.replace(/:00$/, ""))).toBe(Date.parse(r.systemTime))
      }
      const g7 = (yield* url(yield* dexcomConnect(base, "bob"))).json().records
      expect(g7[0]).toMatchObject({ displayDevice: "android", displayApp: "G7", transmitterGeneration: "g7" })
      expect(g7[0].displayTime).toMatch(/\d{2}:\d{2}:\d{2}\+08:00$/)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the login and token endpoints answer on /v3/oauth2 and on /v2/oauth2, expires_in in seconds", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      for (const version of ["v3", "v2"]) {
        const login = dexcomLoginUrl(base).replace("/v2/oauth2/", `/${version}/oauth2/`)
        const code = (yield* postForm(login, { decision: "approve" })).location().searchParams.get("code")!
        const reply = yield* postForm(`${base}/${version}/oauth2/token`, {
          grant_type: "authorization_code",
          code,
          redirect_uri: REDIRECT,
          client_id: CLIENT.clientId,
          client_secret: CLIENT.clientSecret
        })
        expect(reply.status).toBe(200)
        expect(reply.json().expires_in).toBe(7200)
      }
      expect((yield* postForm(`${base}/v1/oauth2/token`, {})).status).toBe(404)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("events carry recordedSystemTime/recordedDisplayTime and string values; Dexcom ONE has none", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      const events = (user: string) =>
        Effect.flatMap(dexcomConnect(base, user), (tokens) =>
          Effect.map(
            get(range(base, "events", "2025-06-01T00:00:00", "2025-06-08T00:00:00"), bearer(tokens.access)),
            (reply) => reply.json().records as Array<any>
          ))
      const records = yield* events("bob")
      expect(records.length).toBeGreaterThan(0)
      for (const e of records) {
        expect(typeof e.value).toBe("string")
        expect(Number.isFinite(Number(e.value))).toBe(true)
        expect(e.recordedSystemTime).toMatch(/Z$/)
        expect(Date.parse(e.recordedSystemTime)).toBeGreaterThanOrEqual(Date.parse(e.systemTime))
        expect(e.recordedDisplayTime).toMatch(/\+08:00$/)
      }
      // dexcom-user-40 reads the Dexcom ONE app: no events, as Dexcom documents
      expect(yield* events("dexcom-user-40")).toEqual([])
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("EGVs are deterministic per user and differ between users", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      const alice = yield* dexcomConnect(base, "alice")
      const bob = yield* dexcomConnect(base, "bob")
      const url = range(base, "egvs", "2025-06-10T00:00:00", "2025-06-10T12:00:00")
      const one = yield* get(url, bearer(alice.access))
      expect((yield* get(url, bearer(alice.access))).text).toBe(one.text)
      expect((yield* get(url, bearer(bob.access))).text).not.toBe(one.text)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("a window over 30 days, a UTC offset or a missing date answers 400", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      const tokens = yield* dexcomConnect(base)
      const auth = bearer(tokens.access)
      const tooLong = yield* get(range(base, "egvs", "2025-05-01T00:00:00", "2025-06-01T00:00:00"), auth)
      expect(tooLong.status).toBe(400)
      expect(tooLong.json().error).toBeDefined()
      const thirty = yield* get(range(base, "egvs", "2025-05-02T00:00:00", "2025-06-01T00:00:00"), auth)
      expect(thirty.status).toBe(200)
      expect((yield* get(range(base, "events", "2025-05-01T00:00:00", "2025-06-01T00:00:00"), auth)).status).toBe(400)
      expect((yield* get(range(base, "egvs", "2025-06-01T00:00:00Z", "2025-06-02T00:00:00Z"), auth)).status).toBe(400)
      expect((yield* get(`${base}/v3/users/self/egvs?startDate=2025-06-01T00:00:00`, auth)).status).toBe(400)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the newest data is an hour old", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* served("Dexcom", clock)
      const tokens = yield* dexcomConnect(base)
      const records =
        (yield* get(range(base, "egvs", "2025-06-15T00:00:00", "2025-06-16T00:00:00"), bearer(tokens.access)))
          .json().records
      const newest = Date.parse(records[0].systemTime)
      expect(newest).toBeLessThanOrEqual(clock.ms - 3_600_000)
      expect(newest).toBeGreaterThan(clock.ms - 3_600_000 - 300_000)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("events and calibrations are sparse, devices and dataRange describe the data", () =>
    Effect.gen(function*() {
      const { base } = yield* served("Dexcom", new ManualClock())
      const tokens = yield* dexcomConnect(base)
      const auth = bearer(tokens.access)
      const events = (yield* get(range(base, "events", "2025-06-01T00:00:00", "2025-06-08T00:00:00"), auth)).json()
      expect(events.recordType).toBe("event")
      expect(events.records.length).toBeLessThan(100)
      // three meals a local day; the UTC window cuts local days at their edges
      const carbs = events.records.filter((e: any) => e.eventType === "carbs")
      expect(carbs.length).toBeGreaterThanOrEqual(20)
      expect(carbs.length).toBeLessThanOrEqual(22)
      expect(events.records[0]).toMatchObject({
        eventStatus: "created",
        unit: expect.any(String),
        value: expect.any(String)
      })
      const calibrations = (yield* get(range(base, "calibrations", "2025-05-16T00:00:00", "2025-06-15T00:00:00"), auth))
        .json()
      expect(calibrations.recordType).toBe("calibration")
      expect(calibrations.records.length).toBeLessThan(30)
      const devices = (yield* get(`${base}/v3/users/self/devices`, auth)).json()
      expect(devices.recordType).toBe("device")
      expect(devices.records[0].alertSchedules[0].alertScheduleSettings.isDefaultSchedule).toBe(true)
      const dataRange = (yield* get(`${base}/v3/users/self/dataRange`, auth)).json()
      expect(dataRange.recordType).toBe("dataRange")
      expect(dataRange.egvs.end.systemTime).toMatch(/^2025-06-15T1[01]:\d{2}:\d{2}$/)
      expect(Date.parse(`${dataRange.egvs.start.systemTime}Z`)).toBeLessThan(Date.parse("2025-01-01T00:00:00Z"))
      const recent = (yield* get(`${base}/v3/users/self/dataRange?lastSyncTime=2025-06-15T08:00:00`, auth)).json()
      expect(Date.parse(`${recent.egvs.start.systemTime}Z`)).toBeGreaterThan(Date.parse("2025-06-15T08:00:00Z"))
      expect(recent.egvs.end).toEqual(dataRange.egvs.end)
      const caughtUp = (yield* get(`${base}/v3/users/self/dataRange?lastSyncTime=2025-06-15T11:00:00`, auth)).json()
      expect(caughtUp.egvs).toBeUndefined()
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("an expired or unknown access token answers 401", () =>
    Effect.gen(function*() {
      const clock = new ManualClock()
      const { base } = yield* served("Dexcom", clock)
      const tokens = yield* dexcomConnect(base)
      const url = `${base}/v3/users/self/devices`
      expect((yield* get(url, bearer(tokens.access))).status).toBe(200)
      clock.advance(7_200_000)
      expect((yield* get(url, bearer(tokens.access))).status).toBe(401)
      expect((yield* get(url, bearer("nope"))).status).toBe(401)
    }).pipe(Effect.provide(HttpLive)))
})

describe("the Dexcom simulator's EGVs built in slices", () => {
  it.live("are the records built at once, in the same order", () =>
    Effect.gen(function*() {
      const glucose = new Glucose("slices", "user-1")
      const to = glucose.t.start + 30 * 86_400_000
      const whole = recordsIn(glucose, "egv", glucose.t.start, to)
      expect(whole.length).toBeGreaterThan(8000)
      expect(yield* egvsInSlices(glucose, glucose.t.start, to)).toEqual(whole)
    }))
})
