/**
 * The Withings simulator's records, deterministic from the seed, the user and the local day: a scale weighing
 * most mornings (about four days a week: weight, fat ratio, fat mass, fat-free mass, muscle, hydration, bone mass and
 * the scale's pulse), a height entered at sign-up and a weight objective (category 2), a blood pressure reading
 * about once in ten days, a sleep mat's night ending every morning, a day of activity every day and a workout about
 * three days a week. Each user lives in one time zone (`userTraits`), written as its IANA name on every record.
 * Values use Withings' encodings: measures as `value` and `unit` (`value * 10^unit`), durations in seconds,
 * `sleep_efficiency` as a ratio.
 */
import { DAY_MS, formatDay, localDayOf, localMidnight, Rng, round, sha256, userTraits } from "../core/Random.js"
import type { WithingsKind } from "./Shapes.js"

const HOUR_MS = 3_600_000
const seconds = (ms: number) => Math.floor(ms / 1000)

/** A per-user base for ids, so two users' records never share one. */
const idBase = (userId: string) => (1_000 + (sha256("withings-id", userId).readUInt32BE(0) % 9_000)) * 1_000_000

const workoutCategories = [1, 2, 6, 7, 16, 28, 187, 308] as const

export interface Served {
  /** The instant a list is filtered and ordered by (Unix ms). */
  readonly atMs: number
  /** The local date a by-date list is filtered by. */
  readonly date: string
  readonly body: Record<string, unknown>
}

export const makeWithingsData = (seed: string) => {
  const traits = (userId: string) => userTraits("withings", userId)

  const baseline = (userId: string) => {
    const r = new Rng("withings-body", seed, userId)
    return {
      weight: r.float(55, 105, 2),
      fat: r.float(14, 32, 1),
      height: r.float(1.55, 1.95, 2),
      restingHr: r.int(52, 72),
      steps: r.int(5_000, 11_000),
      systolic: r.int(108, 135),
      diastolic: r.int(68, 86)
    }
  }

  /** The measure groups of one local day (the sign-up day also has the height and the objective). */
  const measureGroups = (userId: string, day: number): ReadonlyArray<Served> => {
    const { memberSinceDay, zone } = traits(userId)
    if (day < memberSinceDay) return []
    const midnight = localMidnight(day, zone.offsetMinutes)
    const date = formatDay(day)
    const base = baseline(userId)
    const r = new Rng("withings-measures", seed, userId, String(day))
    const out: Array<Served> = []
    const group = (index: number, atMs: number, category: number, attrib: number, measures: Array<unknown>) =>
      out.push({
        atMs,
        date,
        body: {
          grpid: idBase(userId) + day * 10 + index,
          attrib,
          date: seconds(atMs),
          created: seconds(atMs) + 60,
          modified: seconds(atMs) + 60,
          category,
          deviceid: category === 1 && attrib === 0 ? "sim-body-cardio" : null,
          hash_deviceid: category === 1 && attrib === 0 ? "sim-body-cardio" : null,
          measures,
          model: category === 1 && attrib === 0 ? "Body Cardio" : null,
          modelid: category === 1 && attrib === 0 ? 6 : null,
          comment: null
        }
      })
    if (day === memberSinceDay) {
      const at = midnight + 9 * HOUR_MS
      group(1, at, 1, 2, [{ value: Math.round(base.height * 100), type: 4, unit: -2, algo: 0, fm: 0 }])
      group(2, at, 2, 2, [{ value: Math.round((base.weight - 3) * 1000), type: 1, unit: -3, algo: 0, fm: 0 }])
    }
    if (r.chance(0.57)) {
      const at = midnight + 6 * HOUR_MS + r.int(0, 2 * 3600) * 1000
      const weight = base.weight + 1.5 * Math.sin(day / 40) + r.float(-0.6, 0.6, 2)
      const fatRatio = base.fat + 0.8 * Math.sin(day / 55) + r.float(-0.5, 0.5, 2)
      const fatMass = (weight * fatRatio) / 100
      const grams = (kg: number) => Math.round(kg * 1000)
      group(3, at, 1, 0, [
        { value: grams(weight), type: 1, unit: -3, algo: 0, fm: 3 },
        { value: Math.round(fatRatio * 1000), type: 6, unit: -3, algo: 0, fm: 3 },
        { value: grams(fatMass), type: 8, unit: -3, algo: 0, fm: 3 },
        { value: grams(weight - fatMass), type: 5, unit: -3, algo: 0, fm: 3 },
        { value: grams((weight - fatMass) * 0.94), type: 76, unit: -3, algo: 0, fm: 3 },
        { value: grams((weight - fatMass) * 0.72), type: 77, unit: -3, algo: 0, fm: 3 },
        { value: grams((weight - fatMass) * 0.05), type: 88, unit: -3, algo: 0, fm: 3 },
        { value: base.restingHr + r.int(0, 12), type: 11, unit: 0, algo: 0, fm: 3 }
      ])
    }
    if (r.chance(0.1)) {
      const at = midnight + 19 * HOUR_MS + r.int(0, 3600) * 1000
      group(4, at, 1, 0, [
        { value: base.diastolic + r.int(-6, 6), type: 9, unit: 0, algo: 0, fm: 3 },
        { value: base.systolic + r.int(-8, 8), type: 10, unit: 0, algo: 0, fm: 3 },
        { value: base.restingHr + r.int(0, 10), type: 11, unit: 0, algo: 0, fm: 3 }
      ])
    }
    return out
  }

  /** The night that ends on the morning of `day`, once it has ended. */
  const sleep = (userId: string, day: number, nowMs: number): Served | undefined => {
    const { memberSinceDay, zone } = traits(userId)
    if (day <= memberSinceDay) return undefined
    const r = new Rng("withings-sleep", seed, userId, String(day))
    const midnight = localMidnight(day, zone.offsetMinutes)
    const start = midnight - 2 * HOUR_MS + r.int(0, 2 * 3600) * 1000
    const end = midnight + 6 * HOUR_MS + r.int(0, 2 * 3600) * 1000
    if (end > nowMs) return undefined
    const inBed = seconds(end - start)
    const latency = r.int(5, 30) * 60
    const wakeupLatency = r.int(2, 15) * 60
    const wake = r.int(10, 45) * 60
    const asleep = Math.max(0, inBed - latency - wakeupLatency - wake)
    const deep = Math.round(asleep * r.float(0.14, 0.24, 3))
    const rem = Math.round(asleep * r.float(0.18, 0.26, 3))
    const light = asleep - deep - rem
    const base = baseline(userId)
    return {
      atMs: start,
      date: formatDay(day),
      body: {
        id: idBase(userId) + day,
        timezone: zone.name,
        model: 32,
        model_id: 63,
        hash_deviceid: "sim-sleep-analyzer",
        startdate: seconds(start),
        enddate: seconds(end),
        // the reference says only "date at which the measure was taken": the simulator files a night by its morning
        date: formatDay(day),
        created: seconds(end) + 900,
        modified: seconds(end) + 900,
        completed: true,
        data: {
          total_timeinbed: inBed,
          total_sleep_time: asleep,
          lightsleepduration: light,
          deepsleepduration: deep,
          remsleepduration: rem,
          wakeupduration: wake + latency + wakeupLatency,
          wakeupcount: r.int(0, 5),
          sleep_efficiency: round(asleep / inBed, 2),
          sleep_latency: latency,
          wakeup_latency: wakeupLatency,
          waso: wake,
          nb_rem_episodes: r.int(3, 6),
          out_of_bed_count: r.int(0, 2),
          hr_average: base.restingHr + r.int(0, 6),
          hr_min: base.restingHr - r.int(2, 8),
          hr_max: base.restingHr + r.int(15, 30),
          rr_average: r.int(12, 17),
          rr_min: r.int(9, 12),
          rr_max: r.int(18, 22),
          sleep_score: r.int(55, 95)
        }
      }
    }
  }

  /** A day's activity; today's as far as it has gone, a still day (every count 0) about one day in 40. */
  const activity = (userId: string, day: number, nowMs: number): Served | undefined => {
    const { memberSinceDay, zone } = traits(userId)
    const midnight = localMidnight(day, zone.offsetMinutes)
    if (day < memberSinceDay || midnight > nowMs) return undefined
    const share = Math.min(1, (nowMs - midnight) / DAY_MS)
    const r = new Rng("withings-activity", seed, userId, String(day))
    const base = baseline(userId)
    const still = r.chance(0.025)
    const part = (n: number) => (still ? 0 : Math.round(n * share))
    const steps = part(base.steps * r.float(0.5, 1.5, 3))
    const soft = part(r.int(60, 240) * 60)
    const moderate = part(r.int(5, 60) * 60)
    const intense = part(r.int(0, 30) * 60)
    const active = part(steps * 0.04 + r.int(50, 400))
    const passive = Math.round(base.weight * 22 * share)
    return {
      atMs: midnight,
      date: formatDay(day),
      body: {
        date: formatDay(day),
        timezone: zone.name,
        deviceid: null,
        hash_deviceid: null,
        brand: 18,
        is_tracker: false,
        modified: seconds(Math.min(nowMs, midnight + DAY_MS)),
        steps,
        distance: Math.round(steps * 0.74),
        elevation: part(r.int(0, 20)),
        soft,
        moderate,
        intense,
        active: moderate + intense,
        calories: active,
        totalcalories: active + passive,
        hr_average: base.restingHr + r.int(10, 20),
        hr_min: base.restingHr - r.int(0, 5),
        hr_max: base.restingHr + r.int(60, 110),
        hr_zone_0: part(r.int(300, 600) * 60),
        hr_zone_1: part(r.int(20, 90) * 60),
        hr_zone_2: part(r.int(0, 30) * 60),
        hr_zone_3: part(r.int(0, 10) * 60)
      }
    }
  }

  /** The day's workout (about three days a week), once it has ended. */
  const workout = (userId: string, day: number, nowMs: number): Served | undefined => {
    const { memberSinceDay, zone } = traits(userId)
    if (day < memberSinceDay) return undefined
    const r = new Rng("withings-workout", seed, userId, String(day))
    if (!r.chance(0.43)) return undefined
    const start = localMidnight(day, zone.offsetMinutes) + 17 * HOUR_MS + r.int(0, 2 * 3600) * 1000
    const end = start + r.int(25, 90) * 60_000
    if (end > nowMs) return undefined
    const category = r.pick(workoutCategories)
    const minutes = (end - start) / 60_000
    const moves = category === 1 || category === 2 || category === 6
    const base = baseline(userId)
    return {
      atMs: start,
      date: formatDay(day),
      body: {
        id: idBase(userId) + day * 10 + 7,
        category,
        timezone: zone.name,
        model: 1055,
        attrib: 7,
        startdate: seconds(start),
        enddate: seconds(end),
        date: formatDay(day),
        modified: seconds(end) + 600,
        deviceid: null,
        data: {
          calories: Math.round(minutes * r.float(5, 11, 1)),
          intensity: 0,
          manual_distance: 0,
          manual_calories: 0,
          hr_average: base.restingHr + r.int(50, 80),
          hr_min: base.restingHr + r.int(5, 20),
          hr_max: base.restingHr + r.int(85, 115),
          hr_zone_0: Math.round(minutes * 6),
          hr_zone_1: Math.round(minutes * 24),
          hr_zone_2: Math.round(minutes * 24),
          hr_zone_3: Math.round(minutes * 6),
          pause_duration: 0,
          algo_pause_duration: 0,
          steps: category === 1 || category === 2 ? Math.round(minutes * r.int(100, 170)) : 0,
          distance: moves ? Math.round(minutes * (category === 6 ? 400 : category === 2 ? 180 : 90)) : 0,
          elevation: 0
        }
      }
    }
  }

  /** The local days a range of instants can touch for a user. */
  const daysOf = (userId: string, startMs: number, endMs: number) => {
    const { zone } = traits(userId)
    return { first: localDayOf(startMs, zone.offsetMinutes), last: localDayOf(endMs, zone.offsetMinutes) }
  }

  /** Measure groups measured between two instants (inclusive), oldest first. */
  const measuresBetween = (userId: string, startMs: number, endMs: number, nowMs: number): ReadonlyArray<Served> => {
    const { first, last } = daysOf(userId, startMs, Math.min(endMs, nowMs))
    const out: Array<Served> = []
    for (let day = Math.max(first, traits(userId).memberSinceDay); day <= last; day++) {
      for (const g of measureGroups(userId, day)) {
        if (g.atMs >= startMs && g.atMs <= endMs && g.atMs <= nowMs) out.push(g)
      }
    }
    return out
  }

  /** Records of a by-date kind whose date is in `from`..`to` (days since epoch, inclusive), oldest first. */
  const byDate = (kind: Exclude<WithingsKind, "measures">, userId: string, from: number, to: number, nowMs: number) => {
    const out: Array<Served> = []
    const start = Math.max(from, traits(userId).memberSinceDay)
    // a year of days at most, like any sensible request
    for (let day = start; day <= to && day - start < 400; day++) {
      const rec = kind === "sleep"
        ? sleep(userId, day, nowMs)
        : kind === "activity"
        ? activity(userId, day, nowMs)
        : workout(userId, day, nowMs)
      if (rec !== undefined) out.push(rec)
    }
    return out
  }

  return { measureGroups, measuresBetween, byDate, traits }
}

export type WithingsData = ReturnType<typeof makeWithingsData>
