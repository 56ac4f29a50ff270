/**
 * The activity pillar: steps, the week's active minutes (vigorous count double), sedentary time,
 * the training balance (acute over chronic load) and active calories. Hourly movement needs
 * minute-level data and is never scored.
 */
import type { PillarBreakdown, Provider, ScoreReference } from "@pulsebridge/domain"
import { BaselineWindowDays } from "../Baselines.js"
import * as Curves from "../Curves.js"
import type { Days } from "./Days.js"
import type { Draft } from "./Factors.js"
import { assemblePillar, r1, scored, unavailable } from "./Factors.js"
import { MinActiveMinuteDays, MinTrainingBalanceDays, Targets, Weights } from "./Parameters.js"

const EwmaAcute = 2 / (7 + 1)
const EwmaChronic = 2 / (28 + 1)

const trainingBalanceFactor = (days: Days, day: number): Draft => {
  const reference: ScoreReference = { kind: "range", low: 0.8, high: 1.3 }
  const today = days.get(day)?.load ?? null
  if (today === null) return unavailable("trainingBalance", "ratio", reference)
  let recent = 0
  let acute = NaN
  let chronic = NaN
  for (let t = day - BaselineWindowDays + 1; t <= day; t++) {
    const r = days.get(t)?.load
    if (r === null || r === undefined || r.source !== today.source) continue
    if (t > day - 28) recent++
    if (Number.isNaN(acute)) {
      acute = r.value
      chronic = r.value
    } else {
      acute = EwmaAcute * r.value + (1 - EwmaAcute) * acute
      chronic = EwmaChronic * r.value + (1 - EwmaChronic) * chronic
    }
  }
  if (recent < MinTrainingBalanceDays || !(chronic > 0)) return unavailable("trainingBalance", "ratio", reference)
  const ratio = acute / chronic
  return scored(
    "trainingBalance",
    ratio,
    "ratio",
    { ...reference, days: recent },
    Curves.piecewise(Curves.Breakpoints.trainingBalance, ratio),
    today.source
  )
}

const activeMinutesFactor = (days: Days, day: number): Draft => {
  let equivalent = 0
  let n = 0
  let source: Provider | null = null
  for (let t = day - 6; t <= day; t++) {
    const m = days.get(t)?.activeMinutes
    if (m === null || m === undefined) continue
    equivalent += m.moderate + 2 * m.vigorous
    n++
    source = m.source
  }
  if (n < MinActiveMinuteDays) {
    return unavailable("activeMinutes", "min", { kind: "target", value: Targets.weeklyActiveMinutes })
  }
  const target = Targets.weeklyActiveMinutes * n / 7
  return scored(
    "activeMinutes",
    equivalent,
    "min",
    { kind: "target", value: r1(target), days: n },
    Curves.activeMinutes(equivalent, target),
    source
  )
}

export const activityPillar = (days: Days, day: number): PillarBreakdown => {
  const d = days.get(day)
  const steps = d?.steps ?? null
  const sedentary = d?.sedentaryMinutes ?? null
  const kcal = d?.activeCalories ?? null
  const drafts: Array<Draft> = [
    steps !== null ?
      scored(
        "steps",
        steps.value,
        "steps",
        { kind: "target", value: Targets.steps },
        Curves.steps(steps.value, Targets.steps),
        steps.source
      ) :
      unavailable("steps", "steps", { kind: "target", value: Targets.steps }),
    activeMinutesFactor(days, day),
    sedentary !== null ?
      scored(
        "sedentaryTime",
        sedentary.value / 60,
        "h",
        { kind: "target", value: 8 },
        Curves.piecewise(Curves.Breakpoints.sedentaryTime, sedentary.value / 60),
        sedentary.source
      ) :
      unavailable("sedentaryTime", "h", { kind: "target", value: 8 }),
    // Needs minute-level data, which no provider sends us.
    unavailable("hourlyMovement", "bouts", { kind: "target", value: 1 }),
    trainingBalanceFactor(days, day),
    kcal !== null ?
      scored(
        "activeCalories",
        kcal.value,
        "kcal",
        { kind: "target", value: Targets.activeCalories },
        Curves.activeCalories(kcal.value, Targets.activeCalories),
        kcal.source
      ) :
      unavailable("activeCalories", "kcal", { kind: "target", value: Targets.activeCalories })
  ]
  const hasData = d !== undefined &&
    (d.steps !== null || d.activeMinutes !== null || d.sedentaryMinutes !== null || d.activeCalories !== null ||
      d.load !== null)
  return assemblePillar(Weights.activity, drafts, hasData)
}
