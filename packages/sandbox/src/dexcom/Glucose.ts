/**
 * The Dexcom simulator's synthetic glucose: per-user traits (sensor generation, display device,
 * insulin, baseline and rhythm), per-day meal plans, and `Glucose`, which derives every EGV,
 * event, calibration and transmitter deterministically from (seed, user, time).
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

const g7Users = new Set([providerUserIds.dexcom("SandboxUser7")])
const g6Users = new Set(DEXCOM_SANDBOX_USERS.slice(0, 6).map((n) => providerUserIds.dexcom(n)))

const traitsOf = (seed: string, userId: string) => {
  const base = userTraits("dexcom", userId)
  const r = new Rng("dexcom-traits", seed, userId)
  const generation: Generation = g7Users.has(userId) ? "g7" : g6Users.has(userId) ? "g6" : r.pick(["g6", "g7"])
  const displayDevice: DisplayDevice = r.next() < 0.15 ? "receiver" : r.pick(["iOS", "android"])
  return {
    ...base,
    generation,
    displayDevice,
    insulin: r.chance(0.5),
    baseline: r.int(95, 150),
    rhythm: r.int(10, 30),
    rhythmPhase: r.next(),
    slotPhaseMs: r.int(0, 299) * 1000,
    start: localMidnight(base.memberSinceDay, base.zone.offsetMinutes)
  }
}

type Traits = ReturnType<typeof traitsOf>

/** A local day's meals, its level shift, and whether a night-time low comes (so readings span the range). */
const dayPlan = (seed: string, userId: string, t: Traits, day: number) => {
  const r = new Rng("dexcom-meals", seed, userId, String(day))
  const midnight = localMidnight(day, t.zone.offsetMinutes)
  const meals = [8, 12.5, 19].map((hour, i) => ({
    index: i,
    at: midnight + hour * HOUR_MS + r.int(-45, 45) * 60_000,
    carbs: r.int(20, 90),
    rise: r.int(30, 130),
    tau: r.int(40, 70) * 60_000,
    insulin: r.float(2, 10, 1)
  }))
  const shift = r.int(-20, 25)
  const low = r.chance(0.15) ? { at: midnight + 3 * HOUR_MS + r.int(0, 120) * 60_000, depth: r.int(40, 80) } : undefined
  return { midnight, meals, shift, low }
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
        const dt = ms - meal.at
        if (dt > 0 && dt < 8 * meal.tau) value += meal.rise * (dt / meal.tau) * Math.exp(1 - dt / meal.tau)
      }
    }
    if (plan.low !== undefined) {
      const dt = (ms - plan.low.at) / HOUR_MS
      value -= plan.low.depth * Math.exp(-dt * dt)
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
    const value = new Rng("dexcom-gap", this.seed, this.userId, String(ms)).chance(0.01)
      ? null
      : Math.round(clamp(this.raw(ms), 40, 400))
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
  times(ms: number) {
    const system = `${new Date(ms).toISOString().slice(0, 19)}+00:00`
    const offset = this.t.zone.offsetMinutes
    const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19)
    return {
      systemTime: system,
      displayTime: this.t.displayDevice === "receiver" ? local : `${local}${offsetString(offset)}`
    }
  }
  common(ms: number) {
    return {
      ...this.transmitter(ms),
      transmitterGeneration: this.t.generation,
      displayDevice: this.t.displayDevice
    }
  }
  egv(ms: number) {
    const value = this.value(ms)
    const previous = this.value(ms - SLOT_MS)
    const rate = value === null || previous === null ? null : round((value - previous) / 5, 1)
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
      status: value === null ? null : value <= 40 ? "low" : value >= 400 ? "high" : null,
      trend: value === null ? null : trend,
      trendRate: rate,
      unit: "mg/dL",
      rateUnit: "mg/dL/min",
      displayDevice: this.t.displayDevice,
      transmitterGeneration: this.t.generation
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
    ) =>
      out.push({
        ms,
        body: {
          recordId: uuidFrom(sha256Hex("dexcom-event", this.userId, String(day), key)),
          ...this.times(ms),
          eventStatus: "created",
          eventType,
          eventSubType,
          value,
          unit,
          ...this.common(ms)
        }
      })
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
        displayDevice: this.t.displayDevice,
        transmitterId,
        transmitterTicks,
        transmitterGeneration: this.t.generation
      }
    }]
  }
}
