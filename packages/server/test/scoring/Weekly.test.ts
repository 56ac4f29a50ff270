/**
 * Weekly scores: ISO weeks from Monday, 4 of 7 days per pillar, the weekly overall from the
 * weekly pillars, `daysWithData`, and the service's week-widened ranges, most recent first.
 */
import { describe, expect, it } from "@effect/vitest"
import { DailyScore } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import { addDays } from "../../src/platform/Calendar.js"
import { dailyScores } from "../../src/scoring/Daily.js"
import { Scoring } from "../../src/scoring/Scoring.js"
import { weeklyScores } from "../../src/scoring/Weekly.js"
import { daysBefore, input, steadyDay } from "./Fixtures.js"

const template = dailyScores(input([steadyDay("2026-01-01")]), { from: "2026-01-01", to: "2026-01-01" })[0]!

const day = (date: string, sleep: number | null, recovery: number | null, activity: number | null) =>
  new DailyScore({
    ...template,
    date,
    sleepScore: sleep,
    recoveryScore: recovery,
    activityScore: activity,
    overallScore: null
  }, true)

// 2026-03-02 is a Monday.
const monday = "2026-03-02"
const at = (i: number) => addDays(monday, i)

describe("weekly aggregation", () => {
  it("a pillar with 4 of 7 days is the mean of those days; with 3 it is null", () => {
    const [week] = weeklyScores([
      day(at(0), 80, 70, null),
      day(at(1), 90, 70, 50),
      day(at(2), 70, null, 50),
      day(at(4), 60, 70, 50),
      day(at(6), null, null, null)
    ])
    expect(week!.weekStartDate).toBe(monday)
    expect(week!.sleepScore).toBe(75)
    expect(week!.recoveryScore).toBeNull()
    expect(week!.activityScore).toBeNull()
    expect(week!.overallScore).toBeNull()
    expect(week!.daysWithData).toBe(4)
  })

  it("the weekly overall is the weighted mean of the weekly pillars, not of daily overalls", () => {
    const [week] = weeklyScores(
      [0, 1, 2, 3].map((i) => day(at(i), 80, 60, i < 2 ? 90 : null)).concat(
        [4, 5].map((i) => day(at(i), null, null, 90))
      )
    )
    expect(week!.sleepScore).toBe(80)
    expect(week!.recoveryScore).toBe(60)
    expect(week!.activityScore).toBe(90)
    expect(week!.overallScore).toBe(Math.round(0.35 * 80 + 0.35 * 60 + 0.30 * 90))
    expect(week!.daysWithData).toBe(6)
  })

  it("weeks run Monday to Sunday: Sunday and the next Monday fall in different weeks", () => {
    const weeks = weeklyScores([day(at(6), 80, 80, 80), day(at(7), 80, 80, 80), day(at(-1), 80, 80, 80)])
    expect(weeks.map((w) => [w.weekStartDate, w.daysWithData])).toEqual([
      ["2026-02-23", 1],
      [monday, 1],
      ["2026-03-09", 1]
    ])
    // 2026-01-01 is a Thursday of the ISO week that starts on Monday 2025-12-29.
    expect(weeklyScores([day("2026-01-01", 1, 1, 1)])[0]!.weekStartDate).toBe("2025-12-29")
  })
})

describe("the Scoring service", () => {
  const data = input([
    ...daysBefore("2026-03-23", 80, (date) => steadyDay(date)),
    steadyDay("2026-03-23")
  ])

  it.effect("daily scores come most recent first, only for the dates asked", () =>
    Effect.gen(function*() {
      const scoring = yield* Scoring
      const daily = scoring.daily(data, { from: "2026-03-10", to: "2026-03-16" })
      expect(daily.map((d) => d.date)).toEqual([16, 15, 14, 13, 12, 11, 10].map((d) => `2026-03-${d}`))
      expect(daily.every((d) => d.overallScore !== null)).toBe(true)
    }).pipe(Effect.provide(Scoring.Default)))

  it.effect("weekly scores cover whole ISO weeks of the range, most recent first", () =>
    Effect.gen(function*() {
      const scoring = yield* Scoring
      const weekly = scoring.weekly(data, { from: "2026-03-04", to: "2026-03-17" })
      expect(weekly.map((w) => w.weekStartDate)).toEqual(["2026-03-16", "2026-03-09", "2026-03-02"])
      expect(weekly.map((w) => w.daysWithData)).toEqual([7, 7, 7])
      expect(scoring.rowsWindow({ from: "2026-03-04", to: "2026-03-17" }, "weekly")).toEqual({
        from: "2026-01-01",
        to: "2026-03-22"
      })
      expect(scoring.rowsWindow({ from: "2026-03-04", to: "2026-03-17" }, "daily")).toEqual({
        from: "2026-01-03",
        to: "2026-03-17"
      })
    }).pipe(Effect.provide(Scoring.Default)))
})
