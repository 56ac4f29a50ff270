/**
 * Robust baselines: winsorising at median ± 4 MAD keeps one wild night from moving the mean,
 * and the SD floor keeps a very steady baseline from inflating z-scores.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { robustStats } from "../../src/scoring/Baselines.js"

describe("robust baselines", () => {
  it("plain values give their mean and sample SD", () => {
    const b = robustStats([50, 52, 54, 56, 58], 0)
    expect(b.mean).toBe(54)
    expect(b.sd).toBeCloseTo(Math.sqrt(10), 9)
    expect(b.days).toBe(5)
  })

  it("an outlier is pulled in to median + 4 MAD before the mean", () => {
    // median 54, MAD 2: the 200 counts as 62.
    const b = robustStats([50, 52, 54, 56, 58, 54, 200], 0)
    expect(b.mean).toBeCloseTo((50 + 52 + 54 + 56 + 58 + 54 + 62) / 7, 9)
  })

  it("an even count takes the middle two for the median", () => {
    // median 53, MAD 2 (deviations 3, 1, 1, 3): 100 counts as 61.
    expect(robustStats([50, 52, 54, 100], 0).mean).toBeCloseTo((50 + 52 + 54 + 61) / 4, 9)
  })

  it("a flat baseline has the SD floor", () => {
    expect(robustStats([55, 55, 55, 55], 1).sd).toBe(1)
  })

  it.prop("the mean lies between the smallest and the largest value, whatever their order", [
    fc.array(fc.double({ min: 1, max: 300, noNaN: true }), { minLength: 1, maxLength: 60 })
  ], ([values]) => {
    const b = robustStats(values, 0)
    expect(b.mean).toBeGreaterThanOrEqual(Math.min(...values) - 1e-9)
    expect(b.mean).toBeLessThanOrEqual(Math.max(...values) + 1e-9)
    expect(robustStats([...values].reverse(), 0).mean).toBeCloseTo(b.mean, 9)
  })
})
