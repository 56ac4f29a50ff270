/**
 * Synthetic users for the health scores: deterministic canonical rows (WHOOP sleep, recovery and
 * cycles; Fitbit or Garmin daily activity) over any number of days, for persona tests and the
 * scoring benchmark. Each persona is a set of daily means with day-to-day noise; `ill` adds a
 * fever-like episode.
 */
import { Rng } from "@pulsebridge/sandbox/core/Random"
import type { ScoringRows } from "@pulsebridge/server/scoring"

export interface DayProfile {
  /** Total sleep of the main sleep, hours. */
  readonly sleepHours: number
  /** Local (UTC) clock hour of the sleep midpoint, may exceed 24 (27 = 03:00). */
  readonly midpointHour: number
  /** Noise of the midpoint, hours (SD). */
  readonly midpointJitter: number
  readonly awakeMinutes: number
  readonly deepShare: number
  readonly remShare: number
  readonly hrvMs: number
  readonly restingHeartRate: number
  readonly respiratoryRate: number
  readonly skinTempCelsius: number
  readonly spo2Percent: number
  readonly strain: number
  readonly steps: number
  readonly moderateMinutes: number
  readonly vigorousMinutes: number
  readonly sedentaryHours: number
  readonly activeCalories: number
}

export interface Persona {
  readonly name: string
  readonly activityProvider: "Fitbit" | "Garmin"
  /** Chance that a night's WHOOP data (sleep, recovery, cycle) is missing. */
  readonly missingNight: number
  /** Chance that a day's activity summary is missing. */
  readonly missingDay: number
  readonly profile: (dayIndex: number, days: number) => DayProfile
}

const base: DayProfile = {
  sleepHours: 7.6,
  midpointHour: 27.2,
  midpointJitter: 0.3,
  awakeMinutes: 30,
  deepShare: 0.17,
  remShare: 0.21,
  hrvMs: 60,
  restingHeartRate: 56,
  respiratoryRate: 15,
  skinTempCelsius: 33.6,
  spo2Percent: 96.5,
  strain: 11,
  steps: 9000,
  moderateMinutes: 25,
  vigorousMinutes: 8,
  sedentaryHours: 9,
  activeCalories: 450
}

export const Personas = {
  wellRestedAthlete: {
    name: "well-rested athlete",
    activityProvider: "Garmin",
    missingNight: 0,
    missingDay: 0,
    profile: () => ({
      ...base,
      sleepHours: 8.2,
      midpointHour: 27,
      midpointJitter: 0.2,
      awakeMinutes: 22,
      deepShare: 0.19,
      remShare: 0.23,
      hrvMs: 95,
      restingHeartRate: 46,
      spo2Percent: 97.5,
      strain: 14,
      steps: 13_000,
      moderateMinutes: 35,
      vigorousMinutes: 30,
      sedentaryHours: 7.5,
      activeCalories: 850
    })
  },
  sleepDeprived: {
    name: "sleep-deprived",
    activityProvider: "Fitbit",
    missingNight: 0,
    missingDay: 0,
    profile: () => ({
      ...base,
      sleepHours: 5.3,
      midpointHour: 28.2,
      midpointJitter: 1.3,
      awakeMinutes: 55,
      deepShare: 0.11,
      remShare: 0.15,
      hrvMs: 42,
      restingHeartRate: 63,
      strain: 9,
      steps: 7000,
      moderateMinutes: 12,
      vigorousMinutes: 3,
      sedentaryHours: 11,
      activeCalories: 330
    })
  },
  ill: {
    name: "ill for 3 days",
    activityProvider: "Fitbit",
    missingNight: 0,
    missingDay: 0,
    profile: (i, days) => {
      const sick = i >= days - 10 && i < days - 7
      return sick ?
        {
          ...base,
          sleepHours: 8.8,
          awakeMinutes: 75,
          midpointJitter: 0.6,
          hrvMs: 38,
          restingHeartRate: 65,
          respiratoryRate: 18.2,
          skinTempCelsius: 35,
          spo2Percent: 94.5,
          strain: 4,
          steps: 1500,
          moderateMinutes: 0,
          vigorousMinutes: 0,
          sedentaryHours: 13,
          activeCalories: 90
        } :
        base
    }
  },
  sedentary: {
    name: "sedentary",
    activityProvider: "Fitbit",
    missingNight: 0,
    missingDay: 0,
    profile: () => ({
      ...base,
      sleepHours: 7.2,
      hrvMs: 45,
      restingHeartRate: 66,
      strain: 5,
      steps: 2600,
      moderateMinutes: 2,
      vigorousMinutes: 0,
      sedentaryHours: 12.8,
      activeCalories: 110
    })
  },
  sparseData: {
    name: "sparse data",
    activityProvider: "Fitbit",
    missingNight: 0.55,
    missingDay: 0.6,
    profile: () => base
  }
} as const satisfies Record<string, Persona>

const Hour = 3_600_000

/** Local dates `start`, `start + 1`, ... as `YYYY-MM-DD`. */
const dateAt = (start: string, offset: number): string =>
  new Date(Date.parse(`${start}T00:00:00Z`) + offset * 24 * Hour).toISOString().slice(0, 10)

const gauss = (rng: Rng): number => {
  const u = 1 - rng.next()
  const v = rng.next()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

const round = (x: number, decimals = 0): number => {
  const f = 10 ** decimals
  return Math.round(x * f) / f
}

/** `days` days of canonical rows for `persona`, the first dated `start`, in the UTC time zone. */
export const personaRows = (persona: Persona, start: string, days: number, seed = "scores"): ScoringRows => {
  const rows = { dailyActivity: [], dailyLoad: [], sleep: [], recovery: [], workouts: [], journal: [] } as {
    -readonly [K in keyof ScoringRows]: Array<ScoringRows[K][number]>
  }
  for (let i = 0; i < days; i++) {
    const date = dateAt(start, i)
    const p = persona.profile(i, days)
    const rng = new Rng(seed, persona.name, date)
    const n = () => gauss(rng)
    if (!rng.chance(persona.missingNight)) {
      const asleep = Math.max(120, p.sleepHours * 60 + 25 * n())
      const awake = Math.max(5, p.awakeMinutes + 6 * n())
      const deep = asleep * Math.max(0.02, p.deepShare + 0.015 * n())
      const rem = asleep * Math.max(0.02, p.remShare + 0.02 * n())
      const inBed = asleep + awake
      const midpoint = Date.parse(`${date}T00:00:00Z`) + (p.midpointHour - 24 + p.midpointJitter * n()) * Hour
      rows.sleep.push({
        provider: "WHOOP",
        date,
        start: new Date(midpoint - inBed / 2 * 60_000),
        end: new Date(midpoint + inBed / 2 * 60_000),
        nap: false,
        inBedMinutes: round(inBed),
        asleepMinutes: null,
        latencyMinutes: null,
        awakeMinutes: round(awake),
        lightMinutes: round(asleep - deep - rem),
        deepMinutes: round(deep),
        remMinutes: round(rem),
        respiratoryRate: round(p.respiratoryRate + 0.3 * n(), 1),
        efficiencyPercent: null
      })
      rows.recovery.push({
        provider: "WHOOP",
        date,
        restingHeartRate: round(p.restingHeartRate + 1.5 * n()),
        hrvRmssdMs: round(p.hrvMs * Math.exp(0.1 * n()), 1),
        spo2Percent: round(Math.min(100, p.spo2Percent + 0.6 * n()), 1),
        respiratoryRate: null,
        skinTempCelsius: round(p.skinTempCelsius + 0.15 * n(), 2),
        skinTemperatureDeviationCelsius: null
      })
      rows.dailyLoad.push({
        provider: "WHOOP",
        date,
        loadScore: round(Math.max(0, Math.min(21, p.strain + 2 * n())), 1)
      })
    }
    if (!rng.chance(persona.missingDay)) {
      const moderate = Math.max(0, round(p.moderateMinutes * (1 + 0.3 * n())))
      const vigorous = Math.max(0, round(p.vigorousMinutes * (1 + 0.3 * n())))
      const light = Math.max(0, round(200 + 30 * n()))
      rows.dailyActivity.push({
        provider: persona.activityProvider,
        date,
        steps: Math.max(0, round(p.steps * (1 + 0.2 * n()))),
        activeCalories: Math.max(0, round(p.activeCalories * (1 + 0.2 * n()))),
        lightActiveMinutes: light,
        moderateActiveMinutes: moderate,
        vigorousActiveMinutes: vigorous,
        sedentaryMinutes: Math.max(0, round(p.sedentaryHours * 60 + 40 * n())),
        restingHeartRate: round(p.restingHeartRate + 3 + 2 * n())
      })
    }
  }
  return rows
}
