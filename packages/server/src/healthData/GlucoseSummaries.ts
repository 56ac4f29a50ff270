/**
 * Glucose of a range of days as summaries, never as the raw readings: for each connection and day, and for
 * each connection over the whole range, the mean, spread, extremes, the glucose management indicator and
 * time in ranges (the international consensus bands). The database aggregates each day
 * (`HealthDataRepo.glucoseDays`); a range's statistics are combined from its days' sums here, so they
 * equal those of the readings themselves. Read by the MCP server's glucose tool.
 */
import type { UserId } from "@pulsebridge/domain"
import { dayNumber, GlucoseConnectionSummary, GlucoseDay, GlucoseStats, GlucoseSummary } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import { traced } from "../platform/Traced.js"
import type { GlucoseDayRow } from "./HealthDataRepo.js"
import { HealthDataRepo } from "./HealthDataRepo.js"

/** mg/dL per mmol/L of glucose (molar mass 180.16 g/mol). */
export const MgDlPerMmolL = 18.016

/** A CGM's five-minute slots in a day. */
const SlotsPerDay = 288

export const TargetRange = { lowMgDl: 70, highMgDl: 180 } as const

/** The sums one or more days' readings add up to. */
export type GlucoseSums = Omit<GlucoseDayRow, "connectionId" | "provider" | "date">

const round1 = (x: number) => Math.round(x * 10) / 10

const percent = (part: number, whole: number) => round1((part / whole) * 100)

/** The days' sums added up. */
export const addSums = (rows: ReadonlyArray<GlucoseSums>): GlucoseSums =>
  rows.reduce((a, b) => ({
    readings: a.readings + b.readings,
    sum: a.sum + b.sum,
    sumOfSquares: a.sumOfSquares + b.sumOfSquares,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    veryLow: a.veryLow + b.veryLow,
    low: a.low + b.low,
    inRange: a.inRange + b.inRange,
    high: a.high + b.high,
    veryHigh: a.veryHigh + b.veryHigh
  }))

/** The statistics of readings with these sums (at least one reading), spread over `days` days. */
export const glucoseStats = (sums: GlucoseSums, days: number): GlucoseStats => {
  const n = sums.readings
  const mean = sums.sum / n
  // The population variance from the sums; rounding can leave it a hair below zero for identical readings.
  const sd = Math.sqrt(Math.max(0, sums.sumOfSquares / n - mean * mean))
  return new GlucoseStats({
    readings: n,
    coveragePercent: Math.min(100, percent(n, SlotsPerDay * days)),
    meanMgDl: round1(mean),
    sdMgDl: round1(sd),
    cvPercent: percent(sd, mean),
    minMgDl: round1(sums.min),
    maxMgDl: round1(sums.max),
    gmiPercent: round1(3.31 + 0.02392 * mean),
    timeInRanges: {
      veryLow: percent(sums.veryLow, n),
      low: percent(sums.low, n),
      inRange: percent(sums.inRange, n),
      high: percent(sums.high, n),
      veryHigh: percent(sums.veryHigh, n)
    }
  }, true)
}

/** The summary of a range from its days' rows (sorted by date, then provider). */
export const summarise = (from: string, to: string, rows: ReadonlyArray<GlucoseDayRow>): GlucoseSummary => {
  const rangeDays = dayNumber(to) - dayNumber(from) + 1
  const byConnection = new Map<string, Array<GlucoseDayRow>>()
  for (const row of rows) {
    const list = byConnection.get(row.connectionId) ?? []
    list.push(row)
    byConnection.set(row.connectionId, list)
  }
  const connections = [...byConnection.values()].map((list) =>
    new GlucoseConnectionSummary({
      connectionId: list[0]!.connectionId,
      provider: list[0]!.provider,
      days: list.length,
      stats: glucoseStats(addSums(list), rangeDays)
    }, true)
  )
  return new GlucoseSummary({
    from,
    to,
    continueFrom: null,
    partialDay: null,
    unit: "mg/dL",
    targetRange: TargetRange,
    connections,
    days: rows.map((row) =>
      new GlucoseDay({
        date: row.date,
        connectionId: row.connectionId,
        provider: row.provider,
        stats: glucoseStats(row, 1)
      }, true)
    )
  }, true)
}

export class GlucoseSummaries extends Effect.Service<GlucoseSummaries>()("@pulsebridge/server/GlucoseSummaries", {
  effect: Effect.gen(function*() {
    const repo = yield* HealthDataRepo
    return {
      /** The user's glucose of the days `from` to `to` (the device's own days), of connections not disconnected. */
      range: traced("GlucoseSummaries.range")(function*(userId: UserId, from: string, to: string) {
        return summarise(from, to, yield* repo.glucoseDays(userId, from, to, MgDlPerMmolL))
      })
    } as const
  }),
  dependencies: [HealthDataRepo.Default]
}) {}
