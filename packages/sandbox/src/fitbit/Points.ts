/**
 * The simulator's raw data points (`dataPoints` list) besides daily activity, deterministic from the seed, the
 * user and the civil day, written as the Google Health API writes them (`health:v4` `DataPoint`): a `sleep` every
 * night (a nap some afternoons), an `exercise` most days, the five daily metrics most mornings, a `weight` at least
 * weekly (with `body-fat` from a smart scale some of the time). As a real account's data, some are missing or
 * partial: a night without stages (classic sleep), a workout without heart rate, a morning without SpO2, a
 * temperature baseline of `"NaN"` while the 30 nights are being learnt. int64 values are strings, durations and
 * UTC offsets `"<seconds>s"`, zero values left out.
 */
import { formatDay, localMidnight, parseDay, Rng, round, sha256Hex, userTraits } from "../core/Random.js"
import { googleDateOf, traitsOf } from "./Data.js"

/** A point as listed, with the instant it is ordered by (Google lists newest first, by interval start). */
export interface ListedPoint {
  readonly sortMs: number
  readonly point: Record<string, unknown>
}

const seconds = (ms: number) => `${Math.round(ms / 1000)}s`
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z")
const civil = (ms: number, offsetMinutes: number) => {
  const local = new Date(ms + offsetMinutes * 60_000)
  return {
    date: googleDateOf(local.toISOString().slice(0, 10)),
    time: { hours: local.getUTCHours(), minutes: local.getUTCMinutes() }
  }
}

/** A session or observation interval as Google writes it, at the user's fixed offset. */
const interval = (start: number, end: number, offsetMinutes: number) => ({
  startTime: iso(start),
  startUtcOffset: `${offsetMinutes * 60}s`,
  endTime: iso(end),
  endUtcOffset: `${offsetMinutes * 60}s`,
  civilStartTime: civil(start, offsetMinutes),
  civilEndTime: civil(end, offsetMinutes)
})

const pointName = (userId: string, dataType: string, ...key: ReadonlyArray<string>) =>
  `users/${userId}/dataTypes/${dataType}/dataPoints/${BigInt(`0x${sha256Hex(dataType, userId, ...key).slice(0, 15)}`)}`

const dataSource = { platform: "FITBIT", recordingMethod: "PASSIVELY_MEASURED", device: { formFactor: "FITNESS_BAND" } }

/** The sleeps that end on the civil day `date`: the night into it, and some days an afternoon nap. */
export const sleepPointsOf = (seed: string, userId: string, date: string): ReadonlyArray<ListedPoint> => {
  const day = parseDay(date)!
  const { zone } = userTraits("fitbit", userId)
  const r = new Rng("fitbit-sleep", seed, userId, date)
  const midnight = localMidnight(day, zone.offsetMinutes)
  const start = midnight - r.int(30, 150) * 60_000
  const end = midnight + r.int(330, 480) * 60_000
  const out: Array<ListedPoint> = []
  const total = Math.round((end - start) / 60_000)
  // about one night in eight is recorded without stages (classic sleep: too short a read, a loose band)
  const classic = r.chance(0.12)
  const latency = r.int(4, 25)
  const awake = r.int(15, 60)
  const asleep = total - awake
  const deep = Math.round(asleep * r.float(0.12, 0.22, 3))
  const rem = Math.round(asleep * r.float(0.18, 0.26, 3))
  const light = asleep - deep - rem
  const stages: Array<{ type: string; startTime: string; endTime: string }> = []
  if (!classic) {
    // awake while falling asleep, then light, deep, light, REM cycles, the rest of the awake time at the end
    const plan: ReadonlyArray<readonly [string, number]> = [
      ["AWAKE", latency],
      ["LIGHT", Math.round(light / 2)],
      ["DEEP", deep],
      ["LIGHT", light - Math.round(light / 2)],
      ["REM", rem],
      ["AWAKE", awake - latency]
    ]
    let at = start
    for (const [type, minutes] of plan) {
      if (minutes <= 0) continue
      stages.push({ type, startTime: iso(at), endTime: iso(at + minutes * 60_000) })
      at += minutes * 60_000
    }
  }
  const stagesSummary = classic
    ? [{ type: "ASLEEP", minutes: String(asleep), count: String(r.int(3, 9)) }, {
      type: "AWAKE",
      minutes: String(awake),
      count: String(r.int(1, 6))
    }]
    : [["AWAKE", awake], ["LIGHT", light], ["DEEP", deep], ["REM", rem]].map(([type, minutes]) => ({
      type,
      minutes: String(minutes),
      count: String(r.int(2, 12))
    }))
  out.push({
    sortMs: start,
    point: {
      name: pointName(userId, "sleep", date, "night"),
      dataSource,
      sleep: {
        interval: interval(start, end, zone.offsetMinutes),
        type: classic ? "CLASSIC" : "STAGES",
        metadata: { nap: false, main: true, processed: true, stagesStatus: classic ? "REJECTED" : "SUCCEEDED" },
        ...(classic ? {} : { stages }),
        summary: {
          minutesAsleep: String(asleep),
          minutesAwake: String(awake),
          minutesInSleepPeriod: String(total),
          // some nights Google leaves the restlessness figures out
          ...(r.chance(0.85) ? { minutesToFallAsleep: String(latency), minutesAfterWakeUp: String(r.int(0, 8)) } : {}),
          stagesSummary
        },
        createTime: iso(end + 20 * 60_000),
        updateTime: iso(end + 20 * 60_000)
      }
    }
  })
  if (r.chance(0.15)) {
    const napStart = midnight + r.int(13 * 60, 16 * 60) * 60_000
    const napMinutes = r.int(20, 75)
    const napEnd = napStart + napMinutes * 60_000
    out.push({
      sortMs: napStart,
      point: {
        name: pointName(userId, "sleep", date, "nap"),
        dataSource,
        sleep: {
          interval: interval(napStart, napEnd, zone.offsetMinutes),
          type: "CLASSIC",
          // naps are sleeps without stages and of short duration
          metadata: { nap: true, main: false, processed: true },
          summary: {
            minutesAsleep: String(napMinutes - 3),
            minutesAwake: "3",
            minutesInSleepPeriod: String(napMinutes),
            stagesSummary: [{ type: "ASLEEP", minutes: String(napMinutes - 3), count: "1" }]
          }
        }
      }
    })
  }
  return out
}

const exercises = [
  ["RUNNING", "Run"],
  ["WALKING", "Walk"],
  ["BIKING", "Bike"],
  ["STRENGTH_TRAINING", "Weights"],
  ["YOGA", "Yoga"],
  ["HIIT", "HIIT"],
  ["SWIMMING", "Swim"],
  ["HIKING", "Hike"]
] as const

/** The exercise that starts on the civil day `date`, most days (about three in four). */
export const exercisePointsOf = (seed: string, userId: string, date: string): ReadonlyArray<ListedPoint> => {
  const r = new Rng("fitbit-exercise", seed, userId, date)
  if (!r.chance(0.75)) return []
  const { zone } = userTraits("fitbit", userId)
  const t = traitsOf(seed, userId)
  const [exerciseType, displayName] = r.pick(exercises)
  const start = localMidnight(parseDay(date)!, zone.offsetMinutes) + r.int(6 * 60, 19 * 60) * 60_000
  const minutes = r.int(20, 75)
  const paused = r.chance(0.3) ? r.int(1, 6) : 0
  const end = start + (minutes + paused) * 60_000
  const moving = ["RUNNING", "WALKING", "BIKING", "HIKING", "SWIMMING"].includes(exerciseType)
  const speed = { RUNNING: 2.8, WALKING: 1.4, BIKING: 6, HIKING: 1.2, SWIMMING: 0.6 }[exerciseType as string] ?? 0
  // a workout logged by hand or with the band off carries no heart rate
  const withHeartRate = r.chance(0.85)
  const averageHeartRate = Math.round(t.maxHeartRate * r.float(0.55, 0.82, 2))
  const light = r.int(0, minutes / 3)
  const moderate = r.int(0, minutes / 3)
  const vigorous = Math.max(0, minutes - light - moderate - r.int(0, 5))
  return [{
    sortMs: start,
    point: {
      name: pointName(userId, "exercise", date),
      dataSource: { ...dataSource, recordingMethod: r.chance(0.8) ? "ACTIVELY_RECORDED" : "MANUAL" },
      exercise: {
        interval: interval(start, end, zone.offsetMinutes),
        exerciseType,
        displayName,
        activeDuration: `${minutes * 60}s`,
        metricsSummary: {
          caloriesKcal: round(minutes * r.float(5, 11, 2), 1),
          ...(moving ? { distanceMillimeters: Math.round(speed * minutes * 60 * 1000 * r.float(0.85, 1.15, 3)) } : {}),
          ...(exerciseType === "RUNNING" || exerciseType === "WALKING" || exerciseType === "HIKING"
            ? { steps: String(Math.round(minutes * r.int(95, 170))) }
            : {}),
          ...(withHeartRate
            ? {
              averageHeartRateBeatsPerMinute: String(averageHeartRate),
              activeZoneMinutes: String(moderate + 2 * vigorous),
              heartRateZoneDurations: {
                lightTime: seconds(light * 60_000),
                moderateTime: seconds(moderate * 60_000),
                vigorousTime: seconds(vigorous * 60_000)
              }
            }
            : {})
        },
        exerciseMetadata: { hasGps: moving && r.chance(0.6) },
        createTime: iso(end + 5 * 60_000),
        updateTime: iso(end + 5 * 60_000)
      }
    }
  }]
}

/** The daily data types the simulator lists, and the field of each. */
export const dailyFields = {
  "daily-resting-heart-rate": "dailyRestingHeartRate",
  "daily-heart-rate-variability": "dailyHeartRateVariability",
  "daily-oxygen-saturation": "dailyOxygenSaturation",
  "daily-respiratory-rate": "dailyRespiratoryRate",
  "daily-sleep-temperature-derivations": "dailySleepTemperatureDerivations"
} as const

/** The morning's value of one daily metric, or nothing when the night gave none. */
export const dailyPointOf = (
  seed: string,
  userId: string,
  dataType: keyof typeof dailyFields,
  date: string
): ListedPoint | undefined => {
  const r = new Rng("fitbit-daily", seed, userId, date, dataType)
  const t = traitsOf(seed, userId)
  const { memberSinceDay, zone } = userTraits("fitbit", userId)
  const day = parseDay(date)!
  const gDate = googleDateOf(date)
  let value: Record<string, unknown>
  switch (dataType) {
    case "daily-resting-heart-rate":
      // computed from the whole day's heart rate: present whenever the band was worn
      value = {
        date: gDate,
        beatsPerMinute: String(t.restingBase + r.int(-3, 3)),
        dailyRestingHeartRateMetadata: { calculationMethod: "WITH_SLEEP" }
      }
      break
    case "daily-heart-rate-variability":
      if (r.chance(0.08)) return undefined
      value = {
        date: gDate,
        averageHeartRateVariabilityMilliseconds: round(r.float(22, 75, 2) + (70 - t.restingBase) / 2, 2),
        nonRemHeartRateBeatsPerMinute: String(t.restingBase + r.int(-2, 4)),
        ...(r.chance(0.8) ? { deepSleepRootMeanSquareOfSuccessiveDifferencesMilliseconds: r.float(25, 90, 2) } : {})
      }
      break
    case "daily-oxygen-saturation": {
      // SpO2 needs a supported band and a still night: missing more often
      if (r.chance(0.2)) return undefined
      const average = r.float(94.2, 98.6, 1)
      value = {
        date: gDate,
        averagePercentage: average,
        lowerBoundPercentage: round(average - r.float(1, 3, 1), 1),
        upperBoundPercentage: round(Math.min(100, average + r.float(0.5, 1.5, 1)), 1)
      }
      break
    }
    case "daily-respiratory-rate":
      if (r.chance(0.08)) return undefined
      value = { date: gDate, breathsPerMinute: r.float(12.4, 17.8, 1) }
      break
    case "daily-sleep-temperature-derivations": {
      if (r.chance(0.1)) return undefined
      const nightly = r.float(33.2, 35.4, 2)
      // the baseline is the median of the last 30 nights: not a number until there are enough
      const learning = day - memberSinceDay < 30
      value = {
        date: gDate,
        nightlyTemperatureCelsius: nightly,
        baselineTemperatureCelsius: learning ? "NaN" : round(nightly - r.float(-0.8, 0.8, 2), 2),
        relativeNightlyStddev30dCelsius: learning ? "NaN" : r.float(0.1, 0.5, 2)
      }
      break
    }
  }
  return {
    sortMs: localMidnight(day, zone.offsetMinutes),
    point: { dataSource: { ...dataSource, recordingMethod: "DERIVED" }, [dailyFields[dataType]]: value }
  }
}

/**
 * The weighings of the civil day `date`: one every seventh day of membership at least, and on about one other day
 * in four; a smart scale (some users) also writes body fat at the same instant.
 */
export const bodyPointsOf = (
  seed: string,
  userId: string,
  dataType: "weight" | "body-fat",
  date: string
): ReadonlyArray<ListedPoint> => {
  const day = parseDay(date)!
  const { memberSinceDay, zone } = userTraits("fitbit", userId)
  const r = new Rng("fitbit-weight", seed, userId, date)
  const weekly = (day - memberSinceDay) % 7 === 0
  if (!weekly && !r.chance(0.25)) return []
  const t = traitsOf(seed, userId)
  const smartScale = new Rng("fitbit-scale", seed, userId).chance(0.6)
  const at = localMidnight(day, zone.offsetMinutes) + r.int(6 * 60, 9 * 60) * 60_000 + r.int(0, 59) * 1000
  const sampleTime = {
    physicalTime: iso(at),
    utcOffset: `${zone.offsetMinutes * 60}s`,
    civilTime: civil(at, zone.offsetMinutes)
  }
  // the weight drifts slowly around the user's own, by the week
  const drift = Math.sin((day - memberSinceDay) / 29) * 1.8
  const kg = t.weightKg + drift + r.float(-0.4, 0.4, 2)
  if (dataType === "weight") {
    return [{
      sortMs: at,
      point: {
        dataSource: { ...dataSource, device: { formFactor: smartScale ? "SCALE" : "PHONE" } },
        weight: { sampleTime, weightGrams: Math.round(kg * 1000) }
      }
    }]
  }
  if (!smartScale) return []
  return [{
    sortMs: at,
    point: {
      dataSource: { ...dataSource, device: { formFactor: "SCALE" } },
      bodyFat: { sampleTime, percentage: r.float(14, 32, 1) }
    }
  }]
}

/** The civil days a user has data on, `from`..`to` (both inclusive), newest first. */
export const daysWithData = (userId: string, from: number, to: number, today: number): ReadonlyArray<string> => {
  const { memberSinceDay } = userTraits("fitbit", userId)
  const days: Array<string> = []
  for (let day = Math.min(to, today); day >= Math.max(from, memberSinceDay); day--) days.push(formatDay(day))
  return days
}
