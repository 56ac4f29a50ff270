/**
 * Daily scores: the sleep, recovery and activity pillars of one local day, each a weighted mean
 * of its factors, and the overall score over the pillars. Pure functions over a `ScoringInput`.
 *
 * A factor without data is `unavailable` and a factor whose personal baseline has fewer than 14
 * valid nights is `calibrating`; both leave the score and the remaining weights are
 * renormalised. A pillar with under 60% of its weight scored, or without any data of its own
 * that day, is null; values are never imputed.
 */
import type {
  PillarBreakdown,
  PillarContribution,
  PillarKey,
  Provider,
  ScoreFactor,
  ScoreFactorKey,
  ScoreFlag,
  ScoreReference
} from "@pulsebridge/domain"
import { DailyScore } from "@pulsebridge/domain"
import type { Baseline } from "./Baselines.js"
import { BaselineWindowDays, MinBaselineNights, MinValidNightMinutes, robustStatsOf, SdFloor } from "./Baselines.js"
import { dateOf, dayNumber } from "./Calendar.js"
import * as Curves from "./Curves.js"
import type { Reading, ScoringDay, ScoringInput } from "./Inputs.js"

export const AlgorithmVersion = "1.0"

export const Weights = {
  sleep: {
    duration: 0.30,
    efficiency: 0.15,
    continuity: 0.10,
    latency: 0.05,
    deepSleep: 0.10,
    remSleep: 0.10,
    regularity: 0.15,
    timing: 0.05
  },
  recovery: {
    hrv: 0.35,
    restingHeartRate: 0.20,
    lastNightSleep: 0.15,
    sleepDebt: 0.05,
    respiratoryRate: 0.075,
    skinTemperature: 0.075,
    spo2: 0.05,
    trainingLoad: 0.05
  },
  activity: {
    steps: 0.25,
    activeMinutes: 0.30,
    sedentaryTime: 0.15,
    hourlyMovement: 0.05,
    trainingBalance: 0.15,
    activeCalories: 0.10
  },
  overall: { sleep: 0.35, recovery: 0.35, activity: 0.30 }
} as const

export const Targets = {
  steps: 8000,
  /** WHO: 150 minutes of moderate activity a week, vigorous minutes count double. */
  weeklyActiveMinutes: 150,
  activeCalories: 400,
  /** The sleep debt counts each night's sleep (naps included) short of this. */
  sleepNeedMinutes: 420
} as const

/** A pillar needs this share of its weight scored. */
export const MinCoverage = 0.6
/** Recovery is capped here on a possible illness signal. */
export const IllnessCap = 33
export const IllnessSkinTempDelta = 1.0
export const IllnessRespiratoryDelta = 2
/** HRV more than this many SD over baseline is flagged. */
export const HrvHighZ = 2
/** Nights (of 7) needed for the 7-day HRV mean, sleep regularity and sleep debt. */
export const MinHrvWeekNights = 3
export const MinWeekNights = 5
/** Days (of 7) of activity needed for the weekly active-minutes factor. */
export const MinActiveMinuteDays = 4
/** Days with load in the last 28 needed for the training balance. */
export const MinTrainingBalanceDays = 21
/** Days with load in the 28 before yesterday needed for the recovery training-load factor. */
export const MinTrainingLoadDays = 14

// ---- factors ----

interface Draft {
  readonly key: ScoreFactorKey
  readonly value: number | null
  readonly unit: string
  readonly reference: ScoreReference | null
  readonly subScore: number | null
  readonly state: ScoreFactor["state"]
  readonly source: Provider | null
}

const r1 = (x: number): number => Math.round(x * 10) / 10
const r2 = (x: number): number => Math.round(x * 100) / 100
const r4 = (x: number): number => Math.round(x * 10_000) / 10_000

const scored = (
  key: ScoreFactorKey,
  value: number,
  unit: string,
  reference: ScoreReference | null,
  subScore: number,
  source: Provider | null
): Draft => ({ key, value, unit, reference, subScore, state: "scored", source })

const unavailable = (key: ScoreFactorKey, unit: string, reference: ScoreReference | null = null): Draft => ({
  key,
  value: null,
  unit,
  reference,
  subScore: null,
  state: "unavailable",
  source: null
})

const calibrating = (key: ScoreFactorKey, value: number, unit: string, days: number, source: Provider): Draft => ({
  key,
  value,
  unit,
  reference: { kind: "baseline", days },
  subScore: null,
  state: "calibrating",
  source
})

/** Weighted mean over the scored factors, or null under `MinCoverage` or without data of the day. */
export const assemblePillar = (
  weights: Readonly<Record<string, number>>,
  drafts: ReadonlyArray<Draft>,
  hasDataOfTheDay: boolean,
  flags: ReadonlyArray<ScoreFlag> = [],
  cap = 100
): PillarBreakdown => {
  let available = 0
  let total = 0
  let sum = 0
  for (const d of drafts) {
    const w = weights[d.key]!
    total += w
    if (d.state === "scored") {
      available += w
      sum += w * d.subScore!
    }
  }
  const coverage = total > 0 ? available / total : 0
  const score = hasDataOfTheDay && coverage >= MinCoverage - 1e-9 ? Math.round(Math.min(cap, sum / available)) : null
  return {
    score,
    coverage: r4(coverage),
    calibrating: drafts.some((d) => d.state === "calibrating"),
    flags: score === null ? [] : flags,
    factors: drafts.map((d): ScoreFactor => {
      const effectiveWeight = score !== null && d.state === "scored" ? weights[d.key]! / available : 0
      return {
        key: d.key,
        value: d.value === null ? null : r2(d.value),
        unit: d.unit,
        reference: d.reference,
        subScore: d.subScore === null ? null : r1(d.subScore),
        weight: weights[d.key]!,
        effectiveWeight: r4(effectiveWeight),
        pointsLost: r1(effectiveWeight * (100 - (d.subScore ?? 100))),
        state: d.state,
        source: d.source
      }
    })
  }
}

// ---- the days of one user ----

/** One metric as a dense series: the value (NaN when missing) and its provider per day. */
interface Series {
  readonly values: Float64Array
  readonly sources: Array<Provider | undefined>
}

/** The input's days on a dense calendar, for window look-ups by day number. */
export class Days {
  readonly first: number
  private readonly byDay: Array<ScoringDay | undefined>
  /** 1 where the night counts for baselines: no main sleep known, or one of 3 hours or more. */
  private readonly validNights: Uint8Array
  private readonly series = new Map<string, Series>()
  constructor(input: ScoringInput) {
    const numbers = input.days.map((d) => dayNumber(d.date))
    this.first = numbers.length > 0 ? Math.min(...numbers) : 0
    this.byDay = []
    input.days.forEach((d, i) => {
      this.byDay[numbers[i]! - this.first] = d
    })
    this.validNights = new Uint8Array(this.byDay.length)
    this.byDay.forEach((d, i) => {
      const asleep = d?.mainSleep?.asleepMinutes
      this.validNights[i] = asleep === undefined || asleep === null || asleep >= MinValidNightMinutes ? 1 : 0
    })
  }
  get(day: number): ScoringDay | undefined {
    return day < this.first ? undefined : this.byDay[day - this.first]
  }
  validNight(day: number): boolean {
    return this.validNights[day - this.first] === 1
  }
  /** The dense series of `metric` (values passed through `transform`), built once. */
  seriesOf(key: string, metric: (d: ScoringDay) => Reading | null, transform: (v: number) => number): Series {
    let s = this.series.get(key)
    if (s === undefined) {
      const values = new Float64Array(this.byDay.length).fill(NaN)
      const sources: Array<Provider | undefined> = new Array(this.byDay.length)
      this.byDay.forEach((d, i) => {
        const r = d === undefined ? null : metric(d)
        if (r === null) return
        values[i] = transform(r.value)
        sources[i] = r.source
      })
      s = { values, sources }
      this.series.set(key, s)
    }
    return s
  }
}

const windowBuffer = new Float64Array(BaselineWindowDays)

/** Baseline of a series over the 60 days before `day`, from `source` only, valid nights only. */
const baselineOf = (days: Days, series: Series, day: number, source: Provider, sdFloor: number): Baseline => {
  let n = 0
  const lo = Math.max(day - BaselineWindowDays, days.first) - days.first
  const hi = Math.min(day - days.first, series.values.length)
  for (let i = lo; i < hi; i++) {
    const v = series.values[i]!
    if (v === v && series.sources[i] === source && days.validNight(i + days.first)) windowBuffer[n++] = v
  }
  return robustStatsOf(windowBuffer, n, sdFloor)
}

const baselineReference = (baseline: Baseline, value: number = baseline.mean): ScoreReference => ({
  kind: "baseline",
  value: r2(value),
  days: baseline.days
})

/** A factor scored on today's value minus the personal baseline of the same provider. */
const deltaFactor = (
  days: Days,
  day: number,
  key: ScoreFactorKey,
  unit: string,
  reading: Reading | null,
  metric: (d: ScoringDay) => Reading | null,
  sdFloor: number,
  curve: Curves.Breakpoints
): { draft: Draft; delta: number | null } => {
  if (reading === null) return { draft: unavailable(key, unit), delta: null }
  const baseline = baselineOf(days, days.seriesOf(key, metric, identity), day, reading.source, sdFloor)
  if (baseline.days < MinBaselineNights) {
    return { draft: calibrating(key, reading.value, unit, baseline.days, reading.source), delta: null }
  }
  const delta = reading.value - baseline.mean
  return {
    draft: scored(
      key,
      reading.value,
      unit,
      baselineReference(baseline),
      Curves.piecewise(curve, delta),
      reading.source
    ),
    delta
  }
}

// ---- sleep ----

export const sleepPillar = (days: Days, day: number): PillarBreakdown => {
  const night = days.get(day)?.mainSleep ?? null
  const drafts: Array<Draft> = []
  const asleep = night?.asleepMinutes ?? null
  const src = night?.source ?? null

  drafts.push(
    asleep !== null ?
      scored(
        "duration",
        asleep / 60,
        "h",
        { kind: "range", low: 7, high: 9 },
        Curves.piecewise(Curves.Breakpoints.sleepDuration, asleep / 60),
        src
      ) :
      unavailable("duration", "h", { kind: "range", low: 7, high: 9 })
  )
  const efficiency = night?.efficiencyPercent ?? null
  drafts.push(
    efficiency !== null ?
      scored(
        "efficiency",
        efficiency,
        "%",
        { kind: "target", value: 95 },
        Curves.piecewise(Curves.Breakpoints.sleepEfficiency, efficiency),
        src
      ) :
      unavailable("efficiency", "%", { kind: "target", value: 95 })
  )
  const awake = night?.awakeMinutes ?? null
  drafts.push(
    awake !== null ?
      scored(
        "continuity",
        awake,
        "min",
        { kind: "target", value: 20 },
        Curves.piecewise(Curves.Breakpoints.sleepContinuity, awake),
        src
      ) :
      unavailable("continuity", "min", { kind: "target", value: 20 })
  )
  const latency = night?.latencyMinutes ?? null
  drafts.push(
    latency !== null ?
      scored(
        "latency",
        latency,
        "min",
        { kind: "target", value: 20 },
        Curves.piecewise(Curves.Breakpoints.sleepLatency, latency),
        src
      ) :
      unavailable("latency", "min", { kind: "target", value: 20 })
  )
  const deep = night !== null && night.deepMinutes !== null && asleep !== null && asleep > 0 ?
    100 * night.deepMinutes / asleep :
    null
  drafts.push(
    deep !== null ?
      scored(
        "deepSleep",
        deep,
        "%",
        { kind: "target", value: 15 },
        Curves.piecewise(Curves.Breakpoints.deepSleep, deep),
        src
      ) :
      unavailable("deepSleep", "%", { kind: "target", value: 15 })
  )
  const rem = night !== null && night.remMinutes !== null && asleep !== null && asleep > 0 ?
    100 * night.remMinutes / asleep :
    null
  drafts.push(
    rem !== null ?
      scored(
        "remSleep",
        rem,
        "%",
        { kind: "target", value: 20 },
        Curves.piecewise(Curves.Breakpoints.remSleep, rem),
        src
      ) :
      unavailable("remSleep", "%", { kind: "target", value: 20 })
  )

  // Regularity: spread of the sleep midpoint over the last 7 nights.
  const midpoints: Array<number> = []
  for (let t = day - 6; t <= day; t++) {
    const m = days.get(t)?.mainSleep?.midpointMinutes
    if (m !== undefined) midpoints.push(m)
  }
  if (night !== null && midpoints.length >= MinWeekNights) {
    const mean = midpoints.reduce((a, b) => a + b, 0) / midpoints.length
    const sd = Math.sqrt(midpoints.reduce((a, m) => a + (m - mean) ** 2, 0) / (midpoints.length - 1))
    drafts.push(
      scored(
        "regularity",
        sd,
        "min",
        { kind: "target", value: 30, days: midpoints.length },
        Curves.piecewise(Curves.Breakpoints.regularity, sd),
        src
      )
    )
  } else {
    drafts.push(unavailable("regularity", "min", { kind: "target", value: 30 }))
  }

  drafts.push(
    night !== null ?
      scored(
        "timing",
        (night.midpointMinutes - 720) / 60,
        "h from midnight",
        { kind: "range", low: 0, high: 3 },
        Curves.piecewise(Curves.Breakpoints.timing, night.midpointMinutes),
        src
      ) :
      unavailable("timing", "h from midnight", { kind: "range", low: 0, high: 3 })
  )
  return assemblePillar(Weights.sleep, drafts, night !== null)
}

// ---- recovery ----

const identity = (v: number) => v
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

// ---- activity ----

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

// ---- overall ----

/** Weighted mean of the available pillars; null with fewer than two. */
export const overallOf = (
  scores: Readonly<Record<PillarKey, number | null>>
): { score: number | null; pillars: ReadonlyArray<PillarContribution> } => {
  const keys: ReadonlyArray<PillarKey> = ["sleep", "recovery", "activity"]
  let available = 0
  let sum = 0
  let count = 0
  for (const key of keys) {
    const s = scores[key]
    if (s === null) continue
    available += Weights.overall[key]
    sum += Weights.overall[key] * s
    count++
  }
  const score = count >= 2 ? Math.round(sum / available) : null
  return {
    score,
    pillars: keys.map((key) => {
      const s = scores[key]
      const effectiveWeight = score !== null && s !== null ? Weights.overall[key] / available : 0
      return {
        key,
        score: s,
        weight: Weights.overall[key],
        effectiveWeight: r4(effectiveWeight),
        pointsLost: r1(effectiveWeight * (100 - (s ?? 100)))
      }
    })
  }
}

export const scoreDay = (days: Days, day: number): DailyScore => {
  const sleep = sleepPillar(days, day)
  const recovery = recoveryPillar(days, day, sleep.score)
  const activity = activityPillar(days, day)
  const overall = overallOf({ sleep: sleep.score, recovery: recovery.score, activity: activity.score })
  return new DailyScore({
    date: dateOf(day),
    sleepScore: sleep.score,
    activityScore: activity.score,
    recoveryScore: recovery.score,
    overallScore: overall.score,
    components: { sleep, activity, recovery, overall, algorithmVersion: AlgorithmVersion }
  }, true)
}

/**
 * Daily scores of the dates in `from`..`to` (inclusive) that have any data, in increasing
 * date order. The input should hold `LookbackDays` of data before `from` for the baselines.
 */
export const dailyScores = (
  input: ScoringInput,
  range: { readonly from: string; readonly to: string }
): Array<DailyScore> => {
  const days = new Days(input)
  const from = dayNumber(range.from)
  const to = dayNumber(range.to)
  const out: Array<DailyScore> = []
  for (const d of input.days) {
    const day = dayNumber(d.date)
    if (day >= from && day <= to) out.push(scoreDay(days, day))
  }
  return out
}
