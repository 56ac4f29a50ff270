/**
 * Daily scores: null rather than 0 without data, renormalisation of missing factors, the 60%
 * rule, calibrating baselines (13 vs 14 nights), the illness cap, the overall score and the
 * direction of the HRV and steps factors through the whole computation.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { dailyScores, overallOf, Weights } from "../../src/scoring/Daily.js"
import type { ScoringDay } from "../../src/scoring/Inputs.js"
import { daysBefore, emptyDay, factor, goodNight, input, reading, steadyDay, wobble } from "./Fixtures.js"

const today = "2026-03-10"

const scoreOf = (days: ReadonlyArray<ScoringDay>) => {
  const scores = dailyScores(input(days), { from: today, to: today })
  expect(scores).toHaveLength(1)
  return scores[0]!
}

/** `n` steady days before today whose physiology wobbles a little around its normal. */
const history = (n: number) =>
  daysBefore(today, n, (date, i) =>
    steadyDay(date, {
      hrvRmssdMs: reading(60 * Math.exp(wobble(i, 0.08))),
      restingHeartRate: reading(55 + wobble(i, 1.5)),
      respiratoryRate: reading(15 + wobble(i, 0.3)),
      skinTempCelsius: reading(33.5 + wobble(i, 0.15))
    }))

describe("null, not zero", () => {
  it("a day without a main sleep has a null sleep score and every sleep factor unavailable", () => {
    const score = scoreOf([...history(30), steadyDay(today, { mainSleep: null })])
    expect(score.sleepScore).toBeNull()
    expect(score.components.sleep.factors.every((f) => f.state === "unavailable")).toBe(true)
    expect(score.recoveryScore).not.toBeNull()
    expect(score.activityScore).not.toBeNull()
  })

  it("a day without activity data has a null activity score even when the week before has some", () => {
    const score = scoreOf([
      ...history(30),
      steadyDay(today, { steps: null, activeMinutes: null, sedentaryMinutes: null, activeCalories: null, load: null })
    ])
    expect(score.activityScore).toBeNull()
    expect(score.sleepScore).not.toBeNull()
  })

  it("a date with no data at all is not returned", () => {
    expect(dailyScores(input(history(30)), { from: today, to: today })).toEqual([])
  })
})

describe("renormalisation and the 60% rule", () => {
  const steadyNights = daysBefore(today, 6, (date) => emptyDay(date)).map((d) => ({ ...d, mainSleep: goodNight() }))

  it("a short night with stages: duration 60, the rest 100, over the 95% available", () => {
    const score = scoreOf([...steadyNights, { ...emptyDay(today), mainSleep: goodNight({ asleepMinutes: 360 }) }])
    expect(factor(score, "sleep", "duration").subScore).toBe(60)
    expect(score.sleepScore).toBe(Math.round((0.30 * 60 + 0.65 * 100) / 0.95))
    expect(score.sleepScore).toBe(87)
  })

  it("without stages the deep and REM weights leave and the rest is renormalised", () => {
    const night = goodNight({ asleepMinutes: 360, deepMinutes: null, remMinutes: null })
    const score = scoreOf([...steadyNights, { ...emptyDay(today), mainSleep: night }])
    const sleep = score.components.sleep
    expect(factor(score, "sleep", "deepSleep").state).toBe("unavailable")
    expect(factor(score, "sleep", "remSleep").state).toBe("unavailable")
    expect(sleep.coverage).toBeCloseTo(0.75, 9)
    expect(score.sleepScore).toBe(84)
    const scoredFactors = sleep.factors.filter((f) => f.state === "scored")
    expect(scoredFactors.reduce((a, f) => a + f.effectiveWeight, 0)).toBeCloseTo(1, 3)
    expect(factor(score, "sleep", "duration").effectiveWeight).toBeCloseTo(0.30 / 0.75, 4)
    expect(factor(score, "sleep", "duration").pointsLost).toBe(16)
    expect(100 - sleep.factors.reduce((a, f) => a + f.pointsLost, 0)).toBeCloseTo(84, 0)
  })

  it("exactly 60% of the sleep weight is scored; 50% is null", () => {
    // No stages and no earlier nights: duration, efficiency, continuity and timing remain (0.60).
    const night = goodNight({ deepMinutes: null, remMinutes: null })
    const atSixty = scoreOf([{ ...emptyDay(today), mainSleep: night }])
    expect(atSixty.components.sleep.coverage).toBeCloseTo(0.6, 9)
    expect(atSixty.sleepScore).toBe(100)
    const atFifty = scoreOf([{ ...emptyDay(today), mainSleep: { ...night, awakeMinutes: null } }])
    expect(atFifty.components.sleep.coverage).toBeCloseTo(0.5, 9)
    expect(atFifty.sleepScore).toBeNull()
    expect(atFifty.components.sleep.factors.every((f) => f.pointsLost === 0 && f.effectiveWeight === 0)).toBe(true)
  })

  it("activity from steps, sedentary time and active energy alone (50%) is null; with a week of minutes it is scored", () => {
    const partial = (date: string): ScoringDay => ({
      ...emptyDay(date),
      steps: reading(9000, "Fitbit"),
      sedentaryMinutes: reading(480, "Fitbit"),
      activeCalories: reading(400, "Fitbit")
    })
    expect(scoreOf([partial(today)]).activityScore).toBeNull()
    const withMinutes = (date: string): ScoringDay => ({
      ...partial(date),
      activeMinutes: { moderate: 30, vigorous: 0, source: "Fitbit" }
    })
    const score = scoreOf([...daysBefore(today, 3, withMinutes), withMinutes(today)])
    expect(score.components.activity.coverage).toBeCloseTo(0.8, 9)
    expect(factor(score, "activity", "activeMinutes").reference).toEqual({ kind: "target", value: 85.7, days: 4 })
    expect(score.activityScore).not.toBeNull()
  })
})

describe("calibrating baselines", () => {
  const baselineKeys = ["hrv", "restingHeartRate", "respiratoryRate", "skinTemperature"] as const

  it("13 valid nights: the baseline factors are calibrating and recovery is null", () => {
    const score = scoreOf([...history(13), steadyDay(today)])
    for (const key of baselineKeys) {
      const f = factor(score, "recovery", key)
      expect(f.state, key).toBe("calibrating")
      expect(f.reference, key).toEqual({ kind: "baseline", days: 13 })
      expect(f.effectiveWeight).toBe(0)
    }
    expect(score.components.recovery.calibrating).toBe(true)
    expect(score.recoveryScore).toBeNull()
  })

  it("14 valid nights: the baseline factors are scored and recovery has a score", () => {
    const score = scoreOf([...history(14), steadyDay(today)])
    for (const key of baselineKeys) expect(factor(score, "recovery", key).state, key).toBe("scored")
    expect(factor(score, "recovery", "hrv").reference?.days).toBe(14)
    expect(score.components.recovery.calibrating).toBe(false)
    expect(score.recoveryScore).toBeGreaterThan(60)
  })

  it("a night of under 3 hours of sleep does not count towards the 14", () => {
    const days = history(14)
    days[3] = { ...days[3]!, mainSleep: goodNight({ asleepMinutes: 170 }) }
    const score = scoreOf([...days, steadyDay(today)])
    expect(factor(score, "recovery", "hrv").state).toBe("calibrating")
  })

  it("a baseline only compares values of one provider", () => {
    const fitbitRhr = daysBefore(today, 30, (date) => steadyDay(date, { restingHeartRate: reading(70, "Fitbit") }))
    const score = scoreOf([...fitbitRhr, steadyDay(today, { restingHeartRate: reading(52, "WHOOP") })])
    expect(factor(score, "recovery", "restingHeartRate").state).toBe("calibrating")
    expect(factor(score, "recovery", "restingHeartRate").source).toBe("WHOOP")
  })
})

describe("the illness cap", () => {
  it("skin temperature +1.2 °C and respiratory rate +2.5 br/min cap recovery at 33 and say why", () => {
    const score = scoreOf([
      ...history(30),
      steadyDay(today, { skinTempCelsius: reading(34.7), respiratoryRate: reading(17.5) })
    ])
    const recovery = score.components.recovery
    const uncapped = 100 - recovery.factors.reduce((a, f) => a + f.pointsLost, 0)
    expect(uncapped).toBeGreaterThan(40)
    expect(score.recoveryScore).toBe(33)
    expect(recovery.flags).toContain("possibleIllnessSignal")
  })

  it("a raised temperature with a respiratory rate only +1.5 br/min is not capped", () => {
    const score = scoreOf([
      ...history(30),
      steadyDay(today, { skinTempCelsius: reading(34.7), respiratoryRate: reading(16.5) })
    ])
    expect(score.recoveryScore).toBeGreaterThan(33)
    expect(score.components.recovery.flags).not.toContain("possibleIllnessSignal")
  })
})

describe("directions through the whole computation", () => {
  const hrvDays = history(30)
  const hrvSubScore = (ms: number) =>
    factor(scoreOf([...hrvDays, steadyDay(today, { hrvRmssdMs: reading(ms) })]), "recovery", "hrv")

  it.prop(
    "more HRV above the baseline never lowers the HRV factor, up to its cap",
    [fc.tuple(fc.double({ min: 20, max: 400, noNaN: true }), fc.double({ min: 20, max: 400, noNaN: true }))],
    ([[a, b]]) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a]
      expect(hrvSubScore(hi).subScore!).toBeGreaterThanOrEqual(hrvSubScore(lo).subScore!)
      expect(hrvSubScore(hi).subScore!).toBeLessThanOrEqual(95)
    },
    { fastCheck: { numRuns: 50 } }
  )

  it("an HRV far above the baseline is flagged, and the factor stops at 95 however high it goes", () => {
    const usual = scoreOf([...hrvDays, steadyDay(today, { hrvRmssdMs: reading(62) })])
    const veryHigh = scoreOf([...hrvDays, steadyDay(today, { hrvRmssdMs: reading(150) })])
    const extreme = scoreOf([...hrvDays, steadyDay(today, { hrvRmssdMs: reading(300) })])
    expect(usual.components.recovery.flags).not.toContain("hrvUnusuallyHigh")
    expect(veryHigh.components.recovery.flags).toContain("hrvUnusuallyHigh")
    expect(factor(veryHigh, "recovery", "hrv").subScore).toBe(95)
    expect(factor(extreme, "recovery", "hrv").subScore).toBe(95)
  })

  it("an HRV well below the baseline scores lower than a usual one", () => {
    const score = scoreOf([...hrvDays, steadyDay(today, { hrvRmssdMs: reading(30) })])
    const hrv = factor(score, "recovery", "hrv")
    expect(hrv.value).toBe(30)
    expect(hrv.reference?.kind).toBe("baseline")
    expect(hrv.subScore!).toBeLessThan(factor(scoreOf([...hrvDays, steadyDay(today)]), "recovery", "hrv").subScore!)
  })

  const stepDays = history(30)
  const activity = (steps: number) =>
    scoreOf([...stepDays, steadyDay(today, { steps: reading(steps, "Garmin") })]).components.activity

  it.prop(
    "more steps never lower the steps factor or the activity score",
    [fc.tuple(fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 0, max: 60_000 }))],
    ([[a, b]]) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a]
      const [low, high] = [activity(lo), activity(hi)]
      expect(high.factors[0]!.subScore!).toBeGreaterThanOrEqual(low.factors[0]!.subScore!)
      expect(high.score!).toBeGreaterThanOrEqual(low.score!)
    },
    { fastCheck: { numRuns: 50 } }
  )
})

describe("training load", () => {
  it("a steady load balances (ratio about 1, 100); a doubled last week raises the ratio and lowers the factor", () => {
    const steady = scoreOf([...history(40), steadyDay(today)])
    expect(factor(steady, "activity", "trainingBalance").value).toBeCloseTo(1, 2)
    expect(factor(steady, "activity", "trainingBalance").subScore).toBe(100)
    const days = history(40).map((d, i) => i >= 33 ? { ...d, load: reading(24) } : d)
    const spike = scoreOf([...days, steadyDay(today, { load: reading(24) })])
    expect(factor(spike, "activity", "trainingBalance").value!).toBeGreaterThan(1.3)
    expect(factor(spike, "activity", "trainingBalance").subScore!).toBeLessThan(100)
    expect(factor(spike, "recovery", "trainingLoad").value!).toBeGreaterThan(1.3)
  })

  it("training balance needs 21 days of load in the last 28", () => {
    expect(factor(scoreOf([...history(19), steadyDay(today)]), "activity", "trainingBalance").state).toBe("unavailable")
    expect(factor(scoreOf([...history(20), steadyDay(today)]), "activity", "trainingBalance").state).toBe("scored")
  })
})

describe("overall", () => {
  it("weights sleep 0.35, recovery 0.35, activity 0.30 over the available pillars and needs two", () => {
    expect(overallOf({ sleep: 80, recovery: 60, activity: 90 }).score).toBe(76)
    const twoPillars = overallOf({ sleep: 80, recovery: null, activity: 90 })
    expect(twoPillars.score).toBe(Math.round((0.35 * 80 + 0.30 * 90) / 0.65))
    expect(twoPillars.pillars.find((p) => p.key === "recovery")).toEqual({
      key: "recovery",
      score: null,
      weight: Weights.overall.recovery,
      effectiveWeight: 0,
      pointsLost: 0
    })
    expect(overallOf({ sleep: 80, recovery: null, activity: null }).score).toBeNull()
  })

  it("the components carry every factor of each pillar and the algorithm version", () => {
    const score = scoreOf([...history(30), steadyDay(today)])
    expect(score.components.sleep.factors.map((f) => f.key)).toEqual(Object.keys(Weights.sleep))
    expect(score.components.recovery.factors.map((f) => f.key)).toEqual(Object.keys(Weights.recovery))
    expect(score.components.activity.factors.map((f) => f.key)).toEqual(Object.keys(Weights.activity))
    expect(factor(score, "activity", "hourlyMovement").state).toBe("unavailable")
    expect(score.components.algorithmVersion).toBe("1.2")
    expect(score.overallScore).toBe(score.components.overall.score)
  })
})
