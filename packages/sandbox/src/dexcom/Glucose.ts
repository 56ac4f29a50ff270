/**
 * The Dexcom simulator's synthetic glucose: per-user traits (sensor generation, display device,
 * insulin, baseline and rhythm, usual meal times), per-day meal plans, and `Glucose`, which derives
 * every EGV, event, calibration and transmitter deterministically from (seed, user, time).
 *
 * Meals: each account eats breakfast, lunch and dinner at its own usual local times (`usualMealTimes`:
 * breakfast 07:00-08:30, lunch 12:00-13:30, dinner 18:00-19:30, on the quarter hour), each day within
 * 10 minutes of them. Glucose starts to rise 10 minutes after a meal (digestion and the sensor's lag
 * behind blood), peaks 40-70 minutes later, 40-130 mg/dL up, and falls back over the next hours; so a
 * meal logged at an account's usual time sees a real response.
 */
import {
  clamp,
  DAY_MS,
  localDayOf,
  localMidnight,
  offsetString,
  providerUserIds,
  Rng,
  round,
  sha256Hex,
  userTraits,
  uuidFrom
} from "../core/Random.js"
import { DEXCOM_SANDBOX_USERS, HOUR_MS, SESSION_MS, SLOT_MS } from "./Shapes.js"

// ---- synthetic data ----

type Generation = "g6" | "g7"
type DisplayDevice = "iOS" | "android" | "receiver"
/** What Dexcom names the app (or receiver) that displayed the readings. */
type DisplayApp = "G6" | "G7" | "DexcomOne" | "D1G7" | "receiver"

const g7Users = new Set([providerUserIds.dexcom("SandboxUser7")])
const g6Users = new Set(DEXCOM_SANDBOX_USERS.slice(0, 6).map((n) => providerUserIds.dexcom(n)))

const traitsOf = (seed: string, userId: string) => {
  const base = userTraits("dexcom", userId)
  const r = new Rng("dexcom-traits", seed, userId)
  const generation: Generation = g7Users.has(userId) ? "g7" : g6Users.has(userId) ? "g6" : r.pick(["g6", "g7"])
  const displayDevice: DisplayDevice = r.next() < 0.15 ? "receiver" : r.pick(["iOS", "android"])
  // Traits added with API v3's newer fields come from their own stream, so the ones above stay put.
  const v = new Rng("dexcom-traits-v3", seed, userId)
  const displayApp: DisplayApp = displayDevice === "receiver"
    ? "receiver"
    : generation === "g7"
    ? v.next() < 0.2 ? "D1G7" : "G7"
    : v.next() < 0.2
    ? "DexcomOne"
    : "G6"
  return {
    ...base,
    generation,
    displayDevice,
    displayApp,
    // G7 sensors come in 10-day and 15-day variants; older generations have no variant
    generationVariant: generation === "g7" ? v.next() < 0.3 ? "g715day" : "g710day" : null,
    // some apps write their offset with seconds (`-05:00:00`)
    offsetWithSeconds: displayDevice !== "receiver" && v.next() < 0.4,
    insulin: r.chance(0.5),
    baseline: r.int(95, 150),
    rhythm: r.int(10, 30),
    rhythmPhase: r.next(),
    slotPhaseMs: r.int(0, 299) * 1000,
    start: localMidnight(base.memberSinceDay, base.zone.offsetMinutes),
    mealMinutes: usualMealMinutes(seed, userId)
  }
}

/** Minutes after local midnight of an account's usual breakfast, lunch and dinner (their own stream). */
const usualMealMinutes = (seed: string, userId: string): readonly [number, number, number] => {
  const r = new Rng("dexcom-meal-times", seed, userId)
  return [7 * 60 + 15 * r.int(0, 6), 12 * 60 + 15 * r.int(0, 6), 18 * 60 + 15 * r.int(0, 6)]
}

/** How long after a meal its glucose starts to rise. */
export const MEAL_ONSET_MS = 10 * 60_000

/**
 * The usual local meal times of a simulated Dexcom account (by its Dexcom user id), with its UTC offset:
 * what a sandbox user would log a meal at to see the simulator's response to it.
 */
export const usualMealTimes = (seed: string, userId: string) => {
  const [breakfast, lunch, dinner] = usualMealMinutes(seed, userId)
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`
  return {
    offsetMinutes: userTraits("dexcom", userId).zone.offsetMinutes,
    meals: [
      { name: "breakfast", minutes: breakfast, local: hhmm(breakfast) },
      { name: "lunch", minutes: lunch, local: hhmm(lunch) },
      { name: "dinner", minutes: dinner, local: hhmm(dinner) }
    ]
  } as const
}

type Traits = ReturnType<typeof traitsOf>

/** A local day's meals, its level shift, and whether a night-time low comes (so readings span the range). */
const dayPlan = (seed: string, userId: string, t: Traits, day: number) => {
  const r = new Rng("dexcom-meals", seed, userId, String(day))
  const midnight = localMidnight(day, t.zone.offsetMinutes)
  const meals = t.mealMinutes.map((minutes, i) => ({
    index: i,
    at: midnight + minutes * 60_000 + r.int(-10, 10) * 60_000,
    carbs: r.int(20, 90),
    rise: r.int(40, 130),
    tau: r.int(40, 70) * 60_000,
    insulin: r.float(2, 10, 1)
  }))
  const shift = r.int(-20, 25)
  const low = r.chance(0.15) ? { at: midnight + 3 * HOUR_MS + r.int(0, 120) * 60_000, depth: r.int(40, 80) } : undefined
  // a missed bolus now and then: an evening excursion that can pass the sensor's 400 mg/dL
  const spike = r.chance(0.12)
    ? { at: midnight + 20 * HOUR_MS + r.int(0, 120) * 60_000, height: r.int(220, 330) }
    : undefined
  return { midnight, meals, shift, low, spike }
}

/** Generates the records of one user; caches per-day plans for the span of one request. */
export class Glucose {
  readonly t: Traits
  private readonly planCache = new Map<number, ReturnType<typeof dayPlan>>()
  constructor(readonly seed: string, readonly userId: string) {
    this.t = traitsOf(seed, userId)
  }
  planOf(day: number) {
    let found = this.planCache.get(day)
    if (found === undefined) {
      found = dayPlan(this.seed, this.userId, this.t, day)
      this.planCache.set(day, found)
    }
    return found
  }
  mealsOf(day: number) {
    return this.planOf(day).meals
  }
  /** The slot instants are `slotPhaseMs` past multiples of five minutes. */
  firstSlotAtOrAfter(ms: number): number {
    const k = Math.ceil((ms - this.t.slotPhaseMs) / SLOT_MS)
    return k * SLOT_MS + this.t.slotPhaseMs
  }
  /** mg/dL before clamping and gaps. */
  raw(ms: number): number {
    const t = this.t
    const day = localDayOf(ms, t.zone.offsetMinutes)
    const plan = this.planOf(day)
    // the day's level shift blends in over the first hours so midnight has no step
    const previous = this.planOf(day - 1).shift
    const blend = clamp((ms - plan.midnight) / (4 * HOUR_MS), 0, 1)
    let value = t.baseline + previous + (plan.shift - previous) * blend +
      t.rhythm * Math.sin(2 * Math.PI * (ms / DAY_MS + t.rhythmPhase))
    for (const d of [day - 1, day]) {
      for (const meal of this.mealsOf(d)) {
        const dt = ms - meal.at - MEAL_ONSET_MS
        if (dt > 0 && dt < 8 * meal.tau) value += meal.rise * (dt / meal.tau) * Math.exp(1 - dt / meal.tau)
      }
    }
    if (plan.low !== undefined) {
      const dt = (ms - plan.low.at) / HOUR_MS
      value -= plan.low.depth * Math.exp(-dt * dt)
    }
    if (plan.spike !== undefined) {
      const dt = (ms - plan.spike.at) / (1.5 * HOUR_MS)
      value += plan.spike.height * Math.exp(-dt * dt)
    }
    const noise = new Rng("dexcom-noise", this.seed, this.userId, String(ms)).float(-6, 6, 3)
    return value + noise
  }
  // Each reading's trend needs the slot before it too: values are memoised per instance.
  private readonly values = new Map<number, number | null>()
  private readonly transmitterIds = new Map<number, string>()
  value(ms: number): number | null {
    const known = this.values.get(ms)
    if (known !== undefined) return known
    // Outside the sensor's 40-400 mg/dL range Dexcom reports the sentinels 39 (low) and 401 (high).
    const raw = Math.round(this.raw(ms))
    const value = new Rng("dexcom-gap", this.seed, this.userId, String(ms)).chance(0.01)
      ? null
      : raw < 40
      ? 39
      : raw > 400
      ? 401
      : raw
    this.values.set(ms, value)
    return value
  }
  transmitter(ms: number) {
    const session = Math.floor((ms - this.t.start) / SESSION_MS)
    // a G7 sensor has its own transmitter; a G6 transmitter lasts about nine sessions
    const unit = this.t.generation === "g7" ? session : Math.floor(session / 9)
    let transmitterId = this.transmitterIds.get(unit)
    if (transmitterId === undefined) {
      transmitterId = sha256Hex("dexcom-transmitter", this.userId, String(unit))
      this.transmitterIds.set(unit, transmitterId)
    }
    return {
      transmitterId,
      transmitterTicks: Math.floor((ms - (this.t.start + session * SESSION_MS)) / 1000)
    }
  }
  /**
   * A record's two times as Dexcom writes them: a receiver writes both without an offset
   * (`systemTime` UTC, `displayTime` its wall clock); an app writes `systemTime` in UTC ending in
   * `Z` and `displayTime` with its offset, for some apps with seconds (`-05:00:00`).
   */
  times(ms: number) {
    const utc = new Date(ms).toISOString().slice(0, 19)
    const offset = this.t.zone.offsetMinutes
    const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19)
    if (this.t.displayDevice === "receiver") return { systemTime: utc, displayTime: local }
    return {
      systemTime: `${utc}Z`,
      displayTime: `${local}${offsetString(offset)}${this.t.offsetWithSeconds ? ":00" : ""}`
    }
  }
  /** The device fields every record carries. */
  device() {
    return {
      transmitterGeneration: this.t.generation,
      transmitterGenerationVariant: this.t.generationVariant,
      displayDevice: this.t.displayDevice,
      displayApp: this.t.displayApp
    }
  }
  common(ms: number) {
    return { ...this.transmitter(ms), ...this.device() }
  }
  /** Dexcom ONE keeps no events and no calibrations: those endpoints answer an empty array. */
  get keepsEvents(): boolean {
    return this.t.displayApp !== "DexcomOne"
  }
  egv(ms: number) {
    const value = this.value(ms)
    const previous = this.value(ms - SLOT_MS)
    // no trend across a sentinel: the real value beyond the range is unknown
    const known = (v: number | null) => v !== null && v !== 39 && v !== 401
    const rate = !known(value) || !known(previous) ? null : round((value! - previous!) / 5, 1)
    const trend = rate === null
      ? "notComputable"
      : rate > 3
      ? "doubleUp"
      : rate > 2
      ? "singleUp"
      : rate > 1
      ? "fortyFiveUp"
      : rate >= -1
      ? "flat"
      : rate >= -2
      ? "fortyFiveDown"
      : rate >= -3
      ? "singleDown"
      : "doubleDown"
    const { transmitterId, transmitterTicks } = this.transmitter(ms)
    return {
      recordId: uuidFrom(sha256Hex("dexcom-egv", this.userId, String(ms))),
      ...this.times(ms),
      transmitterId,
      transmitterTicks,
      value,
      status: value === 39 ? "low" : value === 401 ? "high" : null,
      trend: value === null ? null : trend,
      trendRate: rate,
      unit: "mg/dL",
      rateUnit: "mg/dL/min",
      ...this.device()
    }
  }
  events(day: number): ReadonlyArray<{ readonly ms: number; readonly body: Record<string, unknown> }> {
    const out: Array<{ ms: number; body: Record<string, unknown> }> = []
    const event = (
      ms: number,
      key: string,
      eventType: string,
      eventSubType: string | null,
      value: string,
      unit: string
    ) => {
      // entered a few minutes after it happened: `recordedSystemTime` is when the user logged it
      const recorded = this.times(
        ms + new Rng("dexcom-event-entry", this.seed, this.userId, String(day), key).int(0, 20) * 60_000
      )
      out.push({
        ms,
        body: {
          recordId: uuidFrom(sha256Hex("dexcom-event", this.userId, String(day), key)),
          ...this.times(ms),
          recordedSystemTime: recorded.systemTime,
          recordedDisplayTime: recorded.displayTime,
          eventStatus: "created",
          eventType,
          eventSubType,
          value,
          unit,
          ...this.common(ms)
        }
      })
    }
    if (!this.keepsEvents) return out
    for (const meal of this.mealsOf(day)) {
      event(meal.at - 5 * 60_000, `carbs-${meal.index}`, "carbs", null, String(meal.carbs), "grams")
      if (this.t.insulin) {
        event(meal.at - 10 * 60_000, `bolus-${meal.index}`, "insulin", "fastActing", String(meal.insulin), "units")
      }
    }
    const r = new Rng("dexcom-day-events", this.seed, this.userId, String(day))
    const midnight = localMidnight(day, this.t.zone.offsetMinutes)
    const basal = r.float(10, 30, 1)
    if (this.t.insulin) event(midnight + 22 * HOUR_MS, "basal", "insulin", "longActing", String(basal), "units")
    if (r.chance(0.3)) {
      event(
        midnight + 18 * HOUR_MS + r.int(0, 60) * 60_000,
        "exercise",
        "exercise",
        r.pick(["light", "medium", "heavy"]),
        String(r.int(20, 60)),
        "minutes"
      )
    }
    return out.sort((a, b) => a.ms - b.ms)
  }
  calibrations(day: number): ReadonlyArray<{ readonly ms: number; readonly body: Record<string, unknown> }> {
    if (!this.keepsEvents) return []
    const r = new Rng("dexcom-calibration", this.seed, this.userId, String(day))
    if (!r.chance(this.t.generation === "g6" ? 0.3 : 0.1)) return []
    const ms = localMidnight(day, this.t.zone.offsetMinutes) + 7 * HOUR_MS + r.int(0, 59) * 60_000
    const { transmitterId, transmitterTicks } = this.transmitter(ms)
    return [{
      ms,
      body: {
        recordId: uuidFrom(sha256Hex("dexcom-calibration", this.userId, String(day))),
        ...this.times(ms),
        unit: "mg/dL",
        value: Math.round(clamp(this.raw(ms) + r.int(-8, 8), 40, 400)),
        transmitterId,
        transmitterTicks,
        ...this.device()
      }
    }]
  }
}
