/**
 * The pure rules of data coverage: a connection's status and reason for a day from what it holds, the day's
 * timing, the provider's delay and the sync state; the best source of a type; the journal; and why a pillar
 * is null, from components shaped as the scoring gives them.
 */
import { describe, expect, it } from "@effect/vitest"
import type { PillarBreakdown, ScoreFactor } from "@pulsebridge/domain"
import type { Measure, SourceConnection } from "../../src/coverage/DayCoverage.js"
import {
  bestSource,
  journalStatus,
  localClock,
  noMeasure,
  pillarCoverage,
  sourceStatus,
  timingOf
} from "../../src/coverage/DayCoverage.js"

// 2026-03-10 14:00 in New York (UTC-4 since 8 March)
const clock = localClock(Date.parse("2026-03-10T18:00:00Z"), "America/New_York")

const idle: SourceConnection = {
  id: "c",
  provider: "Garmin",
  status: "Active",
  syncState: "Idle",
  backfillFrom: null,
  backfillCursor: null,
  delayHours: 12
}
const dexcom: SourceConnection = { ...idle, provider: "Dexcom", delayHours: 3 }
const has = (records: number, completeRecords: number, dayFraction: number | null = null): Measure => ({
  records,
  completeRecords,
  dayFraction
})

describe("coverage rules", () => {
  it("the user's clock: today and how long ago a day ended, on the user's wall clock", () => {
    expect(clock.today).toBe("2026-03-10")
    expect(localClock(Date.parse("2026-03-10T03:00:00Z"), "America/New_York").today).toBe("2026-03-09")
    expect(timingOf("2026-03-10", 12, clock)).toBe("today")
    // yesterday ended 14 hours ago: within Dexcom's 3 h no more, within 12 h no more either
    expect(timingOf("2026-03-09", 3, clock)).toBe("settled")
    expect(timingOf("2026-03-09", 15, clock)).toBe("withinDelay")
    expect(localClock(0, "Not/AZone").today).toBe("1970-01-01")
  })

  it("daily activity: a full upload or a finished day is complete, a partial upload partial", () => {
    expect(sourceStatus("dailyActivity", idle, "2026-03-08", has(1, 1, 1), clock)).toEqual({
      status: "complete",
      reason: null
    })
    expect(sourceStatus("dailyActivity", idle, "2026-03-08", has(1, 1, 0.5), clock)).toEqual({
      status: "partial",
      reason: "incomplete"
    })
    expect(sourceStatus("dailyActivity", idle, "2026-03-10", has(1, 1, 0.5), clock)).toEqual({
      status: "partial",
      reason: "dayInProgress"
    })
    // a summary that does not say its span (Fitbit): whole once the day is over
    expect(sourceStatus("dailyActivity", idle, "2026-03-09", has(1, 1), clock).status).toBe("complete")
    expect(sourceStatus("dailyActivity", idle, "2026-03-10", has(1, 1), clock).status).toBe("partial")
  })

  it("nothing stored: pending today, within the delay or before the sync reads the day; missing after", () => {
    expect(sourceStatus("glucose", dexcom, "2026-03-10", noMeasure, clock)).toEqual({
      status: "pending",
      reason: "dayInProgress"
    })
    expect(sourceStatus("sleep", { ...idle, delayHours: 15 }, "2026-03-09", noMeasure, clock)).toEqual({
      status: "pending",
      reason: "awaitingProvider"
    })
    expect(sourceStatus("glucose", dexcom, "2026-03-09", noMeasure, clock)).toEqual({
      status: "missing",
      reason: "noData"
    })
    const backfilling = {
      ...dexcom,
      syncState: "Backfilling",
      backfillFrom: "2026-02-01",
      backfillCursor: "2026-02-20"
    }
    expect(sourceStatus("glucose", backfilling, "2026-02-10", noMeasure, clock)).toEqual({
      status: "pending",
      reason: "syncing"
    })
    expect(sourceStatus("glucose", backfilling, "2026-02-25", noMeasure, clock).reason).toBe("noData")
    expect(sourceStatus("glucose", { ...dexcom, syncState: null }, "2026-01-01", noMeasure, clock).reason).toBe(
      "syncing"
    )
    // a connection whose sync stopped brings nothing more: what would be pending is missing
    for (const stopped of [{ ...dexcom, status: "Reauthorize" }, { ...dexcom, syncState: "Stopped" }]) {
      expect(sourceStatus("glucose", stopped, "2026-03-10", noMeasure, clock)).toEqual({
        status: "missing",
        reason: "syncStopped"
      })
      expect(sourceStatus("glucose", stopped, "2026-03-01", noMeasure, clock).reason).toBe("noData")
    }
  })

  it("glucose is complete from 90% of the day's five-minute slots; WHOOP records only once scored", () => {
    expect(sourceStatus("glucose", dexcom, "2026-03-08", has(260, 0, 260 / 288), clock).status).toBe("complete")
    expect(sourceStatus("glucose", dexcom, "2026-03-08", has(250, 0, 250 / 288), clock)).toEqual({
      status: "partial",
      reason: "incomplete"
    })
    expect(sourceStatus("dailyLoad", idle, "2026-03-08", has(1, 0), clock)).toEqual({
      status: "partial",
      reason: "incomplete"
    })
    expect(sourceStatus("recovery", idle, "2026-03-08", has(1, 1), clock).status).toBe("complete")
  })

  it("the journal: complete with an analysed entry, partial while a scan is analysed, pending today", () => {
    expect(journalStatus("2026-03-08", has(2, 2), clock)).toEqual({ status: "complete", reason: null })
    expect(journalStatus("2026-03-08", has(2, 1), clock)).toEqual({ status: "partial", reason: "analysisPending" })
    expect(journalStatus("2026-03-10", noMeasure, clock)).toEqual({ status: "pending", reason: "dayInProgress" })
    expect(journalStatus("2026-03-08", noMeasure, clock)).toEqual({ status: "missing", reason: "noData" })
  })

  it("the best source: by status, then in the scores' order of providers", () => {
    const fitbit = { provider: "Fitbit", status: "complete", reason: null } as const
    const garmin = { provider: "Garmin", status: "complete", reason: null } as const
    const partialGarmin = { ...garmin, status: "partial", reason: "incomplete" } as const
    expect(bestSource([fitbit, garmin], ["Garmin", "Fitbit"])).toBe(garmin)
    expect(bestSource([fitbit, partialGarmin], ["Garmin", "Fitbit"])).toBe(fitbit)
    expect(bestSource([], [])).toBeUndefined()
  })
})

const factor = (key: ScoreFactor["key"], weight: number, state: ScoreFactor["state"]): ScoreFactor => ({
  key,
  value: state === "unavailable" ? null : 1,
  unit: "",
  reference: null,
  subScore: state === "scored" ? 80 : null,
  weight,
  effectiveWeight: 0,
  pointsLost: 0,
  state,
  source: null
})

const pillar = (
  coverage: number,
  factors: ReadonlyArray<ScoreFactor>,
  score: number | null = null
): PillarBreakdown => ({
  score,
  coverage,
  calibrating: factors.some((f) => f.state === "calibrating"),
  flags: [],
  factors
})

describe("score null reasons", () => {
  const recovery = (hrv: ScoreFactor["state"], sleep: ScoreFactor["state"]) => [
    factor("hrv", 0.35, hrv),
    factor("restingHeartRate", 0.2, hrv),
    factor("lastNightSleep", 0.15, sleep),
    factor("sleepDebt", 0.05, "unavailable"),
    factor("respiratoryRate", 0.075, hrv),
    factor("skinTemperature", 0.075, hrv),
    factor("spo2", 0.05, sleep),
    factor("trainingLoad", 0.05, "unavailable")
  ]

  it("a score has no reason; a null one says why, from its components", () => {
    expect(pillarCoverage("recovery", pillar(1, recovery("scored", "scored"), 71), false)).toEqual({
      score: 71,
      nullReason: null,
      factors: []
    })
    expect(pillarCoverage("recovery", pillar(0.2, recovery("calibrating", "scored")), false)).toEqual({
      score: null,
      nullReason: "calibrating",
      factors: ["hrv", "restingHeartRate", "respiratoryRate", "skinTemperature"]
    })
    expect(pillarCoverage("recovery", pillar(0.2, recovery("unavailable", "scored")), false)).toEqual({
      score: null,
      nullReason: "lowCoverage",
      factors: ["hrv", "restingHeartRate", "sleepDebt", "respiratoryRate", "skinTemperature", "trainingLoad"]
    })
    expect(pillarCoverage("recovery", pillar(0, recovery("unavailable", "unavailable")), false).nullReason).toBe(
      "noData"
    )
    // enough weight scored from other days, but nothing of the day itself
    expect(pillarCoverage("activity", pillar(0.6, [factor("activeMinutes", 0.3, "scored")]), false).nullReason).toBe(
      "noData"
    )
    expect(pillarCoverage("sleep", undefined, false).nullReason).toBe("noData")
    expect(pillarCoverage("sleep", undefined, true).nullReason).toBe("awaitingData")
  })

  it("the journal's penalty factors do not count in a pillar's coverage", () => {
    const sleep = pillar(0.15, [
      factor("duration", 0.3, "unavailable"),
      factor("regularity", 0.15, "scored"),
      factor("caffeine", 0.1, "scored")
    ])
    expect(pillarCoverage("sleep", sleep, false)).toEqual({
      score: null,
      nullReason: "lowCoverage",
      factors: ["duration"]
    })
  })
})
