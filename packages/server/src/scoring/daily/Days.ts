/**
 * The days of one user on a dense calendar, for window look-ups by day number, and the personal
 * baselines read from them: the 60 days before a day, one provider only, valid nights only. A
 * factor scored on today's value against such a baseline is a `deltaFactor`.
 */
import type { Provider, ScoreFactorKey, ScoreReference } from "@pulsebridge/domain"
import { dayNumber } from "../../platform/Calendar.js"
import type { Baseline } from "../Baselines.js"
import { BaselineWindowDays, MinBaselineNights, MinValidNightMinutes, robustStatsOf } from "../Baselines.js"
import * as Curves from "../Curves.js"
import type { Reading, ScoringDay, ScoringInput } from "../Inputs.js"
import type { Draft } from "./Factors.js"
import { calibrating, r2, scored, unavailable } from "./Factors.js"

const identity = (v: number) => v

/** One metric as a dense series: the value (NaN when missing) and its provider per day. */
export interface Series {
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
export const baselineOf = (days: Days, series: Series, day: number, source: Provider, sdFloor: number): Baseline => {
  let n = 0
  const lo = Math.max(day - BaselineWindowDays, days.first) - days.first
  const hi = Math.min(day - days.first, series.values.length)
  for (let i = lo; i < hi; i++) {
    const v = series.values[i]!
    if (v === v && series.sources[i] === source && days.validNight(i + days.first)) windowBuffer[n++] = v
  }
  return robustStatsOf(windowBuffer, n, sdFloor)
}

export const baselineReference = (baseline: Baseline, value: number = baseline.mean): ScoreReference => ({
  kind: "baseline",
  value: r2(value),
  days: baseline.days
})

/** A factor scored on today's value minus the personal baseline of the same provider. */
export const deltaFactor = (
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
