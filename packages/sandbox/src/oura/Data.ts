/**
 * The Oura simulator's documents, deterministic from the seed, the user and the local day: each day's main
 * sleep (`long_sleep`, from the evening before to the morning of the day), sometimes a nap, the day's sleep,
 * readiness and SpO2 summaries, its activity (growing through the current day) and its workouts. Instants are
 * written in the user's local time with its offset (`2025-06-14T23:05:00+05:30`), `day` is the local date, as
 * Oura writes them. Documents of a night or workout appear `SYNC_DELAY_MS` after it ends.
 *
 * Ids are UUIDs whose last group embeds the collection, index and day, so a by-id read needs no store.
 *
 * Listing follows what clients measuring the live API report (the docs are silent): `end_date` is inclusive for
 * `daily_sleep`, `daily_readiness` and `daily_spo2` but exclusive for `daily_activity` and `sleep`, and `workout`
 * is filtered by the UTC date of its start while its `day` is local.
 */
import {
  clamp,
  DAY_MS,
  formatDay,
  localMidnight,
  offsetString,
  parseDay,
  Rng,
  round,
  sha256Hex,
  userTraits,
  uuidFrom
} from "../core/Random.js"
import type { OuraCollection } from "./Shapes.js"
import { SYNC_DELAY_MS } from "./Shapes.js"

export interface Doc {
  readonly id: string
  readonly day: number
  /** What listing filters on (workouts: the UTC day of the start) and sorts by. */
  readonly filterDay: number
  readonly sortMs: number
  readonly body: Record<string, unknown>
}

const KIND_CODE: Readonly<Record<OuraCollection, string>> = {
  daily_activity: "1",
  sleep: "2",
  daily_sleep: "3",
  daily_readiness: "4",
  daily_spo2: "5",
  workout: "6"
}
const KIND_OF_CODE = Object.fromEntries(Object.entries(KIND_CODE).map(([k, v]) => [v, k])) as Readonly<
  Record<string, OuraCollection>
>

const check = (userId: string) => sha256Hex("oura-id", userId).slice(0, 4)

export const docId = (userId: string, kind: OuraCollection, day: number, index: number): string =>
  uuidFrom(
    sha256Hex("oura-doc", userId, kind, String(day), String(index)),
    `${KIND_CODE[kind]}${index.toString(16)}${day.toString(16).padStart(6, "0")}${check(userId)}`
  )

/** Collection, index and day embedded in a simulator id, for by-id reads (the user's own ids only). */
export const parseDocId = (userId: string, id: string) => {
  const m = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-([1-6])([0-9a-f])([0-9a-f]{6})([0-9a-f]{4})$/
    .exec(id)
  if (m === null || m[4] !== check(userId)) return undefined
  return { kind: KIND_OF_CODE[m[1]!]!, index: parseInt(m[2]!, 16), day: parseInt(m[3]!, 16) }
}

/** `yyyy-MM-ddTHH:mm:ss±hh:mm` of an instant at a fixed offset. */
export const localIso = (ms: number, offsetMinutes: number): string =>
  `${new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19)}${offsetString(offsetMinutes)}`

const sports = [
  { activity: "walking", metresPerMinute: 80 },
  { activity: "running", metresPerMinute: 170 },
  { activity: "cycling", metresPerMinute: 350 },
  { activity: "hiking", metresPerMinute: 65 },
  { activity: "swimming", metresPerMinute: 40 },
  { activity: "strengthTraining", metresPerMinute: 0 },
  { activity: "yoga", metresPerMinute: 0 }
] as const

export const makeOuraData = (seed: string) => {
  const traits = (userId: string) => userTraits("oura", userId)

  /** The night ending on the morning of `day`, and the day's nap if any. */
  const nights = (userId: string, day: number) => {
    const { zone } = traits(userId)
    const r = new Rng("oura-night", seed, userId, String(day))
    const midnight = localMidnight(day, zone.offsetMinutes)
    const bed = midnight - r.int(30, 150) * 60_000
    const main = { start: bed, end: bed + r.int(390, 520) * 60_000, type: "long_sleep" as const }
    const nap = r.chance(0.2)
      ? (() => {
        const start = midnight + (14 * 60 + r.int(0, 150)) * 60_000
        return { start, end: start + r.int(20, 70) * 60_000, type: r.pick(["sleep", "late_nap"] as const) }
      })()
      : undefined
    return nap === undefined ? [main] : [main, nap]
  }

  const sleepDoc = (userId: string, day: number, index: number, nowMs: number): Doc | undefined => {
    const period = nights(userId, day)[index]
    if (period === undefined || nowMs < period.end + SYNC_DELAY_MS) return undefined
    const { zone } = traits(userId)
    const r = new Rng("oura-sleep", seed, userId, String(day), String(index))
    const inBed = Math.round((period.end - period.start) / 1000)
    const awake = Math.round(inBed * r.float(0.05, 0.15, 3))
    const total = inBed - awake
    const deep = Math.round(total * r.float(0.14, 0.22, 3))
    const rem = Math.round(total * r.float(0.18, 0.25, 3))
    const average = r.int(50, 64)
    const id = docId(userId, "sleep", day, index)
    return {
      id,
      day,
      filterDay: day,
      sortMs: period.start,
      body: {
        id,
        average_breath: r.float(13, 17, 3),
        average_heart_rate: r.float(average - 0.5, average + 0.5, 3),
        average_hrv: r.int(25, 90),
        awake_time: awake,
        bedtime_end: localIso(period.end, zone.offsetMinutes),
        bedtime_start: localIso(period.start, zone.offsetMinutes),
        day: formatDay(day),
        deep_sleep_duration: deep,
        efficiency: Math.round((total / inBed) * 100),
        latency: r.int(2, 30) * 60,
        light_sleep_duration: total - deep - rem,
        low_battery_alert: false,
        lowest_heart_rate: average - r.int(3, 9),
        period: index,
        readiness_score_delta: null,
        rem_sleep_duration: rem,
        restless_periods: r.int(100, 400),
        sleep_score_delta: null,
        sleep_algorithm_version: "v2",
        time_in_bed: inBed,
        total_sleep_duration: total,
        type: period.type
      }
    }
  }

  /** The day's summaries appear with its main sleep. */
  const summaryVisible = (userId: string, day: number, nowMs: number) =>
    nights(userId, day)[0]!.end + SYNC_DELAY_MS <= nowMs

  const summaryDoc = (
    userId: string,
    kind: "daily_sleep" | "daily_readiness" | "daily_spo2",
    day: number,
    nowMs: number
  ): Doc | undefined => {
    if (!summaryVisible(userId, day, nowMs)) return undefined
    const { zone } = traits(userId)
    const r = new Rng(`oura-${kind}`, seed, userId, String(day))
    const id = docId(userId, kind, day, 0)
    const midnight = localMidnight(day, zone.offsetMinutes)
    const common = { id, day: formatDay(day), timestamp: localIso(midnight, zone.offsetMinutes) }
    const contributor = () => r.int(40, 100)
    const body = kind === "daily_sleep"
      ? {
        ...common,
        score: r.int(55, 95),
        contributors: {
          deep_sleep: contributor(),
          efficiency: contributor(),
          latency: contributor(),
          rem_sleep: contributor(),
          restfulness: contributor(),
          timing: contributor(),
          total_sleep: contributor()
        }
      }
      : kind === "daily_readiness"
      ? {
        ...common,
        score: r.int(50, 95),
        temperature_deviation: r.float(-0.6, 0.6, 2),
        temperature_trend_deviation: r.float(-0.3, 0.3, 2),
        contributors: {
          activity_balance: contributor(),
          body_temperature: contributor(),
          hrv_balance: contributor(),
          previous_day_activity: contributor(),
          previous_night: contributor(),
          recovery_index: contributor(),
          resting_heart_rate: contributor(),
          sleep_balance: contributor()
        }
      }
      // about one night in 25 the ring measures no SpO2
      : {
        id,
        day: formatDay(day),
        spo2_percentage: r.chance(1 / 25) ? null : { average: r.float(94, 99, 3) },
        breathing_disturbance_index: r.int(0, 15)
      }
    return { id, day, filterDay: day, sortMs: midnight, body }
  }

  /** The day's activity, from its local midnight on, growing through the day; about one day in 40 the ring was off. */
  const activityDoc = (userId: string, day: number, nowMs: number): Doc | undefined => {
    const { zone } = traits(userId)
    const midnight = localMidnight(day, zone.offsetMinutes)
    if (nowMs < midnight) return undefined
    const share = clamp((nowMs - midnight) / DAY_MS, 0, 1)
    const r = new Rng("oura-activity", seed, userId, String(day))
    const off = r.chance(1 / 40)
    const scale = (n: number) => Math.round(n * share)
    const steps = off ? 0 : scale(r.int(2500, 16_000))
    const active = off ? 0 : scale(r.int(150, 900))
    const high = off ? 0 : scale(r.int(0, 40) * 60)
    const medium = off ? 0 : scale(r.int(10, 90) * 60)
    const low = off ? 0 : scale(r.int(120, 360) * 60)
    const resting = off ? 0 : scale(r.int(420, 540) * 60)
    const nonWear = off ? Math.round(86_400 * share) : scale(r.int(0, 60) * 60)
    const sedentary = Math.max(0, Math.round(86_400 * share) - high - medium - low - resting - nonWear)
    const id = docId(userId, "daily_activity", day, 0)
    return {
      id,
      day,
      filterDay: day,
      sortMs: midnight,
      body: {
        id,
        class_5_min: null,
        score: off ? null : r.int(50, 99),
        active_calories: active,
        average_met_minutes: round(1 + active / 1000, 4),
        contributors: off ? null : {
          meet_daily_targets: r.int(40, 100),
          move_every_hour: r.int(40, 100),
          recovery_time: r.int(40, 100),
          stay_active: r.int(40, 100),
          training_frequency: r.int(40, 100),
          training_volume: r.int(40, 100)
        },
        equivalent_walking_distance: Math.round(steps * r.float(0.7, 0.8, 3)),
        high_activity_met_minutes: Math.round(high / 60 * 8),
        high_activity_time: high,
        inactivity_alerts: off ? 0 : r.int(0, 4),
        low_activity_met_minutes: Math.round(low / 60 * 2),
        low_activity_time: low,
        medium_activity_met_minutes: Math.round(medium / 60 * 4),
        medium_activity_time: medium,
        meters_to_target: r.int(0, 8000),
        non_wear_time: nonWear,
        resting_time: resting,
        sedentary_met_minutes: Math.round(sedentary / 60),
        sedentary_time: sedentary,
        steps,
        target_calories: 500,
        target_meters: 10_000,
        // the ring's resting energy is counted whether or not it is worn
        total_calories: active + scale(r.int(1500, 2100)),
        day: formatDay(day),
        timestamp: localIso(midnight + 4 * 3_600_000, zone.offsetMinutes)
      }
    }
  }

  const workoutDocs = (userId: string, day: number, nowMs: number): ReadonlyArray<Doc> => {
    const { zone } = traits(userId)
    const r = new Rng("oura-workouts", seed, userId, String(day))
    const roll = r.next()
    const count = roll < 0.5 ? 0 : roll < 0.85 ? 1 : 2
    const midnight = localMidnight(day, zone.offsetMinutes)
    const docs: Array<Doc> = []
    for (let index = 0; index < count; index++) {
      const w = new Rng("oura-workout", seed, userId, String(day), String(index))
      const sport = w.pick(sports)
      const start = midnight + ((index === 0 ? 6 * 60 + 30 : 18 * 60) + w.int(0, 120)) * 60_000
      const minutes = w.int(20, 90)
      const end = start + minutes * 60_000
      if (nowMs < end + SYNC_DELAY_MS) continue
      const id = docId(userId, "workout", day, index)
      docs.push({
        id,
        day,
        filterDay: Math.floor(start / DAY_MS),
        sortMs: start,
        body: {
          id,
          activity: sport.activity,
          calories: round(minutes * w.float(5, 12, 3), 3),
          day: formatDay(day),
          distance: sport.metresPerMinute === 0
            ? null
            : round(minutes * sport.metresPerMinute * w.float(0.8, 1.2, 3), 1),
          end_datetime: localIso(end, zone.offsetMinutes),
          intensity: w.pick(["easy", "moderate", "hard"] as const),
          label: null,
          source: w.pick(["autodetected", "confirmed", "manual"] as const),
          start_datetime: localIso(start, zone.offsetMinutes)
        }
      })
    }
    return docs
  }

  /** Every visible document of `kind` on local day `day`. */
  const docsOf = (userId: string, kind: OuraCollection, day: number, nowMs: number): ReadonlyArray<Doc> => {
    if (day < traits(userId).memberSinceDay) return []
    switch (kind) {
      case "daily_activity":
        return [activityDoc(userId, day, nowMs)].filter((d): d is Doc => d !== undefined)
      case "sleep":
        return nights(userId, day).flatMap((_, i) => {
          const doc = sleepDoc(userId, day, i, nowMs)
          return doc === undefined ? [] : [doc]
        })
      case "workout":
        return workoutDocs(userId, day, nowMs)
      default:
        return [summaryDoc(userId, kind, day, nowMs)].filter((d): d is Doc => d !== undefined)
    }
  }

  /**
   * The documents a list query selects, in order (see the module comment for the `end_date` rules). Workouts
   * are filtered by the UTC day of their start, so local days a day either side are looked at.
   */
  const list = (userId: string, kind: OuraCollection, start: number, end: number, nowMs: number) => {
    const inclusive = kind === "daily_sleep" || kind === "daily_readiness" || kind === "daily_spo2"
    const last = inclusive ? end : end - 1
    const docs: Array<Doc> = []
    for (let day = start - 1; day <= last + 1; day++) {
      for (const doc of docsOf(userId, kind, day, nowMs)) {
        if (doc.filterDay >= start && doc.filterDay <= last) docs.push(doc)
      }
    }
    return docs.sort((a, b) => a.sortMs - b.sortMs || a.id.localeCompare(b.id))
  }

  /** A document by id, when it is the user's and visible. */
  const byId = (userId: string, kind: OuraCollection, id: string, nowMs: number): Doc | undefined => {
    const parsed = parseDocId(userId, id)
    if (parsed === undefined || parsed.kind !== kind) return undefined
    return docsOf(userId, kind, parsed.day, nowMs).find((d) => d.id === id)
  }

  const personalInfo = (userId: string, name: string) => {
    const r = new Rng("oura-person", seed, userId)
    return {
      id: userId,
      age: r.int(21, 70),
      weight: r.float(50, 105, 1),
      height: r.float(1.52, 1.98, 2),
      biological_sex: r.pick(["female", "male"] as const),
      email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, ".").replace(/^\.|\.$/g, "") || "user"}@sandbox.example`
    }
  }

  return { docsOf, list, byId, personalInfo, traits, parseDay }
}

export type OuraData = ReturnType<typeof makeOuraData>
