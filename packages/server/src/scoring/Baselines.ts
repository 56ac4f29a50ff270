/**
 * Personal baselines: robust mean and spread of one metric over the 60 nights before a day,
 * from one provider only. Nights of under 3 hours of sleep do not count, values are winsorised
 * at median ± 4 MAD, and the spread has a floor so a very steady baseline does not turn small
 * changes into large z-scores.
 */

export const BaselineWindowDays = 60
/** Baseline factors are `calibrating` until this many valid nights exist in the window. */
export const MinBaselineNights = 14
/** Nights with less sleep than this are left out of baselines. */
export const MinValidNightMinutes = 180

export interface Baseline {
  readonly mean: number
  readonly sd: number
  /** Valid nights (or days) in the window. */
  readonly days: number
}

const median = (sorted: ReadonlyArray<number>): number => {
  const n = sorted.length
  const mid = n >> 1
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Mean and sample SD after winsorising at median ± 4 MAD; SD at least `sdFloor`. */
export const robustStats = (values: ReadonlyArray<number>, sdFloor: number): Baseline => {
  const n = values.length
  if (n === 0) return { mean: NaN, sd: NaN, days: 0 }
  const sorted = [...values].sort((a, b) => a - b)
  const med = median(sorted)
  const mad = median(sorted.map((v) => Math.abs(v - med)).sort((a, b) => a - b))
  const lo = med - 4 * mad
  const hi = med + 4 * mad
  let sum = 0
  for (const v of values) sum += Math.min(hi, Math.max(lo, v))
  const mean = sum / n
  let ss = 0
  for (const v of values) {
    const d = Math.min(hi, Math.max(lo, v)) - mean
    ss += d * d
  }
  const sd = n > 1 ? Math.sqrt(ss / (n - 1)) : 0
  return { mean, sd: Math.max(sd, sdFloor), days: n }
}

/** SD floors per metric, in the metric's unit (ln ms for HRV). */
export const SdFloor = {
  lnHrv: 0.05,
  restingHeartRate: 1,
  respiratoryRate: 0.3,
  skinTemperature: 0.1
} as const
