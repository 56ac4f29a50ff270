/**
 * The Garmin simulator's synthetic sleeps, activities, HRV, pulse ox and body compositions, shaped
 * as the Health API v1.2.2 (sections 7.3, 7.4, 7.7, 7.10) and the Activity API v1.2.3 (7.1) write
 * them: seconds since the epoch in UTC, offsets in seconds, durations in seconds, grams, and fields
 * left out as real devices leave them out.
 *
 * Per account and local date, deterministic from the seed:
 * - the night's sleep ending that morning (`calendarDate` the wake day), its stages, SpO2 and
 *   breathing samples; about one night in six has no `overallSleepScore`, and a nap taken the
 *   afternoon before is listed in `naps`;
 * - zero to two activities (most days one), about one in six without heart rate;
 * - the night's HRV (`lastNightAvg`, `hrvValues`), and the day's all-day pulse ox, with now and
 *   then an on-demand spot check beside it;
 * - a body composition on the account's weigh-in day each week and on about one other day in
 *   seven; half the accounts weigh on an Index scale (every field), the others enter the weight
 *   alone.
 *
 * Each summary has the instant it is uploaded (after the night, the activity, the day or the
 * weigh-in) and the instant it is dated by (its start or measurement), which decide what a pull by
 * upload window, a push and a backfill carry.
 */
import { clamp, DAY_MS, formatDay, localMidnight, parseDay, Rng, round, sha256Hex, userTraits } from "../core/Random.js"
import { UPLOAD_POINTS } from "./Data.js"

/** The summary types served besides dailies; `path` is the pull and backfill path segment. */
export const garminSummaryTypes = {
  sleeps: { key: "sleeps", path: "sleeps", permission: "HEALTH_EXPORT", maxBackfillDays: 90 },
  activities: { key: "activities", path: "activities", permission: "ACTIVITY_EXPORT", maxBackfillDays: 30 },
  hrv: { key: "hrv", path: "hrv", permission: "HEALTH_EXPORT", maxBackfillDays: 90 },
  pulseox: { key: "pulseox", path: "pulseOx", permission: "HEALTH_EXPORT", maxBackfillDays: 90 },
  bodyComps: { key: "bodyComps", path: "bodyComps", permission: "HEALTH_EXPORT", maxBackfillDays: 90 }
} as const
export type GarminSummaryType = keyof typeof garminSummaryTypes

/** A summary with the instant it is uploaded and the instant it is dated by (both Unix seconds). */
export interface Uploaded {
  readonly summary: Record<string, unknown>
  readonly uploadAt: number
  readonly summaryAt: number
}

const traitsOf = (seed: string, userId: string) => {
  const { memberSinceDay, zone } = userTraits("garmin", userId)
  const r = new Rng("garmin-summary-traits", seed, userId)
  return {
    zone,
    memberSinceDay,
    prefix: `x${sha256Hex("garmin-summary", userId).slice(0, 7)}`,
    bedtimeMinutes: r.int(21 * 60 + 30, 23 * 60 + 45),
    sleepHours: r.float(6.2, 8.4, 2),
    hrvBase: r.int(28, 85),
    spo2Base: r.int(94, 98),
    breathsBase: r.float(12.5, 16.5, 1),
    weightGrams: r.int(52_000, 104_000),
    heightMeters: r.float(1.55, 1.95, 2),
    bodyFat: r.float(12, 34, 1),
    indexScale: r.chance(0.5),
    weighInWeekday: r.int(0, 6),
    favourites: [r.pick(activityTypes), r.pick(activityTypes), r.pick(activityTypes)],
    device: r.pick(["Forerunner 265", "fenix 8", "Venu 3", "vivoactive 5", "Instinct 2"])
  }
}

const activityTypes = [
  "RUNNING",
  "TREADMILL_RUNNING",
  "CYCLING",
  "ROAD_BIKING",
  "INDOOR_CYCLING",
  "STRENGTH_TRAINING",
  "WALKING",
  "HIKING",
  "LAP_SWIMMING",
  "YOGA",
  "HIIT",
  "INDOOR_ROWING",
  "ELLIPTICAL",
  "TENNIS"
] as const

const hex = (n: number) => Math.round(n).toString(16)
const dayStart = (day: number, offsetMinutes: number) => localMidnight(day, offsetMinutes) / 1000

/** Samples every `step` seconds over `length` seconds, as Garmin's offset -> value maps. */
const samples = (r: Rng, length: number, step: number, value: () => number): Record<string, number> => {
  const out: Record<string, number> = {}
  for (let s = 0; s <= length; s += step) out[String(s)] = r.chance(0.9) ? value() : Number.NaN
  for (const key of Object.keys(out)) if (Number.isNaN(out[key])) delete out[key]
  return out
}

/** The night's sleep ending on the morning of `day` (local), without the user fields. */
const night = (seed: string, userId: string, day: number) => {
  const t = traitsOf(seed, userId)
  const r = new Rng("garmin-sleep", seed, userId, String(day))
  const offset = t.zone.offsetMinutes * 60
  const start = dayStart(day - 1, t.zone.offsetMinutes) + (t.bedtimeMinutes + r.int(-45, 60)) * 60
  const duration = Math.round((t.sleepHours * 3600 + r.int(-75, 60) * 60) / 60) * 60
  const awake = r.int(4, 40) * 60
  const asleep = duration - awake
  const deep = Math.round(asleep * r.float(0.13, 0.24, 3))
  const rem = Math.round(asleep * r.float(0.17, 0.26, 3))
  const light = asleep - deep - rem
  const scored = !r.chance(1 / 6)
  const score = clamp(Math.round(55 + (asleep / 3600 - 5) * 9 + r.int(-8, 8)), 20, 100)
  const napR = new Rng("garmin-nap", seed, userId, String(day - 1))
  const nap = napR.chance(1 / 8)
    ? {
      napDurationInSeconds: napR.int(15, 60) * 60,
      napStartTimeInSeconds: dayStart(day - 1, t.zone.offsetMinutes) + napR.int(13 * 60, 16 * 60) * 60,
      napValidation: "DEVICE",
      napOffsetInSeconds: offset
    }
    : undefined
  return {
    start,
    duration,
    summary: {
      summaryId: `${t.prefix}-${hex(start)}`,
      calendarDate: formatDay(day),
      startTimeInSeconds: start,
      startTimeOffsetInSeconds: offset,
      durationInSeconds: duration,
      ...(nap === undefined ? {} : { totalNapDurationInSeconds: nap.napDurationInSeconds }),
      unmeasurableSleepInSeconds: 0,
      deepSleepDurationInSeconds: deep,
      lightSleepDurationInSeconds: light,
      remSleepInSeconds: rem,
      awakeDurationInSeconds: awake,
      validation: "ENHANCED_FINAL",
      timeOffsetSleepRespiration: samples(r, duration, 300, () => round(t.breathsBase + r.float(-1.5, 1.5, 2), 2)),
      timeOffsetSleepSpo2: samples(r, duration, 300, () => clamp(t.spo2Base + r.int(-3, 1), 85, 100)),
      ...(scored
        ? {
          overallSleepScore: {
            value: score,
            qualifierKey: score >= 90 ? "EXCELLENT" : score >= 80 ? "GOOD" : score >= 60 ? "FAIR" : "POOR"
          }
        }
        : {}),
      ...(nap === undefined ? {} : { naps: [nap] })
    },
    uploadAt: start + duration + r.int(10, 90) * 60
  }
}

const sleepsOf = (seed: string, userId: string, day: number): ReadonlyArray<Uploaded> => {
  const n = night(seed, userId, day)
  return [{ summary: n.summary, uploadAt: n.uploadAt, summaryAt: n.start }]
}

const hrvsOf = (seed: string, userId: string, day: number): ReadonlyArray<Uploaded> => {
  const t = traitsOf(seed, userId)
  const n = night(seed, userId, day)
  const r = new Rng("garmin-hrv", seed, userId, String(day))
  const average = clamp(t.hrvBase + r.int(-12, 12), 12, 160)
  const values = samples(r, n.duration - 300, 300, () => clamp(average + r.int(-15, 15), 5, 200))
  return [{
    summary: {
      summaryId: `${t.prefix}-${hex(n.start)}`,
      calendarDate: formatDay(day),
      lastNightAvg: average,
      lastNight5MinHigh: Math.max(average, ...Object.values(values)),
      startTimeOffsetInSeconds: t.zone.offsetMinutes * 60,
      durationInSeconds: n.duration,
      startTimeInSeconds: n.start,
      hrvValues: values
    },
    uploadAt: n.uploadAt,
    summaryAt: n.start
  }]
}

const pulseOxesOf = (seed: string, userId: string, day: number): ReadonlyArray<Uploaded> => {
  const t = traitsOf(seed, userId)
  const r = new Rng("garmin-pulseox", seed, userId, String(day))
  const start = dayStart(day, t.zone.offsetMinutes)
  const offset = t.zone.offsetMinutes * 60
  // the day's last upload, as the dailies' (`UPLOAD_POINTS`), a few minutes apart
  const dayDone = Math.floor(start + UPLOAD_POINTS[UPLOAD_POINTS.length - 1]! * 86_400) + r.int(60, 1500)
  const allDay: Uploaded = {
    summary: {
      summaryId: `${t.prefix}-${hex(start)}-spo2`,
      calendarDate: formatDay(day),
      startTimeInSeconds: start,
      durationInSeconds: 86_400,
      startTimeOffsetInSeconds: offset,
      timeOffsetSpo2Values: samples(r, 86_340, 3600, () => clamp(t.spo2Base + r.int(-2, 1), 88, 100)),
      onDemand: false
    },
    uploadAt: dayDone,
    summaryAt: start
  }
  if (!r.chance(1 / 5)) return [allDay]
  const at = r.int(9 * 3600, 20 * 3600)
  const spot: Uploaded = {
    summary: {
      summaryId: `${t.prefix}-${hex(start)}-spo2OnDemand`,
      calendarDate: formatDay(day),
      startTimeInSeconds: start,
      durationInSeconds: 0,
      startTimeOffsetInSeconds: offset,
      timeOffsetSpo2Values: { [String(at)]: clamp(t.spo2Base + r.int(-3, 1), 88, 100) },
      onDemand: true
    },
    uploadAt: start + at + r.int(60, 1800),
    summaryAt: start
  }
  return [allDay, spot]
}

const names: Readonly<Record<string, string>> = {
  RUNNING: "Run",
  TREADMILL_RUNNING: "Treadmill Run",
  CYCLING: "Ride",
  ROAD_BIKING: "Road Ride",
  INDOOR_CYCLING: "Indoor Ride",
  STRENGTH_TRAINING: "Strength",
  WALKING: "Walk",
  HIKING: "Hike",
  LAP_SWIMMING: "Pool Swim",
  YOGA: "Yoga",
  HIIT: "HIIT",
  INDOOR_ROWING: "Indoor Row",
  ELLIPTICAL: "Elliptical",
  TENNIS: "Tennis"
}

/** Speed (m/s) and cadence of the kinds that cover distance or count steps. */
const moving: Readonly<Record<string, { readonly speed: number; readonly steps: boolean }>> = {
  RUNNING: { speed: 3, steps: true },
  TREADMILL_RUNNING: { speed: 2.8, steps: true },
  CYCLING: { speed: 7, steps: false },
  ROAD_BIKING: { speed: 8, steps: false },
  INDOOR_CYCLING: { speed: 7.5, steps: false },
  WALKING: { speed: 1.4, steps: true },
  HIKING: { speed: 1.1, steps: true },
  LAP_SWIMMING: { speed: 0.7, steps: false },
  INDOOR_ROWING: { speed: 2.3, steps: false },
  ELLIPTICAL: { speed: 2, steps: false }
}

const activitiesOf = (seed: string, userId: string, day: number): ReadonlyArray<Uploaded> => {
  const t = traitsOf(seed, userId)
  const r = new Rng("garmin-activities", seed, userId, String(day))
  const count = r.chance(0.78) ? (r.chance(0.15) ? 2 : 1) : 0
  const out: Array<Uploaded> = []
  let from = 6 * 3600
  for (let i = 0; i < count; i++) {
    const type = r.chance(0.8) ? r.pick(t.favourites) : r.pick(activityTypes)
    const begin = dayStart(day, t.zone.offsetMinutes) + r.int(from, Math.max(from, 19 * 3600))
    const duration = r.int(20, 95) * 60 + r.int(0, 59)
    from = begin - dayStart(day, t.zone.offsetMinutes) + duration + 3600
    const withHeartRate = !r.chance(1 / 6)
    const average = r.int(105, 160)
    const move = moving[type]
    const distance = move === undefined ? undefined : round(duration * move.speed * r.float(0.85, 1.15, 3), 2)
    const id = 5_000_000_000 +
      parseInt(sha256Hex("garmin-activity", seed, userId, String(day), String(i)).slice(0, 8), 16)
    out.push({
      summary: {
        summaryId: String(id),
        activityId: id,
        activityType: type,
        activityName: `${r.pick(["Morning", "Lunch", "Afternoon", "Evening"])} ${names[type] ?? type}`,
        startTimeInSeconds: begin,
        startTimeOffsetInSeconds: t.zone.offsetMinutes * 60,
        durationInSeconds: duration,
        ...(distance === undefined ? {} : {
          distanceInMeters: distance,
          averageSpeedInMetersPerSecond: round(distance / duration, 3)
        }),
        activeKilocalories: Math.round(duration / 60 * r.float(5, 12, 2)),
        ...(withHeartRate
          ? {
            averageHeartRateInBeatsPerMinute: average,
            maxHeartRateInBeatsPerMinute: average + r.int(12, 35)
          }
          : {}),
        ...(move?.steps === true ? { steps: Math.round(duration * r.float(2.3, 2.9, 2)) } : {}),
        deviceName: t.device
      },
      uploadAt: begin + duration + r.int(5, 75) * 60,
      summaryAt: begin
    })
  }
  return out
}

const bodyCompsOf = (seed: string, userId: string, day: number): ReadonlyArray<Uploaded> => {
  const t = traitsOf(seed, userId)
  const r = new Rng("garmin-bodycomp", seed, userId, String(day))
  // 1970-01-01 was a Thursday: days since the epoch modulo 7 name the weekday
  if (day % 7 !== t.weighInWeekday && !r.chance(1 / 7)) return []
  const measured = dayStart(day, t.zone.offsetMinutes) + r.int(6 * 3600 + 1800, 8 * 3600)
  // a slow drift of a few hundred grams a month around the account's weight
  const weight = Math.round(t.weightGrams + Math.sin(day / 45) * 1500 + r.int(-600, 600))
  const fat = round(clamp(t.bodyFat + Math.sin(day / 45) * 1.2 + r.float(-0.5, 0.5, 1), 5, 60), 1)
  const scale = t.indexScale
    ? {
      muscleMassInGrams: Math.round(weight * (1 - fat / 100) * 0.52),
      boneMassInGrams: Math.round(weight * 0.04),
      bodyWaterInPercent: round(clamp(73 * (1 - fat / 100), 35, 75), 1),
      bodyFatInPercent: fat,
      bodyMassIndex: round(weight / 1000 / (t.heightMeters * t.heightMeters), 1)
    }
    : {}
  return [{
    summary: {
      summaryId: `${t.prefix}-${hex(measured)}-body`,
      measurementTimeInSeconds: measured,
      measurementTimeOffsetInSeconds: t.zone.offsetMinutes * 60,
      ...scale,
      weightInGrams: weight
    },
    uploadAt: measured + r.int(60, 900),
    summaryAt: measured
  }]
}

const byType: Readonly<
  Record<GarminSummaryType, (seed: string, userId: string, day: number) => ReadonlyArray<Uploaded>>
> = {
  sleeps: sleepsOf,
  activities: activitiesOf,
  hrv: hrvsOf,
  pulseox: pulseOxesOf,
  bodyComps: bodyCompsOf
}

/**
 * A type's summaries filed under a local date (the wake day of a night, the day of an activity, a
 * day's pulse ox, a weigh-in), whether uploaded yet or not; none before the account's first day.
 */
export const garminSummariesOf = (
  seed: string,
  userId: string,
  type: GarminSummaryType,
  date: string
): ReadonlyArray<Uploaded> => {
  const day = parseDay(date)
  if (day === undefined || day < traitsOf(seed, userId).memberSinceDay) return []
  return byType[type](seed, userId, day)
}

/** The summaries of a type whose `at` (upload or summary instant, Unix seconds) lies in [start, end). */
export const garminSummariesBetween = (
  seed: string,
  userId: string,
  type: GarminSummaryType,
  by: "uploadAt" | "summaryAt",
  start: number,
  end: number
): ReadonlyArray<Uploaded> => {
  const { memberSinceDay } = traitsOf(seed, userId)
  // a summary is filed within a day and a half of its instants
  const first = Math.max(memberSinceDay, Math.floor((start * 1000) / DAY_MS) - 2)
  const last = Math.floor((end * 1000) / DAY_MS) + 2
  const out: Array<Uploaded> = []
  for (let day = first; day <= last; day++) {
    for (const item of byType[type](seed, userId, day)) if (item[by] >= start && item[by] < end) out.push(item)
  }
  return out.sort((a, b) => a[by] - b[by])
}
