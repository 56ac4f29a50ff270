/**
 * The glucose statistics, pure, against values worked out by hand: five readings of 60, 100, 140, 180 and
 * 260 mg/dL have a mean of 148, a population variance of 4,736 (SD 68.8, CV 46.5%), a GMI of
 * 3.31 + 0.02392 x 148 = 6.85%, and 20% low, 60% in range, 20% very high. A range's statistics, combined from
 * its days' sums, equal those of all its readings.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConnectionId } from "@pulsebridge/domain"
import type { GlucoseSums } from "../../src/healthData/GlucoseSummaries.js"
import { addSums, glucoseStats, summarise } from "../../src/healthData/GlucoseSummaries.js"

const sumsOf = (values: ReadonlyArray<number>): GlucoseSums => ({
  readings: values.length,
  sum: values.reduce((a, b) => a + b, 0),
  sumOfSquares: values.reduce((a, b) => a + b * b, 0),
  min: Math.min(...values),
  max: Math.max(...values),
  veryLow: values.filter((v) => v < 54).length,
  low: values.filter((v) => v >= 54 && v < 70).length,
  inRange: values.filter((v) => v >= 70 && v <= 180).length,
  high: values.filter((v) => v > 180 && v <= 250).length,
  veryHigh: values.filter((v) => v > 250).length
})

describe("glucose statistics", () => {
  it("match the hand-computed values of five readings", () => {
    expect({ ...glucoseStats(sumsOf([60, 100, 140, 180, 260]), 1) }).toEqual({
      readings: 5,
      coveragePercent: 1.7,
      meanMgDl: 148,
      sdMgDl: 68.8,
      cvPercent: 46.5,
      minMgDl: 60,
      maxMgDl: 260,
      gmiPercent: 6.9,
      timeInRanges: { veryLow: 0, low: 20, inRange: 60, high: 0, veryHigh: 20 }
    })
  })

  it("are 0 spread for identical readings and cap coverage at 100%", () => {
    const stats = glucoseStats(sumsOf(Array.from({ length: 300 }, () => 101.3)), 1)
    expect(stats).toMatchObject({ sdMgDl: 0, cvPercent: 0, coveragePercent: 100, meanMgDl: 101.3 })
  })

  it("combine days into the statistics of all their readings", () => {
    const day1 = [52, 65, 90, 120, 150, 190, 240, 300]
    const day2 = [80, 85, 95, 110, 400, 40]
    expect(glucoseStats(addSums([sumsOf(day1), sumsOf(day2)]), 2)).toEqual(glucoseStats(sumsOf([...day1, ...day2]), 2))
  })

  it("summarise a range per connection over the range and per day", () => {
    const row = (connectionId: string, date: string, values: ReadonlyArray<number>) => ({
      connectionId: ConnectionId.make(connectionId),
      provider: "Dexcom",
      date,
      ...sumsOf(values)
    })
    const a = "00000000-0000-4000-8000-00000000000a"
    const b = "00000000-0000-4000-8000-00000000000b"
    const rows = [row(a, "2026-03-01", [100, 120]), row(b, "2026-03-01", [200]), row(a, "2026-03-03", [80])]
    const summary = summarise("2026-03-01", "2026-03-04", rows)
    expect(summary).toMatchObject({ from: "2026-03-01", to: "2026-03-04", continueFrom: null, unit: "mg/dL" })
    expect(summary.days.map((d) => [d.date, d.connectionId, d.stats.meanMgDl])).toEqual([
      ["2026-03-01", a, 110],
      ["2026-03-01", b, 200],
      ["2026-03-03", a, 80]
    ])
    expect(summary.connections.map((c) => [c.connectionId, c.days, c.stats.meanMgDl, c.stats.readings])).toEqual([
      [a, 2, 100, 3],
      [b, 1, 200, 1]
    ])
    // Four days of the range: 3 readings of 4 x 288 slots.
    expect(summary.connections[0]!.stats.coveragePercent).toBe(0.3)
  })
})
