/**
 * The Garmin simulator's synthetic data: per-user traits, the daily summary of a local day at a
 * given progress, and when each day's versions are uploaded, which decides what a pull window
 * or a push carries at the simulator's "now".
 */
import {
  clamp,
  DAY_MS,
  formatDay,
  localDayOf,
  localMidnight,
  parseDay,
  Rng,
  round,
  sha256Hex,
  userTraits
} from "../core/Random.js"
import type { GarminCore } from "./Shapes.js"

// ---- synthetic data ----

const traitsOf = (seed: string, userId: string) => {
  const base = userTraits("garmin", userId)
  const r = new Rng("garmin-traits", seed, userId)
  return {
    ...base,
    stepBase: r.int(5000, 11_000),
    strideMeters: r.float(0.68, 0.82, 3),
    bmr: r.int(1400, 2000),
    restingBase: r.int(50, 72),
    maxHeartRate: r.int(165, 195),
    stressBase: r.int(20, 50),
    summaryPrefix: `x${sha256Hex("garmin-summary", userId).slice(0, 7)}`,
    wheelchair: r.next() < 1 / 6
  }
}

/** Local times (fraction of the day) of the day's uploads; the last one completes the day after midnight. */
export const UPLOAD_POINTS = [0.25, 0.5, 0.75, 1]

/**
 * The daily summary of a local day, `progress` (0..1) of the way through it. As Garmin does, the
 * `summaryId` encodes the span covered (start and duration), so each upload of a day has its own,
 * while `startTimeInSeconds` stays the day's; about one day in four comes without `calendarDate`
 * (the Health API allows it: the date is the local date of `startTimeInSeconds +
 * startTimeOffsetInSeconds`); about one user in six is a wheelchair user, whose dailies add
 * `pushes` and `pushDistanceInMeters`.
 */
export const garminDaily = (seed: string, userId: string, date: string, progress: number) => {
  const t = traitsOf(seed, userId)
  const day = parseDay(date)!
  const r = new Rng("garmin-day", seed, userId, date)
  const p = clamp(progress, 0, 1)
  const scale = (n: number) => Math.round(n * p)
  const steps = clamp(Math.round(t.stepBase * (0.6 + 0.8 * r.next())), 2000, 15_000)
  const vigorous = r.int(0, 45) * 60
  const moderate = r.int(5, 60) * 60
  const active = vigorous + moderate + r.int(90, 240) * 60
  const activeKilocalories = Math.round(steps * 0.04 + vigorous / 60 * 9 + moderate / 60 * 5)
  const floors = r.int(0, 25)
  const resting = t.restingBase + r.int(-3, 3)
  const maxHr = clamp(t.maxHeartRate - r.int(0, 40), resting + 40, t.maxHeartRate)
  const avgHr = resting + r.int(10, 25)
  const elapsed = Math.round(86_400 * p)
  const samples: Record<string, number> = {}
  for (let s = 0; s < elapsed; s += 3600) samples[String(s)] = clamp(avgHr + r.int(-12, 25), resting - 2, maxHr)
  const stressTotal = scale(r.int(8, 14) * 3600)
  const high = Math.round(stressTotal * r.float(0.05, 0.2, 3))
  const medium = Math.round(stressTotal * r.float(0.2, 0.35, 3))
  const low = stressTotal - high - medium
  const restStress = scale(r.int(6, 9) * 3600)
  const activityStress = scale(Math.round(active * 0.6))
  const averageStress = clamp(t.stressBase + r.int(-10, 15), 1, 100)
  const start = localMidnight(day, t.zone.offsetMinutes) / 1000
  const bodyBatteryHigh = r.int(60, 100)
  const bodyBatteryLow = r.int(5, 40)
  const shape = new Rng("garmin-shape", seed, userId, date)
  const withoutDate = shape.next() < 0.25
  const pushes = t.wheelchair ? scale(shape.int(1500, 4000)) : undefined
  return {
    summaryId: `${t.summaryPrefix}-${start.toString(16)}-${elapsed.toString(16)}`,
    ...(withoutDate ? {} : { calendarDate: date }),
    activityType: "WALKING",
    activeKilocalories: scale(activeKilocalories),
    bmrKilocalories: scale(t.bmr),
    steps: scale(steps),
    distanceInMeters: round(scale(steps) * t.strideMeters, 1),
    durationInSeconds: elapsed,
    activeTimeInSeconds: scale(active),
    startTimeInSeconds: start,
    startTimeOffsetInSeconds: t.zone.offsetMinutes * 60,
    moderateIntensityDurationInSeconds: scale(moderate),
    vigorousIntensityDurationInSeconds: scale(vigorous),
    floorsClimbed: scale(floors),
    minHeartRateInBeatsPerMinute: resting - r.int(0, 4),
    averageHeartRateInBeatsPerMinute: avgHr,
    maxHeartRateInBeatsPerMinute: maxHr,
    restingHeartRateInBeatsPerMinute: resting,
    timeOffsetHeartRateSamples: samples,
    averageStressLevel: averageStress,
    maxStressLevel: clamp(averageStress + r.int(20, 50), averageStress, 100),
    stressDurationInSeconds: stressTotal,
    restStressDurationInSeconds: restStress,
    activityStressDurationInSeconds: activityStress,
    lowStressDurationInSeconds: low,
    mediumStressDurationInSeconds: medium,
    highStressDurationInSeconds: high,
    stressQualifier: averageStress < 26 ? "calm_awake" : averageStress < 51 ? "balanced" : "stressful_awake",
    stepsGoal: 7500,
    netKilocaloriesGoal: 2000,
    intensityDurationGoalInSeconds: 9000,
    floorsClimbedGoal: 10,
    bodyBatteryChargedValue: r.int(30, 80),
    bodyBatteryDrainedValue: scale(r.int(30, 80)),
    bodyBatteryHighestValue: bodyBatteryHigh,
    bodyBatteryLowestValue: bodyBatteryLow,
    bodyBatteryMostRecentValue: clamp(Math.round(bodyBatteryHigh - (bodyBatteryHigh - bodyBatteryLow) * p), 0, 100),
    ...(pushes === undefined ? {} : { pushes, pushDistanceInMeters: round(pushes * 1.9, 1) })
  }
}

export const makeGarminDays = (core: GarminCore) => {
  /** The upload instants (Unix seconds) of a local day's versions; deterministic per user and day. */
  const uploadTimes = (userId: string, day: number): ReadonlyArray<number> => {
    const { zone } = userTraits("garmin", userId)
    const r = new Rng("garmin-upload", core.seed, userId, String(day))
    const midnight = localMidnight(day, zone.offsetMinutes) / 1000
    return UPLOAD_POINTS.map((point) => Math.floor(midnight + point * 86_400 + r.int(60, 1200)))
  }

  const progressNow = (userId: string, day: number): number => {
    const { zone, memberSinceDay } = userTraits("garmin", userId)
    if (day < memberSinceDay) return 0
    return clamp((core.nowMs() - localMidnight(day, zone.offsetMinutes)) / DAY_MS, 0, 1)
  }

  const withUser = (daily: Record<string, unknown>, userId: string, uat: string | undefined) => ({
    userId,
    ...(uat === undefined ? {} : { userAccessToken: uat }),
    ...daily
  })

  const dailiesFor = (userId: string, dates: ReadonlyArray<string>) =>
    dates.flatMap((date) => {
      const day = parseDay(date)
      if (day === undefined) return []
      const progress = progressNow(userId, day)
      return progress <= 0 ? [] : [garminDaily(core.seed, userId, date, progress)]
    })

  const todayOf = (userId: string) =>
    formatDay(localDayOf(core.nowMs(), userTraits("garmin", userId).zone.offsetMinutes))

  return { uploadTimes, progressNow, withUser, dailiesFor, todayOf }
}
