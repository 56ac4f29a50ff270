/**
 * The recovery pillar: HRV and resting heart rate against the personal baseline, last night's
 * sleep score, the week's sleep debt, respiratory rate, skin temperature, SpO2 and yesterday's
 * training load. A possible illness signal (skin temperature and respiratory rate both up) caps it.
 */
import type { PillarBreakdown, ScoreFlag, ScoreReference } from "@pulsebridge/domain"
import { MinBaselineNights, SdFloor } from "../Baselines.js"
import * as Curves from "../Curves.js"
import type { Reading, ScoringDay } from "../Inputs.js"
import type { Days } from "./Days.js"
import { baselineOf, deltaFactor } from "./Days.js"
import type { Draft } from "./Factors.js"
import { assemblePillar, calibrating, r2, scored, unavailable } from "./Factors.js"
import {
  HrvHighZ,
  IllnessCap,
  IllnessRespiratoryDelta,
  IllnessSkinTempDelta,
  MinHrvWeekNights,
  MinTrainingLoadDays,
  MinWeekNights,
  Targets,
  Weights
} from "./Parameters.js"

const hrvOf = (d: ScoringDay) => d.hrvRmssdMs
const rhrOf = (d: ScoringDay) => d.restingHeartRate
const rrOf = (d: ScoringDay) => d.respiratoryRate
const skinOf = (d: ScoringDay) => d.skinTempCelsius

const hrvFactor = (days: Days, day: number, reading: Reading | null): { draft: Draft; high: boolean } => {
  if (reading === null) return { draft: unavailable("hrv", "ms"), high: false }
  const baseline = baselineOf(days, days.seriesOf("hrv", hrvOf, Math.log), day, reading.source, SdFloor.lnHrv)
  if (baseline.days < MinBaselineNights) {
    return { draft: calibrating("hrv", reading.value, "ms", baseline.days, reading.source), high: false }
  }
  const zDay = (Math.log(reading.value) - baseline.mean) / baseline.sd
  let weekSum = 0
  let weekNights = 0
  for (let t = day - 6; t <= day; t++) {
    const d = days.get(t)
    const r = d?.hrvRmssdMs
    if (d === undefined || r === null || r === undefined || r.source !== reading.source || !days.validNight(t)) continue
    weekSum += Math.log(r.value)
    weekNights++
  }
  const subScore = weekNights >= MinHrvWeekNights ?
    0.6 * Curves.hrv(zDay) + 0.4 * Curves.hrv((weekSum / weekNights - baseline.mean) / baseline.sd) :
    Curves.hrv(zDay)
  return {
    draft: scored(
      "hrv",
      reading.value,
      "ms",
      {
        kind: "baseline",
        value: r2(Math.exp(baseline.mean)),
        low: r2(Math.exp(baseline.mean - 0.5 * baseline.sd)),
        high: r2(Math.exp(baseline.mean + 0.5 * baseline.sd)),
        days: baseline.days
      },
      subScore,
      reading.source
    ),
    high: zDay > HrvHighZ
  }
}

const sleepDebtFactor = (days: Days, day: number): Draft => {
  let deficit = 0
  let nights = 0
  for (let t = day - 6; t <= day; t++) {
    const d = days.get(t)
    const asleep = d?.mainSleep?.asleepMinutes
    if (d === undefined || asleep === undefined || asleep === null) continue
    deficit += Math.max(0, Targets.sleepNeedMinutes - asleep - d.napMinutes)
    nights++
  }
  if (nights < MinWeekNights || days.get(day)?.mainSleep == null) {
    return unavailable("sleepDebt", "h", { kind: "target", value: 0 })
  }
  const hours = 7 * deficit / nights / 60
  return scored(
    "sleepDebt",
    hours,
    "h",
    { kind: "target", value: 0, days: nights },
    Curves.piecewise(Curves.Breakpoints.sleepDebt, hours),
    days.get(day)!.mainSleep!.source
  )
}

const trainingLoadFactor = (days: Days, day: number): Draft => {
  const reference: ScoreReference = { kind: "range", low: 0.8, high: 1.3 }
  const yesterday = days.get(day - 1)?.load ?? null
  if (yesterday === null) return unavailable("trainingLoad", "ratio", reference)
  let sum = 0
  let n = 0
  for (let t = day - 29; t <= day - 2; t++) {
    const r = days.get(t)?.load
    if (r === null || r === undefined || r.source !== yesterday.source) continue
    sum += r.value
    n++
  }
  if (n < MinTrainingLoadDays || sum <= 0) return unavailable("trainingLoad", "ratio", reference)
  const ratio = yesterday.value / (sum / n)
  return scored(
    "trainingLoad",
    ratio,
    "ratio",
    { ...reference, days: n },
    Curves.piecewise(Curves.Breakpoints.trainingLoad, ratio),
    yesterday.source
  )
}

export const recoveryPillar = (days: Days, day: number, sleepScore: number | null): PillarBreakdown => {
  const d = days.get(day)
  const hrv = hrvFactor(days, day, d?.hrvRmssdMs ?? null)
  const rhr = deltaFactor(
    days,
    day,
    "restingHeartRate",
    "bpm",
    d?.restingHeartRate ?? null,
    rhrOf,
    SdFloor.restingHeartRate,
    Curves.Breakpoints.restingHeartRate
  )
  const rr = deltaFactor(
    days,
    day,
    "respiratoryRate",
    "br/min",
    d?.respiratoryRate ?? null,
    rrOf,
    SdFloor.respiratoryRate,
    Curves.Breakpoints.respiratoryRate
  )
  const skin = deltaFactor(
    days,
    day,
    "skinTemperature",
    "°C",
    d?.skinTempCelsius ?? null,
    skinOf,
    SdFloor.skinTemperature,
    Curves.Breakpoints.skinTemperature
  )
  const spo2 = d?.spo2Percent ?? null
  const drafts: Array<Draft> = [
    hrv.draft,
    rhr.draft,
    sleepScore !== null ?
      scored(
        "lastNightSleep",
        sleepScore,
        "points",
        { kind: "target", value: 88 },
        Curves.lastNightSleep(sleepScore),
        d?.mainSleep?.source ?? null
      ) :
      unavailable("lastNightSleep", "points", { kind: "target", value: 88 }),
    sleepDebtFactor(days, day),
    rr.draft,
    skin.draft,
    spo2 !== null ?
      scored(
        "spo2",
        spo2.value,
        "%",
        { kind: "range", low: 95, high: 100 },
        Curves.piecewise(Curves.Breakpoints.spo2, spo2.value),
        spo2.source
      ) :
      unavailable("spo2", "%", { kind: "range", low: 95, high: 100 }),
    trainingLoadFactor(days, day)
  ]
  const flags: Array<ScoreFlag> = []
  const ill = skin.delta !== null && rr.delta !== null && skin.delta >= IllnessSkinTempDelta &&
    rr.delta >= IllnessRespiratoryDelta
  if (ill) flags.push("possibleIllnessSignal")
  if (hrv.high) flags.push("hrvUnusuallyHigh")
  const hasData = d !== undefined &&
    (d.hrvRmssdMs !== null || d.restingHeartRate !== null || d.respiratoryRate !== null ||
      d.skinTempCelsius !== null || d.spo2Percent !== null)
  return assemblePillar(Weights.recovery, drafts, hasData, flags, ill ? IllnessCap : 100)
}
