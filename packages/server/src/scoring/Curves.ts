/**
 * The curves that turn one measurement into a 0-100 factor score. Most are piecewise-linear
 * over documented breakpoints and clamped at both ends; steps use a saturating exponential and
 * HRV a logistic curve over a z-score. The breakpoints are part of the algorithm version: a
 * change here is a new `AlgorithmVersion`.
 */

/** `[x, score]` pairs in increasing x. */
export type Breakpoints = ReadonlyArray<readonly [x: number, score: number]>

/** Linear interpolation between breakpoints, flat beyond the first and the last. */
export const piecewise = (points: Breakpoints, x: number): number => {
  const first = points[0]!
  if (x <= first[0]) return first[1]
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = points[i]!
    if (x <= x1) {
      const [x0, y0] = points[i - 1]!
      return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    }
  }
  return points[points.length - 1]![1]
}

export const Breakpoints = {
  /** Main-sleep total sleep time, hours: 7-9 h is the adult recommendation. */
  sleepDuration: [[4, 0], [6, 60], [7, 100], [9, 100], [10, 85], [12, 60]],
  /** Time asleep over time in bed, %. */
  sleepEfficiency: [[65, 0], [80, 55], [85, 75], [95, 100]],
  /** Wake after sleep onset, minutes. */
  sleepContinuity: [[20, 100], [40, 70], [60, 40], [90, 0]],
  /** Sleep onset latency, minutes. */
  sleepLatency: [[20, 100], [30, 75], [45, 40], [60, 0]],
  /** Deep sleep, % of total sleep time. */
  deepSleep: [[0, 0], [8, 50], [13, 90], [15, 100]],
  /** REM sleep, % of total sleep time. */
  remSleep: [[0, 0], [10, 50], [18, 90], [20, 100]],
  /** Standard deviation of the sleep midpoint over 7 nights, minutes. */
  regularity: [[30, 100], [60, 70], [90, 40], [120, 0]],
  /**
   * Sleep midpoint as minutes after the local noon before it (720 = 00:00, 900 = 03:00):
   * full marks from 00:00 to 03:00, 25 points less per hour outside.
   */
  timing: [[480, 0], [720, 100], [900, 100], [1140, 0]],
  /** Resting heart rate minus its baseline, bpm. */
  restingHeartRate: [[-15, 80], [-10, 100], [1, 100], [3, 80], [5, 60], [10, 20], [15, 0]],
  /** Seven-night sleep debt, hours. */
  sleepDebt: [[0, 100], [2, 80], [5, 50], [10, 0]],
  /** Respiratory rate minus its baseline, breaths/min. */
  respiratoryRate: [[-3, 80], [-1, 100], [1, 100], [2, 70], [3, 40], [4, 10]],
  /** Skin temperature minus its baseline, °C. */
  skinTemperature: [[-2, 70], [-1.5, 100], [0.3, 100], [0.6, 60], [1, 20], [1.5, 0]],
  /** Mean overnight SpO2, %. */
  spo2: [[88, 0], [90, 40], [93, 75], [95, 100]],
  /** Yesterday's load over the 28-day mean load. */
  trainingLoad: [[0.5, 95], [0.8, 100], [1.3, 100], [1.5, 60], [2, 20]],
  /** Waking sedentary time, hours. */
  sedentaryTime: [[8, 100], [10, 60], [12, 25], [14, 0]],
  /** Acute (7-day) over chronic (28-day) exponentially weighted load. */
  trainingBalance: [[0.5, 60], [0.8, 100], [1.3, 100], [1.5, 60], [2, 0]],
  /**
   * Caffeine still active at sleep onset, mg. 30 mg is about what a 107 mg coffee 8.8 h before bed
   * leaves (the meta-analysis's limit for no loss of sleep time); 175 mg what 400 mg 6 h before bed
   * leaves (which cost over an hour of sleep).
   */
  caffeine: [[30, 100], [100, 50], [175, 20], [250, 0]],
  /** Hours from the last meal to sleep onset: 3 h or more is full credit. */
  lateMeal: [[0.5, 0], [1, 30], [2, 70], [3, 100]]
} as const satisfies Record<string, Breakpoints>

/**
 * Caffeine left after `hours` of exponential elimination with a half-life of `halfLifeHours`:
 * `mg x 2^(-hours / halfLife)`.
 */
export const caffeineRemaining = (mg: number, hours: number, halfLifeHours: number): number =>
  mg * Math.pow(2, -hours / halfLifeHours)

/** Full marks from 88 on: a good night counts fully towards recovery. */
export const lastNightSleep = (sleepScore: number): number => Math.min(100, 100 * sleepScore / 88)

/** Saturating curve: 0 steps 0, half the target about 82, the target 100. */
export const steps = (count: number, target: number): number =>
  Math.min(100, Math.max(0, 100 * (1 - Math.exp(-3 * count / target)) / (1 - Math.exp(-3))))

/** Moderate + 2 x vigorous minutes against the (prorated) weekly target; no penalty above it. */
export const activeMinutes = (equivalentMinutes: number, target: number): number =>
  Math.min(100, Math.max(0, 100 * equivalentMinutes / target))

/** Active energy against its target. */
export const activeCalories = (kcal: number, target: number): number => Math.min(100, Math.max(0, 100 * kcal / target))

/** The HRV score never exceeds this: an unusually high HRV is not rewarded further. */
export const HrvCap = 95

/**
 * Logistic over the z-score of ln rMSSD against the 60-day baseline: z -0.5 (the lower edge of
 * the normal band) gives 50, z 0 about 68, z +1 about 90; capped at 95.
 */
export const hrv = (z: number): number => Math.min(HrvCap, 100 / (1 + Math.exp(-1.5 * (z + 0.5))))
