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

/** Moves the k-th smallest of the first `n` values to index k (Hoare's selection), in place. */
const select = (values: Float64Array, n: number, k: number): number => {
  let lo = 0
  let hi = n - 1
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!
    let i = lo
    let j = hi
    while (i <= j) {
      while (values[i]! < pivot) i++
      while (values[j]! > pivot) j--
      if (i <= j) {
        const t = values[i]!
        values[i] = values[j]!
        values[j] = t
        i++
        j--
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else break
  }
  return values[k]!
}

/** Median of the first `n` values in linear time; reorders them. */
const median = (values: Float64Array, n: number): number => {
  const mid = n >> 1
  const upper = select(values, n, mid)
  if (n % 2 === 1) return upper
  let lower = -Infinity
  for (let i = 0; i < mid; i++) if (values[i]! > lower) lower = values[i]!
  return (lower + upper) / 2
}

let scratch = new Float64Array(BaselineWindowDays)

/**
 * Mean and sample SD of the first `n` values after winsorising at median ± 4 MAD; SD at least
 * `sdFloor`. Reorders the first `n` entries of `values`.
 */
export const robustStatsOf = (values: Float64Array, n: number, sdFloor: number): Baseline => {
  if (n === 0) return { mean: NaN, sd: NaN, days: 0 }
  const med = median(values, n)
  if (scratch.length < n) scratch = new Float64Array(n)
  for (let i = 0; i < n; i++) scratch[i] = Math.abs(values[i]! - med)
  const mad = median(scratch, n)
  const lo = med - 4 * mad
  const hi = med + 4 * mad
  let sum = 0
  for (let i = 0; i < n; i++) sum += Math.min(hi, Math.max(lo, values[i]!))
  const mean = sum / n
  let ss = 0
  for (let i = 0; i < n; i++) {
    const d = Math.min(hi, Math.max(lo, values[i]!)) - mean
    ss += d * d
  }
  const sd = n > 1 ? Math.sqrt(ss / (n - 1)) : 0
  return { mean, sd: Math.max(sd, sdFloor), days: n }
}

/** `robustStatsOf` over a list. */
export const robustStats = (values: ReadonlyArray<number>, sdFloor: number): Baseline =>
  robustStatsOf(Float64Array.from(values), values.length, sdFloor)

/** SD floors per metric, in the metric's unit (ln ms for HRV). */
export const SdFloor = {
  lnHrv: 0.05,
  restingHeartRate: 1,
  respiratoryRate: 0.3,
  skinTemperature: 0.1
} as const
