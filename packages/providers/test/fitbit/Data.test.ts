/**
 * Fitbit data through the Google Health API: daily roll-up points shaped as Google writes them
 * (int64 as strings, durations as `"<n>s"`, zero values left out) put together by civil day, one
 * bad point quarantined with its day left out and the rest stored; and `fetchWindow` against the
 * Google Health API simulator: one `dailyRollUp` per data type for the window, values exactly as
 * the data generator makes them, days past tomorrow never asked for, Google's errors surfaced.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  assembleDays,
  dailyRollUpBody,
  FitbitData,
  fitbitDataTypes,
  listedDataTypes,
  spansOf
} from "@pulsebridge/providers"
import { fitbitDailySummary } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import { credentials, endpoints, fakeHttp, json, oauth2Tokens } from "../fixtures/FakeHttp.js"
import { connect, withHttp } from "../fixtures/Simulated.js"

const user = "2514986753"
const date = (d: string) => ({ year: Number(d.slice(0, 4)), month: Number(d.slice(5, 7)), day: Number(d.slice(8, 10)) })
/** One `DailyRollupDataPoint` of a civil day, with the data type's roll-up value. */
const point = (d: string, value: Record<string, unknown>) => ({
  civilStartTime: { date: date(d) },
  civilEndTime: { date: date(new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)) },
  ...value
})

/** Two days of every data type, as `dailyRollUp` answers them. */
const pages = [
  {
    dataType: "steps" as const,
    items: [point("2026-11-17", { steps: { countSum: "9421" } }), point("2026-11-18", { steps: { countSum: "4107" } })]
  },
  {
    dataType: "distance" as const,
    items: [
      point("2026-11-17", { distance: { millimetersSum: "7234567" } }),
      point("2026-11-18", { distance: { millimetersSum: "3012000" } })
    ]
  },
  // no altimeter: proto3 JSON leaves the zero sum out
  {
    dataType: "floors" as const,
    items: [point("2026-11-17", { floors: {} }), point("2026-11-18", { floors: { countSum: "3" } })]
  },
  {
    dataType: "total-calories" as const,
    items: [
      point("2026-11-17", { totalCalories: { kcalSum: 2612.4 } }),
      point("2026-11-18", { totalCalories: { kcalSum: 2201.75 } })
    ]
  },
  {
    dataType: "active-energy-burned" as const,
    items: [point("2026-11-17", { activeEnergyBurned: { kcalSum: 812.6 } })]
  },
  {
    dataType: "active-minutes" as const,
    items: [
      point("2026-11-17", {
        activeMinutes: {
          activeMinutesRollupByActivityLevel: [
            { activityLevel: "LIGHT", activeMinutesSum: "214" },
            { activityLevel: "MODERATE", activeMinutesSum: "23" },
            { activityLevel: "VIGOROUS", activeMinutesSum: "31" }
          ]
        }
      }),
      point("2026-11-18", {
        activeMinutes: { activeMinutesRollupByActivityLevel: [{ activityLevel: "LIGHT", activeMinutesSum: "160" }] }
      })
    ]
  },
  {
    dataType: "sedentary-period" as const,
    items: [
      point("2026-11-17", { sedentaryPeriod: { durationSum: "41400s" } }),
      point("2026-11-18", { sedentaryPeriod: { durationSum: "45930s" } })
    ]
  }
]

const window = { from: "2026-11-17", to: "2026-11-18" }

describe("assembleDays", () => {
  it("puts each civil day together from its points, in canonical units, keyed by the date", () => {
    const { quarantined, records } = assembleDays(window, pages)
    expect(quarantined).toEqual([])
    expect(records.map(({ rawJson: _, ...r }) => r)).toEqual([
      {
        providerRecordId: "2026-11-17",
        date: "2026-11-17",
        steps: 9421,
        caloriesOut: 2612.4,
        activeCalories: 812.6,
        distanceMeters: 7234.567,
        lightActiveMinutes: 214,
        moderateActiveMinutes: 23,
        vigorousActiveMinutes: 31,
        sedentaryMinutes: 690,
        floorsClimbed: 0,
        restingHeartRate: null
      },
      {
        providerRecordId: "2026-11-18",
        date: "2026-11-18",
        steps: 4107,
        caloriesOut: 2201.75,
        // no active-energy-burned point for the day: not reported, not zero
        activeCalories: null,
        distanceMeters: 3012,
        lightActiveMinutes: 160,
        moderateActiveMinutes: 0,
        vigorousActiveMinutes: 0,
        sedentaryMinutes: 766,
        floorsClimbed: 3,
        restingHeartRate: null
      }
    ])
    // rawJson is Google's points of the day, by data type
    const raw = JSON.parse(records[0]!.rawJson)
    expect(Object.keys(raw).sort()).toEqual([...fitbitDataTypes].sort())
    expect(raw.steps).toEqual(pages[0]!.items[0])
  })

  it("quarantines a point that does not read and leaves its day out; the other day is stored", () => {
    const spoilt = pages.map((p) =>
      p.dataType === "steps" ? { ...p, items: [point("2026-11-17", { steps: { countSum: "lots" } }), p.items[1]!] } : p
    )
    const { quarantined, records } = assembleDays(window, spoilt)
    expect(records.map((r) => r.date)).toEqual(["2026-11-18"])
    expect(quarantined).toEqual([{
      kind: "DailyActivity",
      providerRecordId: "2026-11-17",
      reason: expect.stringMatching(/^steps: /),
      rawJson: JSON.stringify(point("2026-11-17", { steps: { countSum: "lots" } }))
    }])
    expect(quarantined[0]!.reason).not.toContain("lots")
  })

  it("quarantines a point of an impossible date without an id, and keeps a day whose points are all zero", () => {
    const { quarantined, records } = assembleDays({ from: "2026-02-01", to: "2026-03-31" }, [
      {
        dataType: "steps",
        items: [
          { civilStartTime: { date: { year: 2026, month: 2, day: 30 } }, steps: { countSum: "100" } },
          point("2026-03-01", { steps: {} }),
          point("2026-03-02", { steps: { countSum: "12" } }),
          point("2026-04-01", { steps: { countSum: "12" } })
        ]
      }
    ])
    expect(quarantined).toMatchObject([{ kind: "DailyActivity", providerRecordId: null }])
    // Google writes true zeros: a day it returned a point for was worn; April is outside the window
    expect(records.map((r) => [r.date, r.steps])).toEqual([["2026-03-01", 0], ["2026-03-02", 12]])
  })

  // developers.google.com/health/data-types/steps, "Handling true zeros": a tracker worn by a user who does not walk
  // writes explicit intervals of count "0", so a worn still day is told from a day not worn. dailyRollUp leaves the
  // zero sums out (proto3 JSON), so such a day's points carry empty values.
  it("keeps a worn but still day of true zeros with its calories and sedentary time", () => {
    const still = "2026-11-19"
    const { quarantined, records } = assembleDays({ from: still, to: still }, [
      { dataType: "steps", items: [point(still, { steps: {} })] },
      { dataType: "distance", items: [point(still, { distance: {} })] },
      { dataType: "floors", items: [point(still, { floors: {} })] },
      { dataType: "total-calories", items: [point(still, { totalCalories: { kcalSum: 1688.2 } })] },
      { dataType: "active-energy-burned", items: [point(still, { activeEnergyBurned: {} })] },
      { dataType: "active-minutes", items: [point(still, { activeMinutes: {} })] },
      { dataType: "sedentary-period", items: [point(still, { sedentaryPeriod: { durationSum: "50400s" } })] }
    ])
    expect(quarantined).toEqual([])
    expect(records.map(({ rawJson: _, ...r }) => r)).toEqual([{
      providerRecordId: still,
      date: still,
      steps: 0,
      caloriesOut: 1688.2,
      activeCalories: 0,
      distanceMeters: 0,
      lightActiveMinutes: 0,
      moderateActiveMinutes: 0,
      vigorousActiveMinutes: 0,
      sedentaryMinutes: 840,
      floorsClimbed: 0,
      restingHeartRate: null
    }])
  })
})

describe("FitbitData.fetchWindow", () => {
  it("asks for whole civil days, the end exclusive, one day per window", () => {
    expect(dailyRollUpBody("2026-11-30", "2026-12-31")).toEqual({
      range: { start: { date: { year: 2026, month: 11, day: 30 } }, end: { date: { year: 2027, month: 1, day: 1 } } },
      windowSizeDays: 1
    })
    expect(FitbitData.windowDays).toBe(14)
  })

  it("splits a longer stretch (a notification's) into ranges of 14 days at most", () => {
    expect(spansOf("2026-11-01", "2026-11-30")).toEqual([
      { from: "2026-11-01", to: "2026-11-14" },
      { from: "2026-11-15", to: "2026-11-28" },
      { from: "2026-11-29", to: "2026-11-30" }
    ])
    expect(spansOf("2026-11-01", "2026-11-01")).toEqual([{ from: "2026-11-01", to: "2026-11-01" }])
    expect(spansOf("2026-11-02", "2026-11-01")).toEqual([])
  })

  it.scopedLive("reads the window with one dailyRollUp per data type, exactly as the simulator generates it", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* connect("Fitbit")
      const batch = yield* FitbitData.fetchWindow(input(), { from: "2025-06-01", to: "2025-06-14" })
      expect(batch.dailyActivity).toHaveLength(14)
      expect(batch.quarantined).toEqual([])
      const resting = new Map(batch.recovery.map((r) => [r.date, r.restingHeartRate]))
      for (const record of batch.dailyActivity) {
        const s = fitbitDailySummary(seed, providerUserId, record.date, 1, "METRIC").summary
        expect(record).toEqual({
          providerRecordId: record.date,
          date: record.date,
          steps: s.steps,
          caloriesOut: s.caloriesOut,
          activeCalories: s.activityCalories,
          distanceMeters: expect.closeTo(s.distances[0]!.distance * 1000, 3),
          lightActiveMinutes: s.lightlyActiveMinutes,
          moderateActiveMinutes: s.fairlyActiveMinutes,
          vigorousActiveMinutes: s.veryActiveMinutes,
          sedentaryMinutes: s.sedentaryMinutes,
          floorsClimbed: s.floors,
          // the day's daily-resting-heart-rate point
          restingHeartRate: resting.get(record.date) ?? null,
          rawJson: expect.any(String)
        })
      }
      const calls = sim.control.calls()
      expect(calls.filter((c) => c.path.endsWith(":dailyRollUp")).map((c) => `${c.method} ${c.path} ${c.status}`))
        .toEqual(fitbitDataTypes.map((t) => `POST /v4/users/me/dataTypes/${t}/dataPoints:dailyRollUp 200`))
      // then each granted data type's raw points, all of them
      expect(new Set(calls.filter((c) => c.path.endsWith("/dataPoints")).map((c) => c.path.split("/")[5]))).toEqual(
        new Set(listedDataTypes.map((l) => l.dataType))
      )
      expect(calls.every((c) => c.status === 200)).toBe(true)
    })))

  it.scopedLive("reads a 30-day stretch (a notification's) in ranges the simulator accepts, as Google would", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("Fitbit")
      const batch = yield* FitbitData.fetchWindow(input(), { from: "2025-05-01", to: "2025-05-30" })
      expect(batch.dailyActivity.map((r) => r.date)).toEqual(
        Array.from({ length: 30 }, (_, i) => `2025-05-${String(i + 1).padStart(2, "0")}`)
      )
      const calls = sim.control.calls()
      expect(calls.filter((c) => c.path.endsWith(":dailyRollUp"))).toHaveLength(3 * fitbitDataTypes.length)
      expect(calls.every((c) => c.status === 200)).toBe(true)
    })))

  it.scopedLive("never asks past tomorrow (UTC), and reads today as it stands", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, seed, sim } = yield* connect("Fitbit")
      const batch = yield* FitbitData.fetchWindow(input(), { from: "2025-06-14", to: "2025-06-20" })
      const dates = batch.dailyActivity.map((r) => r.date)
      expect(dates[0]).toBe("2025-06-14")
      expect(dates.every((d) => d <= "2025-06-16")).toBe(true)
      const today = batch.dailyActivity.find((r) => r.date === "2025-06-15")
      if (today !== undefined) {
        expect(today.steps).toBeLessThanOrEqual(
          fitbitDailySummary(seed, providerUserId, "2025-06-15", 1, "METRIC").summary.steps
        )
      }
      const rollUps = () => sim.control.calls().filter((c) => c.path.endsWith(":dailyRollUp"))
      expect(rollUps()).toHaveLength(fitbitDataTypes.length)
      const before = sim.control.calls().length
      const nothing = yield* FitbitData.fetchWindow(input(), { from: "2025-06-17", to: "2025-06-20" })
      expect(nothing.dailyActivity).toEqual([])
      // nothing at all is asked for
      expect(sim.control.calls()).toHaveLength(before)
    })))

  it.effect("a 410 from Google is a ProviderError with status 410, and a 401 UNAUTHENTICATED is invalid_token", () =>
    Effect.gen(function*() {
      const input = {
        credentials,
        endpoints,
        tokens: oauth2Tokens(),
        providerUserId: user,
        now: new Date(Date.UTC(2026, 10, 20))
      }
      for (const [status, name, code] of [[410, "GONE", "GONE"], [401, "UNAUTHENTICATED", "invalid_token"]] as const) {
        const http = fakeHttp(() => json(status, { error: { code: status, message: "no", status: name } }))
        const error = yield* Effect.flip(FitbitData.fetchWindow(input, window).pipe(Effect.provide(http.layer)))
        expect(error).toMatchObject({ _tag: "ProviderError", provider: "Fitbit", status, code })
        // the first failure stops the window
        expect(http.sent).toHaveLength(1)
        expect(JSON.parse(http.sent[0]!.body)).toEqual(dailyRollUpBody("2026-11-17", "2026-11-18"))
      }
    }))
})
