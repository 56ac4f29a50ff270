/**
 * The glucose response computation against values worked out by hand on synthetic curves (baseline,
 * peak, time to peak, incremental area by trapezoids above the baseline, return to baseline), its
 * refusals (no baseline, a gap, a window not yet covered), flags, the choice between connections, and
 * properties of the area over random curves.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import type { GlucoseSource, Reading } from "../../src/insights/MealResponse.js"
import { incrementalArea, mealResponse, respond } from "../../src/insights/MealResponse.js"

const MIN = 60_000
const T = Date.parse("2026-03-02T12:00:00Z")
const late = T + 24 * 60 * MIN

/** Readings every 5 minutes from `fromMin` to `toMin` (minutes from the entry), valued by `f`. */
const curve = (fromMin: number, toMin: number, f: (minute: number) => number): Array<Reading> => {
  const out: Array<Reading> = []
  for (let m = fromMin; m <= toMin; m += 5) out.push({ t: T + m * MIN, mgDl: f(m), atLimit: false })
  return out
}

const source = (readings: Array<Reading>, connectionId = "c1"): GlucoseSource => ({
  connectionId,
  provider: "Dexcom",
  readings
})

/**
 * Flat at 100 before the entry; up 5 mg/dL every 5 minutes to 160 at 60 minutes; down as fast to 100 at
 * 120 minutes; 90 from 150 minutes on.
 */
const triangle = (m: number) =>
  m <= 0 ? 100 : m <= 60 ? 100 + m : m <= 120 ? 220 - m : m <= 150 ? 100 - (m - 120) / 3 : 90

describe("meal response", () => {
  it("a triangle curve: baseline 100, peak 160 at 60 min, rise 60, iAUC 3600 (120 x 60 / 2), back at 120 min", () => {
    const r = mealResponse({ at: T, source: source(curve(-60, 240, triangle)), others: [], now: late })
    expect(r).toEqual({
      status: "Complete",
      reason: null,
      detail: null,
      connectionId: "c1",
      provider: "Dexcom",
      baselineMgDl: 100,
      peakMgDl: 160,
      peakAt: T + 60 * MIN,
      timeToPeakMinutes: 60,
      riseMgDl: 60,
      iauc2hMgDlMin: 3600,
      returnToBaselineMinutes: 120,
      // 160 at 60 minutes and 100 at 120, against the baseline 100
      change1hMgDl: 60,
      change2hMgDl: 0,
      // above 140 from 40 to 80 minutes
      minutesAbove140: 40,
      baselineSlopeMgDlPerMin: 0,
      // from -30 to +180 minutes, every 5: 43 readings (the ones outside the window are not read)
      readingCount: 43,
      flags: [],
      overlappingEntryIds: []
    })
  })

  it("the baseline is the mean of the readings of the 30 minutes before; area below it counts nothing", () => {
    // before: 98, 100, 102, 100, 98, 100 and 102 at the entry -> mean 700 / 7 = 100
    const before = [98, 100, 102, 100, 98, 100]
    // after: up to 130 at 30 min, down to 80 at 80 min (at the baseline at 60), up to 110 at 110 min, then flat
    const f = (m: number) =>
      m < 0 ? before[(m + 30) / 5]! : m === 0 ? 102 : m <= 30 ? 100 + m : m <= 80 ? 160 - m : m <= 110 ? m : 110
    const r = mealResponse({ at: T, source: source(curve(-30, 180, f)), others: [], now: late })
    expect(r.baselineMgDl).toBe(100)
    expect(r.peakMgDl).toBe(130)
    expect(r.timeToPeakMinutes).toBe(30)
    expect(r.riseMgDl).toBe(30)
    // 0..5: from 2 to 5 above -> (2 + 5) / 2 x 5 = 17.5; 5..30: from 5 to 30 above -> (5 + 30) / 2 x 25 = 437.5;
    // 30..60: from 30 above to 0 -> 30 x 30 / 2 = 450; 60..100: at or below, 0; 100..110: 0 to 10 above -> 50;
    // 110..120: 10 above -> 100. Total 1055.
    expect(r.iauc2hMgDlMin).toBe(1055)
    // 105 at 55 minutes, 100 at 60
    expect(r.returnToBaselineMinutes).toBe(60)
  })

  it("a segment crossing the baseline between readings counts only its triangle above it", () => {
    const points = [
      { t: 0, mgDl: 90, atLimit: false },
      { t: 10 * MIN, mgDl: 110, atLimit: false },
      { t: 20 * MIN, mgDl: 90, atLimit: false }
    ]
    // crossing at 5 and 15 minutes: two triangles of 5 x 10 / 2 = 25
    expect(incrementalArea(points, 100)).toBe(50)
    expect(incrementalArea(points, 120)).toBe(0)
    // entirely above: two trapezoids (10 + 30) / 2 x 10
    expect(incrementalArea(points, 80)).toBe(400)
  })

  it("the return to baseline falls between two readings: linear between them", () => {
    // 100 before; 140 at 5..60 minutes; 110 at 65, 90 at 70: back at 65 + 10/20 x 5 = 67.5 minutes
    const f = (m: number) => m <= 0 ? 100 : m <= 60 ? 140 : m === 65 ? 110 : 90
    const r = mealResponse({ at: T, source: source(curve(-30, 180, f)), others: [], now: late })
    expect(r.returnToBaselineMinutes).toBe(67.5)
    // the first of equal peaks
    expect(r.timeToPeakMinutes).toBe(5)
    // 0..5: 0 to 40 above -> 100; 5..60: 40 x 55 = 2200; 60..65: (40 + 10) / 2 x 5 = 125; 65..70: 10 x 2.5 / 2 =
    // 12.5; after: below. Total 2437.5
    expect(r.iauc2hMgDlMin).toBe(2437.5)
  })

  it("an entry at an instant between readings: the curve is cut at the entry and 2 hours later", () => {
    // readings at -28, -23, ... (every 5 minutes, 2 minutes before the round minutes); a ramp of 1 mg/dL per minute
    const readings: Array<Reading> = []
    for (let m = -28; m <= 182; m += 5) readings.push({ t: T + m * MIN, mgDl: 100 + Math.max(0, m), atLimit: false })
    const r = mealResponse({ at: T, source: source(readings), others: [], now: late })
    // baseline: the six readings from -28 to -3 minutes, all 100
    expect(r.baselineMgDl).toBe(100)
    // peak: the last reading within 3 hours, at 177 minutes
    expect(r.peakMgDl).toBe(277)
    expect(r.timeToPeakMinutes).toBe(177)
    // the cut at 0 is linear between -3 (100) and 2 (102): 101.2; 0..2: (1.2 + 2) / 2 x 2 = 3.2; from 2 to the cut
    // at 120 (220, between 117 and 122) the ramp: (2 + 120) / 2 x 118 = 7198. Total 7201.2
    expect(r.iauc2hMgDlMin).toBe(7201.2)
    expect(r.flags).toEqual(["notBackToBaseline"])
    expect(r.returnToBaselineMinutes).toBeNull()
  })

  it("without readings before the entry there is no baseline: null figures with the reason noBaseline", () => {
    const r = mealResponse({ at: T, source: source(curve(0, 200, triangle)), others: [], now: late })
    expect(r.status).toBe("Insufficient")
    expect(r.reason).toBe("noBaseline")
    expect(r.detail).toContain("before the entry")
    expect([r.baselineMgDl, r.peakMgDl, r.riseMgDl, r.iauc2hMgDlMin, r.returnToBaselineMinutes]).toEqual([
      null,
      null,
      null,
      null,
      null
    ])
  })

  it("one reading in the 30 minutes before is not a baseline", () => {
    // one reading at -15 minutes and the next at +5: no step over 15 minutes, but a mean of one reading
    const readings = [{ t: T - 15 * MIN, mgDl: 100, atLimit: false }, ...curve(5, 200, triangle)]
    const r = mealResponse({ at: T, source: source(readings), others: [], now: late })
    expect(r.reason).toBe("noBaseline")
    expect(r.detail).toContain("at least 2")
  })

  it("a gap over 15 minutes after the entry gives null figures with the reason gap, even when all data is in", () => {
    const readings = curve(-30, 200, triangle).filter((r) => r.t < T + 40 * MIN || r.t > T + 60 * MIN)
    // 35 -> 65 minutes: 30 minutes without a reading
    for (const now of [T + 4 * 60 * MIN, late]) {
      const r = mealResponse({ at: T, source: source(readings), others: [], now })
      expect(r.status).toBe("Insufficient")
      expect(r.reason).toBe("gap")
      expect(r.detail).toBe("no reading from 2026-03-02T12:35Z to 2026-03-02T13:05Z (30 minutes)")
      expect(r.riseMgDl).toBeNull()
    }
    // 15 minutes exactly is still covered
    const fifteen = curve(-30, 200, triangle).filter((r) => r.t !== T + 40 * MIN && r.t !== T + 45 * MIN)
    expect(mealResponse({ at: T, source: source(fifteen), others: [], now: late }).status).toBe("Complete")
  })

  it("a meal too recent for its window is Pending (awaitingData), never a number from half a curve", () => {
    // readings up to 90 minutes after the entry, read 100 minutes after it
    const readings = curve(-30, 90, triangle)
    const r = mealResponse({ at: T, source: source(readings), others: [], now: T + 100 * MIN })
    expect(r.status).toBe("Pending")
    expect(r.reason).toBe("awaitingData")
    expect(r.detail).toBe("readings so far end at 2026-03-02T13:30Z; the window ends at 2026-03-02T15:00Z")
    expect(r.peakMgDl).toBeNull()
    expect(r.iauc2hMgDlMin).toBeNull()
    expect(r.readingCount).toBe(25)
    // late data may take up to 3 hours after the window; after that the missing end is a gap
    const later = mealResponse({ at: T, source: source(readings), others: [], now: T + 6 * 60 * MIN })
    expect(later.status).toBe("Insufficient")
    expect(later.reason).toBe("gap")
    // once the readings arrived, the same entry is Complete
    const arrived = mealResponse({ at: T, source: source(curve(-30, 180, triangle)), others: [], now: T + 4 * MIN })
    expect(arrived.status).toBe("Complete")
    expect(arrived.iauc2hMgDlMin).toBe(3600)
  })

  it("another entry within 30 minutes before to 3 hours after is flagged, and the response still computed", () => {
    const others = [
      { id: "snack", t: T + 90 * MIN },
      { id: "coffee-before", t: T - 20 * MIN },
      { id: "yesterday", t: T - 24 * 60 * MIN },
      { id: "dinner", t: T + 181 * MIN }
    ]
    const r = mealResponse({ at: T, source: source(curve(-30, 180, triangle)), others, now: late })
    expect(r.status).toBe("Complete")
    expect(r.riseMgDl).toBe(60)
    expect(r.flags).toEqual(["otherEntryInWindow"])
    expect(r.overlappingEntryIds).toEqual(["snack", "coffee-before"])
  })

  it("a reading at the sensor's limit is flagged; no rise and a curve that stays up are flagged", () => {
    const limit = curve(-30, 180, triangle).map((r) => r.mgDl === 160 ? { ...r, atLimit: true } : r)
    expect(mealResponse({ at: T, source: source(limit), others: [], now: late }).flags).toEqual(["sensorLimit"])

    const falling = mealResponse({
      at: T,
      source: source(curve(-30, 180, (m) => 120 - Math.max(0, m) / 10)),
      others: [],
      now: late
    })
    expect(falling.status).toBe("Complete")
    expect(falling.riseMgDl).toBe(-0.5)
    expect(falling.iauc2hMgDlMin).toBe(0)
    expect(falling.flags).toEqual(["noRise"])
    expect(falling.returnToBaselineMinutes).toBeNull()
  })

  it("of two connections the one with more readings in the window is used; none at all is null or Pending", () => {
    const full = source(curve(-30, 180, triangle), "b-full")
    const sparse = source(curve(-30, 180, triangle).filter((_, i) => i % 2 === 0), "a-sparse")
    const r = respond({ at: T, sources: [sparse, full], others: [], now: late, expectsData: true })
    expect(r?.connectionId).toBe("b-full")

    const far = source(curve(-600, -300, triangle))
    expect(respond({ at: T, sources: [far], others: [], now: late, expectsData: true })).toBeNull()
    expect(respond({ at: T, sources: [], others: [], now: T + 10 * MIN, expectsData: false })).toBeNull()
    const waiting = respond({ at: T, sources: [far], others: [], now: T + 10 * MIN, expectsData: true })
    expect(waiting).toMatchObject({
      status: "Pending",
      reason: "awaitingData",
      connectionId: null,
      provider: null,
      readingCount: 0
    })
  })
})

/** A random curve: a baseline, then values every 5 minutes from -30 to +180 minutes. */
const randomCurve = fc.array(fc.integer({ min: 40, max: 400 }), { minLength: 43, maxLength: 43 }).map((values) =>
  values.map((mgDl, i) => ({ t: T + (i * 5 - 30) * MIN, mgDl, atLimit: false }))
)

describe("meal response properties", () => {
  it.prop("the incremental area is never negative, nor more than the highest excursion over 2 hours", [
    randomCurve
  ], ([readings]) => {
    const r = mealResponse({ at: T, source: source(readings), others: [], now: late })
    expect(r.status).toBe("Complete")
    expect(r.iauc2hMgDlMin!).toBeGreaterThanOrEqual(0)
    const highest = Math.max(...readings.filter((x) => x.t >= T && x.t <= T + 120 * MIN).map((x) => x.mgDl))
    expect(r.iauc2hMgDlMin!).toBeLessThanOrEqual(Math.max(0, highest - r.baselineMgDl!) * 120 + 0.1)
  })

  it.prop(
    "shifting every value by a constant leaves the rise, the area and the times unchanged",
    [randomCurve, fc.integer({ min: -30, max: 300 })],
    ([readings, shift]) => {
      const a = mealResponse({ at: T, source: source(readings), others: [], now: late })
      const b = mealResponse({
        at: T,
        source: source(readings.map((r) => ({ ...r, mgDl: r.mgDl + shift }))),
        others: [],
        now: late
      })
      expect(Math.abs(b.riseMgDl! - a.riseMgDl!)).toBeLessThanOrEqual(0.1)
      expect(Math.abs(b.iauc2hMgDlMin! - a.iauc2hMgDlMin!)).toBeLessThanOrEqual(0.1)
      expect(Math.abs(b.baselineMgDl! - a.baselineMgDl! - shift)).toBeLessThanOrEqual(0.1)
      expect(b.timeToPeakMinutes).toBe(a.timeToPeakMinutes)
      expect(b.flags).toEqual(a.flags)
      if (a.returnToBaselineMinutes === null) expect(b.returnToBaselineMinutes).toBeNull()
      else expect(Math.abs(b.returnToBaselineMinutes! - a.returnToBaselineMinutes)).toBeLessThanOrEqual(0.1)
    }
  )

  it.prop("removing readings never turns a response with a gap into a complete one", [
    randomCurve,
    fc.integer({ min: 7, max: 38 })
  ], ([readings, at]) => {
    // drop four readings in a row after the entry (index 6 is the entry's): a 25-minute gap
    const holed = readings.filter((_, i) => i < at || i > at + 3)
    const r = mealResponse({ at: T, source: source(holed), others: [], now: late })
    expect(r.status).toBe("Insufficient")
  })
})
