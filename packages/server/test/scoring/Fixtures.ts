/**
 * Builders for scoring inputs in tests: a day with chosen readings, a run of steady baseline
 * nights, and look-ups into a daily score's factors.
 */
import type { DailyScore, PillarKey, Provider, ScoreFactor, ScoreFactorKey } from "@pulsebridge/domain"
import { addDays } from "../../src/platform/Calendar.js"
import type { NightSleep, Reading, ScoringDay, ScoringInput } from "../../src/scoring/Inputs.js"

export const reading = (value: number, source: Provider = "WHOOP"): Reading => ({ value, source })

/** A good night: 8 h asleep, 95% efficient, 20 min awake, 18% deep, 22% REM, midpoint 03:00. */
export const goodNight = (overrides: Partial<NightSleep> = {}): NightSleep => ({
  source: "WHOOP",
  asleepMinutes: 480,
  inBedMinutes: 505,
  awakeMinutes: 20,
  latencyMinutes: null,
  deepMinutes: 86,
  remMinutes: 106,
  efficiencyPercent: 95,
  midpointMinutes: 900,
  ...overrides
})

export const emptyDay = (date: string): ScoringDay => ({
  date,
  mainSleep: null,
  napMinutes: 0,
  hrvRmssdMs: null,
  restingHeartRate: null,
  respiratoryRate: null,
  skinTempCelsius: null,
  spo2Percent: null,
  steps: null,
  activeMinutes: null,
  sedentaryMinutes: null,
  activeCalories: null,
  load: null,
  intake: null
})

/** A day of a steady user: every input present, at its personal normal. */
export const steadyDay = (date: string, overrides: Partial<ScoringDay> = {}): ScoringDay => ({
  date,
  mainSleep: goodNight(),
  napMinutes: 0,
  hrvRmssdMs: reading(60),
  restingHeartRate: reading(55),
  respiratoryRate: reading(15),
  skinTempCelsius: reading(33.5),
  spo2Percent: reading(97),
  steps: reading(10_000, "Garmin"),
  activeMinutes: { moderate: 30, vigorous: 10, source: "Garmin" },
  sedentaryMinutes: reading(420, "Garmin"),
  activeCalories: reading(500, "Garmin"),
  load: reading(12),
  intake: null,
  ...overrides
})

/** `count` consecutive days ending the day before `date`, made by `make`. */
export const daysBefore = (
  date: string,
  count: number,
  make: (date: string, i: number) => ScoringDay
): Array<ScoringDay> => Array.from({ length: count }, (_, i) => make(addDays(date, i - count), i))

export const input = (days: ReadonlyArray<ScoringDay>, timezone = "UTC"): ScoringInput => ({
  timezone,
  days: [...days].sort((a, b) => a.date.localeCompare(b.date))
})

export const factor = (score: DailyScore, pillar: Exclude<PillarKey, never>, key: ScoreFactorKey): ScoreFactor => {
  const found = score.components[pillar].factors.find((f) => f.key === key)
  if (found === undefined) throw new Error(`no factor ${key} in ${pillar}`)
  return found
}

/** Small alternating noise so baselines have a spread. */
export const wobble = (i: number, amplitude: number): number => (i % 2 === 0 ? 1 : -1) * amplitude * ((i % 3) + 1) / 3
