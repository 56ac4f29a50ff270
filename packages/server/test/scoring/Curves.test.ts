/**
 * Every curve at every breakpoint of the reference tables, between them and beyond both ends,
 * and the direction of each curve as a property.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as Curves from "../../src/scoring/Curves.js"

type Table = ReadonlyArray<readonly [number, number]>

const golden: Record<keyof typeof Curves.Breakpoints, Table> = {
  sleepDuration: [[3, 0], [4, 0], [5, 30], [6, 60], [6.5, 80], [7, 100], [8, 100], [9, 100], [10, 85], [11, 72.5], [
    12,
    60
  ], [13, 60]],
  sleepEfficiency: [[60, 0], [65, 0], [80, 55], [85, 75], [90, 87.5], [95, 100], [100, 100]],
  sleepContinuity: [[10, 100], [20, 100], [30, 85], [40, 70], [60, 40], [90, 0], [120, 0]],
  sleepLatency: [[5, 100], [20, 100], [30, 75], [45, 40], [60, 0], [90, 0]],
  deepSleep: [[0, 0], [4, 25], [8, 50], [13, 90], [15, 100], [25, 100]],
  remSleep: [[0, 0], [10, 50], [14, 70], [18, 90], [20, 100], [30, 100]],
  regularity: [[10, 100], [30, 100], [60, 70], [90, 40], [120, 0], [200, 0]],
  // minutes after noon: 480 = 20:00, 720 = 00:00, 900 = 03:00, 1140 = 07:00; 25 points per hour
  timing: [[400, 0], [480, 0], [540, 25], [600, 50], [660, 75], [720, 100], [900, 100], [960, 75], [1080, 25], [
    1140,
    0
  ], [1300, 0]],
  restingHeartRate: [[-20, 80], [-15, 80], [-12.5, 90], [-10, 100], [0, 100], [1, 100], [3, 80], [5, 60], [10, 20], [
    15,
    0
  ], [20, 0]],
  sleepDebt: [[0, 100], [2, 80], [5, 50], [10, 0], [12, 0]],
  respiratoryRate: [[-5, 80], [-3, 80], [-1, 100], [0, 100], [1, 100], [2, 70], [3, 40], [4, 10], [6, 10]],
  skinTemperature: [[-3, 70], [-2, 70], [-1.5, 100], [0, 100], [0.3, 100], [0.6, 60], [1, 20], [1.5, 0], [2, 0]],
  spo2: [[85, 0], [88, 0], [90, 40], [93, 75], [95, 100], [99, 100]],
  trainingLoad: [[0, 95], [0.5, 95], [0.8, 100], [1.3, 100], [1.5, 60], [2, 20], [3, 20]],
  sedentaryTime: [[6, 100], [8, 100], [10, 60], [12, 25], [14, 0], [16, 0]],
  trainingBalance: [[0.3, 60], [0.5, 60], [0.8, 100], [1.3, 100], [1.5, 60], [2, 0], [2.5, 0]],
  caffeine: [[0, 100], [30, 100], [65, 75], [100, 50], [137.5, 35], [175, 20], [212.5, 10], [250, 0], [400, 0]],
  lateMeal: [[0, 0], [0.5, 0], [0.75, 15], [1, 30], [1.5, 50], [2, 70], [2.5, 85], [3, 100], [6, 100]]
}

describe("piecewise curves", () => {
  for (const [name, table] of Object.entries(golden)) {
    it(`${name} gives the reference score at each breakpoint, between them and beyond the ends`, () => {
      const curve = Curves.Breakpoints[name as keyof typeof Curves.Breakpoints]
      for (const [x, expected] of table) expect(Curves.piecewise(curve, x), `${name}(${x})`).toBeCloseTo(expected, 9)
    })
  }
})

describe("closed-form curves", () => {
  it("steps: 0 gives 0, half the target about 82, the target 100 and above it 100", () => {
    expect(Curves.steps(0, 8000)).toBe(0)
    expect(Curves.steps(4000, 8000)).toBeCloseTo(81.757, 2)
    expect(Curves.steps(8000, 8000)).toBeCloseTo(100, 9)
    expect(Curves.steps(20_000, 8000)).toBe(100)
  })

  it("HRV logistic: z -2 about 9.5, -0.5 exactly 50, 0 about 68, +1 about 90.5, capped at 95", () => {
    expect(Curves.hrv(-2)).toBeCloseTo(9.535, 2)
    expect(Curves.hrv(-0.5)).toBeCloseTo(50, 9)
    expect(Curves.hrv(0)).toBeCloseTo(67.918, 2)
    expect(Curves.hrv(1)).toBeCloseTo(90.465, 2)
    expect(Curves.hrv(1.5)).toBe(95)
    expect(Curves.hrv(4)).toBe(95)
  })

  it("active minutes, active calories and last night's sleep are linear to their target, then flat", () => {
    expect(Curves.activeMinutes(0, 150)).toBe(0)
    expect(Curves.activeMinutes(75, 150)).toBe(50)
    expect(Curves.activeMinutes(150, 150)).toBe(100)
    expect(Curves.activeMinutes(400, 150)).toBe(100)
    expect(Curves.activeCalories(200, 400)).toBe(50)
    expect(Curves.activeCalories(900, 400)).toBe(100)
    expect(Curves.lastNightSleep(44)).toBe(50)
    expect(Curves.lastNightSleep(88)).toBe(100)
    expect(Curves.lastNightSleep(97)).toBe(100)
  })
})

const pair = (min: number, max: number) =>
  fc.tuple(fc.double({ min, max, noNaN: true }), fc.double({ min, max, noNaN: true })).map(([a, b]) =>
    a <= b ? [a, b] as const : [b, a] as const
  )

describe("monotonicity", () => {
  it.prop("more steps never lower the steps score", [pair(0, 100_000)], ([[lo, hi]]) => {
    expect(Curves.steps(hi, 8000)).toBeGreaterThanOrEqual(Curves.steps(lo, 8000))
  })

  it.prop(
    "a higher HRV z-score never lowers the HRV score, which never exceeds its cap",
    [pair(-10, 10)],
    ([[lo, hi]]) => {
      expect(Curves.hrv(hi)).toBeGreaterThanOrEqual(Curves.hrv(lo))
      expect(Curves.hrv(hi)).toBeLessThanOrEqual(Curves.HrvCap)
    }
  )

  const rising = ["sleepEfficiency", "deepSleep", "remSleep", "spo2", "lateMeal"] as const
  const falling = ["sleepContinuity", "sleepLatency", "regularity", "sleepDebt", "sedentaryTime", "caffeine"] as const

  it.prop("curves where more is better never fall", [pair(-50, 200)], ([[lo, hi]]) => {
    for (const name of rising) {
      const curve = Curves.Breakpoints[name]
      expect(Curves.piecewise(curve, hi), name).toBeGreaterThanOrEqual(Curves.piecewise(curve, lo))
    }
  })

  it.prop("curves where less is better never rise", [pair(-50, 2000)], ([[lo, hi]]) => {
    for (const name of falling) {
      const curve = Curves.Breakpoints[name]
      expect(Curves.piecewise(curve, hi), name).toBeLessThanOrEqual(Curves.piecewise(curve, lo))
    }
  })

  it.prop("every curve stays within 0-100", [fc.double({ min: -1e6, max: 1e6, noNaN: true })], ([x]) => {
    for (const curve of Object.values(Curves.Breakpoints)) {
      const y = Curves.piecewise(curve, x)
      expect(y).toBeGreaterThanOrEqual(0)
      expect(y).toBeLessThanOrEqual(100)
    }
  })
})
