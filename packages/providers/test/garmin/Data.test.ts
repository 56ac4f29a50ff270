/**
 * Garmin data: the dailies normaliser on the documented summary and on re-sent copies, push and
 * ping bodies, and `fetchWindow` / `pullGarminCallback` against the served Garmin simulator (which
 * checks every OAuth 1.0a signature): upload windows of at most 86400 s covering the dates, the
 * latest copy of each day, and each failure the engine reacts to.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import type { DailyActivityRecord } from "@pulsebridge/providers"
import {
  GarminDaily,
  GarminData,
  garminMaxPullSeconds,
  garminPingCallbacks,
  garminPushDailies,
  garminUploadWindows,
  normaliseGarminDailies,
  normaliseGarminDaily,
  pullGarminCallback
} from "@pulsebridge/providers"
import { garminDaily, serveHttpApp } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { connect, NOW, withHttp } from "../fixtures/Simulated.js"

const decode = Schema.decodeUnknownSync(GarminDaily)

/** The Health API spec's example daily. */
const specDaily = {
  userId: "4aacafe82427c251df9c9592d0c06768",
  userAccessToken: "8f57a6f1-26ba-4b05-a7cd-c6b525a4c7a2",
  summaryId: " EXAMPLE_67891",
  calendarDate: "2016-01-11",
  activityType: "WALKING",
  activeKilocalories: 321,
  bmrKilocalories: 1731,
  consumedCalories: 1121,
  steps: 4210,
  distanceInMeters: 3146.5,
  durationInSeconds: 86400,
  activeTimeInSeconds: 12240,
  startTimeInSeconds: 1452470400,
  startTimeOffsetInSeconds: 3600,
  moderateIntensityDurationInSeconds: 81870,
  vigorousIntensityDurationInSeconds: 4530,
  floorsClimbed: 8,
  minHeartRateInBeatsPerMinute: 59,
  averageHeartRateInBeatsPerMinute: 64,
  maxHeartRateInBeatsPerMinute: 112,
  timeOffsetHeartRateSamples: { "15": 75, "30": 75, "3180": 76, "3195": 65 },
  averageStressLevel: 43,
  stepsGoal: 4500
}

/** What a simulator summary must normalise to. */
const expected = (d: ReturnType<typeof garminDaily>): DailyActivityRecord => ({
  providerRecordId: d.summaryId,
  date: d.calendarDate,
  steps: d.steps,
  caloriesOut: d.activeKilocalories + d.bmrKilocalories,
  activeCalories: d.activeKilocalories,
  distanceMeters: d.distanceInMeters,
  lightActiveMinutes:
    Math.max(0, d.activeTimeInSeconds - d.moderateIntensityDurationInSeconds - d.vigorousIntensityDurationInSeconds) /
    60,
  moderateActiveMinutes: d.moderateIntensityDurationInSeconds / 60,
  vigorousActiveMinutes: d.vigorousIntensityDurationInSeconds / 60,
  sedentaryMinutes: 0,
  floorsClimbed: d.floorsClimbed,
  restingHeartRate: d.restingHeartRateInBeatsPerMinute,
  rawJson: expect.any(String) as unknown as string
})

describe("normaliseGarminDaily", () => {
  it("maps the documented summary: total = active + BMR, seconds to minutes, summaryId as the key", () => {
    const record = normaliseGarminDaily(decode(specDaily))
    expect(record).toEqual({
      providerRecordId: " EXAMPLE_67891",
      date: "2016-01-11",
      steps: 4210,
      caloriesOut: 2052,
      activeCalories: 321,
      distanceMeters: 3146.5,
      // the example's moderate time exceeds its active time: no light minutes are left
      lightActiveMinutes: 0,
      moderateActiveMinutes: 1364.5,
      vigorousActiveMinutes: 75.5,
      sedentaryMinutes: 0,
      floorsClimbed: 8,
      restingHeartRate: null,
      rawJson: expect.any(String)
    })
    const { userAccessToken: _token, ...withoutToken } = specDaily
    expect(JSON.parse(record.rawJson)).toEqual(withoutToken)
    expect(record.rawJson).not.toContain(specDaily.userAccessToken)
  })

  it("keeps the last copy of a re-sent summary", () => {
    const morning = { ...specDaily, summaryId: "x1-a", steps: 1200, activeKilocalories: 80, durationInSeconds: 30_000 }
    const evening = { ...morning, steps: 9800, activeKilocalories: 610, durationInSeconds: 86_400 }
    const other = { ...specDaily, summaryId: "x1-b", calendarDate: "2016-01-12" }
    const records = normaliseGarminDailies([morning, other, evening].map((d) => decode(d)))
    expect(records.map((r) => [r.providerRecordId, r.steps, r.caloriesOut])).toEqual([
      ["x1-b", 4210, 2052],
      ["x1-a", 9800, 610 + 1731]
    ])
  })

  it("reads a push body by user, skipping ping items and malformed ones, the last copy winning", () => {
    const body = {
      dailies: [
        { ...specDaily, steps: 100 },
        { userId: "u-2", uploadStartTimeInSeconds: 1, uploadEndTimeInSeconds: 2, callbackURL: "https://x/y" },
        { ...specDaily, summaryId: 42 },
        { ...specDaily, steps: 4300 },
        { ...specDaily, userId: "u-3", summaryId: "other" }
      ]
    }
    const pushed = garminPushDailies(body)
    expect(pushed.map((p) => [p.userId, p.record.providerRecordId, p.record.steps])).toEqual([
      [specDaily.userId, " EXAMPLE_67891", 4300],
      ["u-3", "other", 4210]
    ])
    expect(garminPushDailies({ epochs: [] })).toEqual([])
    expect(garminPushDailies("not json")).toEqual([])
    expect(garminPingCallbacks(body)).toEqual([{ userId: "u-2", callbackUrl: "https://x/y" }])
  })

  it("refuses a summary without its key fields", () => {
    expect(() => decode({ ...specDaily, calendarDate: "2016-13-01" })).toThrow()
    expect(() => decode({ ...specDaily, summaryId: "" })).toThrow()
  })
})

describe("garminUploadWindows", () => {
  it("covers the local dates in contiguous upload windows of at most 86400 s, capped at now", () => {
    const windows = garminUploadWindows({ from: "2025-06-08", to: "2025-06-14" }, new Date(NOW))
    expect(windows[0]!.start).toBe(Date.parse("2025-06-07T10:00:00Z") / 1000)
    expect(windows[windows.length - 1]!.end).toBe(Date.parse(NOW) / 1000)
    windows.forEach((w, i) => {
      expect(w.end - w.start).toBeGreaterThan(0)
      expect(w.end - w.start).toBeLessThanOrEqual(garminMaxPullSeconds)
      if (i > 0) expect(w.start).toBe(windows[i - 1]!.end)
    })
    // long past: a day and a half after the latest midnight ending the last date
    const past = garminUploadWindows({ from: "2025-01-01", to: "2025-01-01" }, new Date(NOW))
    expect(past[past.length - 1]!.end).toBe(Date.parse("2025-01-03T12:00:00Z") / 1000)
    expect(garminUploadWindows({ from: "2025-06-20", to: "2025-06-21" }, new Date(NOW))).toEqual([])
  })
})

const pullPath = "/wellness-api/rest/dailies"

/** A receiver for Garmin's push and ping deliveries. */
const receiver = Effect.gen(function*() {
  const bodies: Array<unknown> = []
  const app = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    bodies.push(JSON.parse(yield* Effect.orDie(request.text)))
    return HttpServerResponse.empty({ status: 200 })
  })
  const server = yield* serveHttpApp(app)
  return { url: `${server.baseUrl}/garmin`, bodies }
})

describe("GarminData.fetchWindow against the simulator", () => {
  it.scopedLive("pulls the window's upload times and keeps each day's latest, complete summary", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* connect("Garmin")
      const window = { from: "2025-06-08", to: "2025-06-14" }
      const batch = yield* GarminData.fetchWindow(input(), window)
      const dates = ["2025-06-08", "2025-06-09", "2025-06-10", "2025-06-11", "2025-06-12", "2025-06-13", "2025-06-14"]
      const inWindow = batch.dailyActivity.filter((r) => r.date >= window.from && r.date <= window.to)
      expect(inWindow.map((r) => r.date).sort()).toEqual(dates)
      for (const record of inWindow) {
        const day = garminDaily(seed, providerUserId, record.date, 1)
        expect(record).toEqual(expected(day))
        const { userAccessToken: _token, ...raw } = JSON.parse(record.rawJson)
        expect(raw).toEqual({ userId: providerUserId, ...JSON.parse(JSON.stringify(day)) })
      }
      // one record per summary although earlier uploads of the same days came back too
      const ids = batch.dailyActivity.map((r) => r.providerRecordId)
      expect(new Set(ids).size).toBe(ids.length)
      expect(batch.dailyActivity.every((r) => !r.rawJson.includes(Redacted.value(input().tokens.accessToken)))).toBe(
        true
      )
      // signed pulls (the simulator checks each signature), one per upload window
      const calls = sim.control.calls({ path: pullPath })
      const windows = garminUploadWindows(window, new Date(NOW))
      expect(
        calls.map((c) => [c.status, Number(c.params.uploadStartTimeInSeconds), Number(c.params.uploadEndTimeInSeconds)])
      )
        .toEqual(windows.map((w) => [200, w.start, w.end]))
      expect(windows.length).toBe(9)
    })))

  it.scopedLive("a 429 carries Retry-After; a 500 is status 500; a cut reply is malformed; a dead token is 401", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Garmin")
      const window = { from: "2025-06-12", to: "2025-06-12" }
      sim.control.injectFault({ path: pullPath, kind: "rateLimit", retryAfterSeconds: 90 })
      const limited = yield* Effect.flip(GarminData.fetchWindow(input(), window))
      expect(limited).toMatchObject({ _tag: "ProviderError", provider: "Garmin", status: 429, retryAfterSeconds: 90 })

      sim.control.injectFault({ path: pullPath, kind: "serverError" })
      expect(yield* Effect.flip(GarminData.fetchWindow(input(), window))).toMatchObject({ status: 500 })

      sim.control.injectFault({ path: pullPath, kind: "malformedJson" })
      const malformed = yield* Effect.flip(GarminData.fetchWindow(input(), window))
      expect(malformed.message).toContain("malformed response")

      sim.control.injectFault({ path: pullPath, kind: "expiredToken" })
      expect(yield* Effect.flip(GarminData.fetchWindow(input(), window))).toMatchObject({ status: 401 })

      // deregistered at Garmin: the token is no longer valid
      sim.control.revokeUser(input().providerUserId)
      const revoked = yield* Effect.flip(GarminData.fetchWindow(input(), window))
      expect(revoked).toMatchObject({ status: 401 })
      expect(revoked.message).toContain("Invalid user access token")
    })))

  it.scopedLive("refuses tokens without a token secret, without calling Garmin", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Garmin")
      const base = input()
      const error = yield* Effect.flip(
        GarminData.fetchWindow({ ...base, tokens: { ...base.tokens, tokenSecret: null } }, {
          from: "2025-06-12",
          to: "2025-06-12"
        })
      )
      expect(error.message).toContain("no token secret")
      expect(sim.control.calls()).toHaveLength(0)
    })))
})

describe("Garmin push and ping against the simulator", () => {
  it.scopedLive("a push delivery normalises to the simulator's dailies, by user, without the access token", () =>
    withHttp(Effect.gen(function*() {
      const { providerUserId, seed, sim } = yield* connect("Garmin")
      const hook = yield* receiver
      const dates = ["2025-06-10", "2025-06-11"]
      const delivery = yield* sim.control.pushDailies(hook.url, { userId: providerUserId, dates })
      expect(delivery?.status).toBe(200)
      const pushed = garminPushDailies(hook.bodies[0])
      expect(pushed.map((p) => p.userId)).toEqual([providerUserId, providerUserId])
      expect(pushed.map((p) => p.record)).toEqual(
        dates.map((date) => expected(garminDaily(seed, providerUserId, date, 1)))
      )
      expect(JSON.stringify(hook.bodies[0])).toContain("userAccessToken")
      expect(pushed.every((p) => !p.record.rawJson.includes("userAccessToken"))).toBe(true)
    })))

  it.scopedLive("a ping's callback is pulled signed, at the configured API base only", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* connect("Garmin")
      const hook = yield* receiver
      const start = Date.parse("2025-06-12T12:00:00Z") / 1000
      yield* sim.control.pingDailies(hook.url, {
        userId: providerUserId,
        uploadStartTimeInSeconds: start,
        uploadEndTimeInSeconds: start + 86_400
      })
      const [ping] = garminPingCallbacks(hook.bodies[0])
      expect(ping!.userId).toBe(providerUserId)
      const batch = yield* pullGarminCallback(input(), ping!.callbackUrl)
      expect(batch.dailyActivity.length).toBeGreaterThan(0)
      for (const record of batch.dailyActivity) {
        // each is some upload of its day: one of the simulator's versions of it
        const versions = [0.25, 0.5, 0.75, 1].map((p) => expected(garminDaily(seed, providerUserId, record.date, p)))
        expect(versions).toContainEqual(record)
      }
      const [call] = sim.control.calls({ path: pullPath })
      expect(call).toMatchObject({
        status: 200,
        params: { uploadStartTimeInSeconds: String(start), uploadEndTimeInSeconds: String(start + 86_400) }
      })

      // another host in the callback: the request still goes to the configured API base
      const forged = `https://elsewhere.example.test${pullPath}${new URL(ping!.callbackUrl).search}`
      const again = yield* pullGarminCallback(input(), forged)
      expect(again).toEqual(batch)
      expect(sim.control.calls({ path: pullPath })).toHaveLength(2)

      const refused = yield* Effect.flip(
        pullGarminCallback(input(), "https://apis.garmin.com/wellness-api/rest/epochs?x=1")
      )
      expect(refused.message).toContain("not a dailies pull")
      expect(sim.control.calls({ path: pullPath })).toHaveLength(2)
    })))
})
