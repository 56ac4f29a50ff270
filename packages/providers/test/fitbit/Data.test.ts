/**
 * Fitbit data: the daily summary normaliser on provider-shaped JSON (metric and imperial), and
 * `fetchWindow` against the served Fitbit simulator: one request per date in metric units, dates
 * past tomorrow skipped, and each failure the engine reacts to.
 */
import { describe, expect, it } from "@effect/vitest"
import { FitbitDailySummary, FitbitData, fitbitDistanceMeters, normaliseFitbitDay } from "@pulsebridge/providers"
import { fitbitDailySummary } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { connect, withHttp } from "../fixtures/Simulated.js"

const decode = Schema.decodeUnknownSync(FitbitDailySummary)

/** The documented example day (metric). */
const exampleDay = {
  activities: [],
  goals: { activeMinutes: 30, caloriesOut: 2892, distance: 8.05, floors: 10, steps: 10000 },
  summary: {
    activeScore: -1,
    activityCalories: 1735,
    caloriesBMR: 1746,
    caloriesOut: 2614,
    distances: [
      { activity: "total", distance: 3.88 },
      { activity: "tracker", distance: 3.88 },
      { activity: "loggedActivities", distance: 0 },
      { activity: "veryActive", distance: 2.03 },
      { activity: "moderatelyActive", distance: 0.09 },
      { activity: "lightlyActive", distance: 1.76 },
      { activity: "sedentaryActive", distance: 0 }
    ],
    elevation: 33.53,
    fairlyActiveMinutes: 4,
    floors: 10,
    lightlyActiveMinutes: 86,
    marginalCalories: 442,
    restingHeartRate: 77,
    sedentaryMinutes: 823,
    steps: 5364,
    veryActiveMinutes: 30
  }
}

describe("normaliseFitbitDay", () => {
  it("maps the daily summary, kilometres to metres, keyed by user and path date", () => {
    const record = normaliseFitbitDay("GGNJL9", "2019-01-01", decode(exampleDay))
    expect(record).toEqual({
      providerRecordId: "GGNJL9:2019-01-01",
      date: "2019-01-01",
      steps: 5364,
      caloriesOut: 2614,
      activeCalories: 1735,
      distanceMeters: 3880,
      lightActiveMinutes: 86,
      moderateActiveMinutes: 4,
      vigorousActiveMinutes: 30,
      sedentaryMinutes: 823,
      floorsClimbed: 10,
      restingHeartRate: 77,
      rawJson: expect.any(String)
    })
    expect(JSON.parse(record.rawJson)).toEqual(exampleDay)
  })

  it("converts miles when the reply was in en_US units", () => {
    expect(fitbitDistanceMeters(2.41, "en_US")).toBe(3878.519)
    expect(fitbitDistanceMeters(2.41, "en_GB")).toBe(2410)
    expect(fitbitDistanceMeters(0.07)).toBe(70)
  })

  it("reads a day without heart rate, altimeter or distances as null resting rate, 0 floors, 0 m", () => {
    const { distances: _d, floors: _f, restingHeartRate: _r, ...rest } = exampleDay.summary
    const record = normaliseFitbitDay("GGNJL9", "2019-01-02", decode({ summary: rest }))
    expect(record).toMatchObject({ restingHeartRate: null, floorsClimbed: 0, distanceMeters: 0 })
  })
})

const dayPath = "/1/user/-/activities/date/*"

describe("FitbitData.fetchWindow against the simulator", () => {
  it.scopedLive("reads each date of the window in metric units, exactly as the simulator generates it", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* connect("Fitbit")
      const window = { from: "2025-06-08", to: "2025-06-14" }
      const batch = yield* FitbitData.fetchWindow(input(), window)
      const dates = ["2025-06-08", "2025-06-09", "2025-06-10", "2025-06-11", "2025-06-12", "2025-06-13", "2025-06-14"]
      expect(batch.dailyActivity.map((r) => r.date)).toEqual(dates)
      for (const record of batch.dailyActivity) {
        // a past day: complete; metric: kilometres
        const day = fitbitDailySummary(seed, providerUserId, record.date, 1, "METRIC")
        const s = day.summary
        expect(record).toEqual({
          providerRecordId: `${providerUserId}:${record.date}`,
          date: record.date,
          steps: s.steps,
          caloriesOut: s.caloriesOut,
          activeCalories: s.activityCalories,
          distanceMeters: expect.closeTo(s.distances[0]!.distance * 1000, 6),
          lightActiveMinutes: s.lightlyActiveMinutes,
          moderateActiveMinutes: s.fairlyActiveMinutes,
          vigorousActiveMinutes: s.veryActiveMinutes,
          sedentaryMinutes: s.sedentaryMinutes,
          floorsClimbed: s.floors,
          restingHeartRate: s.restingHeartRate,
          rawJson: expect.any(String)
        })
        expect(s.distances[0]!.activity).toBe("total")
        expect(JSON.parse(record.rawJson)).toEqual(JSON.parse(JSON.stringify(day)))
      }
      const calls = sim.control.calls({ path: dayPath })
      expect(calls.map((c) => c.path)).toEqual(dates.map((d) => `/1/user/-/activities/date/${d}.json`))
      expect(batch.dailyLoad).toEqual([])
    })))

  it.scopedLive("skips dates after tomorrow (UTC) and reads today as it stands", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* connect("Fitbit")
      const batch = yield* FitbitData.fetchWindow(input(), { from: "2025-06-14", to: "2025-06-20" })
      // tomorrow is asked for (the user may be east of UTC) but has no data yet for this user
      expect(batch.dailyActivity.map((r) => r.date)).toEqual(["2025-06-14", "2025-06-15"])
      expect(sim.control.calls({ path: dayPath }).map((c) => c.path)).toEqual(
        ["14", "15", "16"].map((d) => `/1/user/-/activities/date/2025-06-${d}.json`)
      )
      // today so far: part of the whole day's steps
      const today = batch.dailyActivity[1]!
      expect(today.steps).toBeGreaterThan(0)
      expect(today.steps).toBeLessThan(
        fitbitDailySummary(seed, providerUserId, "2025-06-15", 1, "METRIC").summary.steps
      )
      const nothing = yield* FitbitData.fetchWindow(input(), { from: "2025-06-17", to: "2025-06-20" })
      expect(nothing.dailyActivity).toEqual([])
      expect(sim.control.calls({ path: dayPath })).toHaveLength(3)
    })))

  it.scopedLive("leaves out the all-zero days Fitbit answers for dates without data", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Fitbit")
      // before the simulated user's first day (some time in 2023)
      const batch = yield* FitbitData.fetchWindow(input(), { from: "2022-12-01", to: "2022-12-03" })
      expect(batch.dailyActivity).toEqual([])
      expect(sim.control.calls({ path: dayPath, status: 200 })).toHaveLength(3)
    })))

  it.scopedLive("a 429 stops the window with status 429 and the reset in retryAfterSeconds", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Fitbit")
      sim.control.injectFault({
        path: "/1/user/-/activities/date/2025-06-10.json",
        kind: "rateLimit",
        retryAfterSeconds: 1234
      })
      const error = yield* Effect.flip(FitbitData.fetchWindow(input(), { from: "2025-06-08", to: "2025-06-14" }))
      expect(error).toMatchObject({ _tag: "ProviderError", provider: "Fitbit", status: 429, retryAfterSeconds: 1234 })
      // the dates after the limited one were not tried
      expect(sim.control.calls({ path: dayPath })).toHaveLength(3)
    })))

  it.scopedLive("a server error is status 500; a cut reply is a malformed-response error", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Fitbit")
      const window = { from: "2025-06-08", to: "2025-06-09" }
      sim.control.injectFault({ path: dayPath, kind: "serverError" })
      expect(yield* Effect.flip(FitbitData.fetchWindow(input(), window))).toMatchObject({ status: 500 })
      sim.control.injectFault({ path: dayPath, kind: "malformedJson" })
      const malformed = yield* Effect.flip(FitbitData.fetchWindow(input(), window))
      expect(malformed._tag).toBe("ProviderError")
      expect(malformed.message).toContain("malformed response")
      expect(malformed.status).toBeUndefined()
    })))

  it.scopedLive("an expired access token is a 401 with Fitbit's expired_token, without the token in the message", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim, tokens } = yield* connect("Fitbit")
      sim.control.expireAccessTokens()
      const error = yield* Effect.flip(FitbitData.fetchWindow(input(), { from: "2025-06-08", to: "2025-06-08" }))
      expect(error).toMatchObject({ status: 401, code: "expired_token" })
      expect(error.message).not.toContain(Redacted.value(tokens.accessToken))
    })))

  it.scopedLive("refuses a window that ends before it starts, without calling Fitbit", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Fitbit")
      const error = yield* Effect.flip(FitbitData.fetchWindow(input(), { from: "2025-06-09", to: "2025-06-08" }))
      expect(error).toMatchObject({ _tag: "ProviderError", provider: "Fitbit" })
      expect(error.message).toContain("ends before it starts")
      expect(sim.control.calls()).toHaveLength(0)
    })))
})
