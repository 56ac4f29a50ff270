/**
 * The Google Health API simulator's synthetic data: per-user traits (locale, stride, heart
 * rates), the day's activity the data generator makes for a Fitbit wearer (the summary of a local
 * day, kept in the legacy summary's shape so values stay the same for a seed), and that day as
 * the daily roll-up point of each data type, written as Google writes it: int64 values as
 * strings, durations as `"<seconds>s"`, a zero value left out as proto3 JSON does.
 */
import { clamp, Rng, round, userTraits } from "../core/Random.js"

// ---- synthetic data ----

const locales = ["en_US", "en_US", "en_GB", "de_DE", "fr_FR", "ja_JP"] as const

export const traitsOf = (seed: string, userId: string) => {
  const base = userTraits("fitbit", userId)
  const r = new Rng("fitbit-traits", seed, userId)
  const age = r.int(22, 65)
  return {
    ...base,
    locale: r.pick(locales),
    age,
    maxHeartRate: 220 - age,
    stepBase: r.int(5000, 11_000),
    strideMeters: r.float(0.68, 0.82, 3),
    bmr: r.int(1400, 2000),
    restingBase: r.int(52, 74),
    heightCm: r.float(155, 195, 1),
    weightKg: r.float(55, 100, 1),
    gender: r.pick(["MALE", "FEMALE"] as const)
  }
}

type Units = "en_US" | "METRIC"

const KM_PER_MILE = 1.609344
const M_PER_FOOT = 0.3048

/** The summary of a local day, `progress` (0..1) of the way through it. */
export const fitbitDailySummary = (seed: string, userId: string, date: string, progress: number, units: Units) => {
  const t = traitsOf(seed, userId)
  const r = new Rng("fitbit-day", seed, userId, date)
  const steps = clamp(Math.round(t.stepBase * (0.6 + 0.8 * r.next())), 2000, 15_000)
  const intensity = steps / 15_000
  const veryActive = clamp(Math.round(intensity * 40 + r.int(0, 20)), 0, 60)
  const fairlyActive = r.int(0, 40)
  const lightlyActive = r.int(120, 320)
  const sleep = r.int(360, 510)
  const sedentary = 1440 - sleep - veryActive - fairlyActive - lightlyActive
  const totalKm = (steps * t.strideMeters) / 1000
  const weights = { very: veryActive * 2, moderate: fairlyActive * 1.5, light: lightlyActive * 0.5 }
  const weightSum = weights.very + weights.moderate + weights.light
  const floors = r.int(0, 25)
  const activityCalories = Math.round(steps * 0.045 + veryActive * 9 + fairlyActive * 6 + lightlyActive * 2.5)
  const restingHeartRate = t.restingBase + r.int(-3, 3)
  const p = clamp(progress, 0, 1)
  const scale = (n: number) => Math.round(n * p)
  const dist = (km: number) => round(units === "en_US" ? (km * p) / KM_PER_MILE : km * p, 2)
  const caloriesBMR = scale(t.bmr)
  const activity = scale(activityCalories)
  const caloriesOut = caloriesBMR + Math.round(activity * 0.5)
  const zoneBounds = [
    30,
    Math.round(t.maxHeartRate * 0.5),
    Math.round(t.maxHeartRate * 0.7),
    Math.round(t.maxHeartRate * 0.85),
    220
  ]
  const peak = scale(Math.round(veryActive * 0.3))
  const cardio = scale(Math.round(veryActive * 0.7 + fairlyActive * 0.3))
  const fatBurn = scale(Math.round(fairlyActive * 0.7 + lightlyActive * 0.6))
  const outOfRange = scale(1440) - peak - cardio - fatBurn
  const zoneMinutes = [outOfRange, fatBurn, cardio, peak]
  const zoneRates = [1.0, 4.0, 8.0, 11.0]
  const zoneEnergy = zoneMinutes.map((m, i) => m * zoneRates[i]!)
  const energySum = zoneEnergy.reduce((a, b) => a + b, 0)
  const zoneNames = ["Out of Range", "Fat Burn", "Cardio", "Peak"]
  const hasData = p > 0
  const veryKm = weightSum === 0 ? 0 : (totalKm * weights.very) / weightSum
  const moderateKm = weightSum === 0 ? 0 : (totalKm * weights.moderate) / weightSum
  const lightKm = totalKm - veryKm - moderateKm
  return {
    activities: [],
    goals: {
      activeMinutes: 30,
      caloriesOut: t.bmr + 800,
      distance: units === "en_US" ? 5 : 8.05,
      floors: 10,
      steps: 10_000
    },
    summary: {
      activeScore: -1,
      activityCalories: activity,
      caloriesBMR,
      caloriesOut,
      distances: [
        { activity: "total", distance: dist(totalKm) },
        { activity: "tracker", distance: dist(totalKm) },
        { activity: "loggedActivities", distance: 0 },
        { activity: "veryActive", distance: dist(veryKm) },
        { activity: "moderatelyActive", distance: dist(moderateKm) },
        { activity: "lightlyActive", distance: dist(lightKm) },
        { activity: "sedentaryActive", distance: 0 }
      ],
      elevation: round(units === "en_US" ? (scale(floors) * 3.048) / M_PER_FOOT : scale(floors) * 3.048, 2),
      fairlyActiveMinutes: scale(fairlyActive),
      floors: scale(floors),
      heartRateZones: zoneNames.map((name, i) => ({
        caloriesOut: energySum === 0 ? 0 : round((caloriesOut * zoneEnergy[i]!) / energySum, 2),
        max: zoneBounds[i + 1]!,
        min: zoneBounds[i]!,
        minutes: hasData ? zoneMinutes[i]! : 0,
        name
      })),
      lightlyActiveMinutes: scale(lightlyActive),
      marginalCalories: Math.round(activity * 0.25),
      ...(hasData ? { restingHeartRate } : {}),
      sedentaryMinutes: scale(sedentary),
      steps: scale(steps),
      veryActiveMinutes: scale(veryActive)
    }
  }
}

/** A `google.type.Date`. */
export interface GoogleDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

export const googleDateOf = (date: string): GoogleDate => ({
  year: Number(date.slice(0, 4)),
  month: Number(date.slice(5, 7)),
  day: Number(date.slice(8, 10))
})

/** int64 as proto3 JSON writes it: a string, left out when zero. */
const int64 = (n: number) => (n === 0 ? undefined : String(Math.round(n)))
const withValues = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== 0))

/**
 * The roll-up value one data type contributes for a day's summary (the field name and its
 * value), or undefined for a data type this simulator has no values for.
 */
export const rollupValueOf = (
  dataType: string,
  summary: ReturnType<typeof fitbitDailySummary>["summary"]
): readonly [string, Record<string, unknown>] | undefined => {
  switch (dataType) {
    case "steps":
      return ["steps", withValues({ countSum: int64(summary.steps) })]
    case "distance":
      // kilometres, to the millimetre
      return ["distance", withValues({ millimetersSum: int64(summary.distances[0]!.distance * 1_000_000) })]
    case "floors":
      return ["floors", withValues({ countSum: int64(summary.floors) })]
    case "altitude":
      return ["altitude", withValues({ gainMillimetersSum: int64(summary.elevation * 1000) })]
    case "total-calories":
      return ["totalCalories", withValues({ kcalSum: summary.caloriesOut })]
    case "active-energy-burned":
      return ["activeEnergyBurned", withValues({ kcalSum: summary.activityCalories })]
    case "active-minutes": {
      const levels = [
        ["LIGHT", summary.lightlyActiveMinutes],
        ["MODERATE", summary.fairlyActiveMinutes],
        ["VIGOROUS", summary.veryActiveMinutes]
      ] as const
      return ["activeMinutes", {
        activeMinutesRollupByActivityLevel: levels
          .filter(([, minutes]) => minutes > 0)
          .map(([activityLevel, minutes]) => ({ activityLevel, activeMinutesSum: String(minutes) }))
      }]
    }
    case "sedentary-period":
      return [
        "sedentaryPeriod",
        withValues({ durationSum: summary.sedentaryMinutes === 0 ? undefined : `${summary.sedentaryMinutes * 60}s` })
      ]
    default:
      return undefined
  }
}

/** The sum of several days' roll-up values of one data type (a window of more than one day). */
export const sumRollupValues = (
  values: ReadonlyArray<Record<string, unknown>>
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  const levels = new Map<string, number>()
  for (const value of values) {
    for (const [key, v] of Object.entries(value)) {
      if (key === "activeMinutesRollupByActivityLevel") {
        for (const l of v as ReadonlyArray<{ activityLevel: string; activeMinutesSum: string }>) {
          levels.set(l.activityLevel, (levels.get(l.activityLevel) ?? 0) + Number(l.activeMinutesSum))
        }
      } else if (typeof v === "number") {
        out[key] = round(((out[key] as number | undefined) ?? 0) + v, 2)
      } else if (typeof v === "string" && v.endsWith("s")) {
        out[key] = `${Number(((out[key] as string | undefined) ?? "0s").slice(0, -1)) + Number(v.slice(0, -1))}s`
      } else if (typeof v === "string") {
        out[key] = String(Number((out[key] as string | undefined) ?? "0") + Number(v))
      }
    }
  }
  if (levels.size > 0 || values.some((v) => "activeMinutesRollupByActivityLevel" in v)) {
    out["activeMinutesRollupByActivityLevel"] = [...levels.entries()].map(([activityLevel, minutes]) => ({
      activityLevel,
      activeMinutesSum: String(minutes)
    }))
  }
  return out
}

/** `YYYY-MM-DD` plus whole days. */
export const addDaysTo = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
