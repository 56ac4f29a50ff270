/**
 * The WHOOP simulator's deterministic skeleton: record ids (cycle ids from a per-user base,
 * UUIDs that embed day, kind and index so by-id lookups need no store), and each local day's
 * plan of sleep, nap and workouts.
 */
import { localMidnight, Rng, sha256, sha256Hex, userTraits, uuidFrom } from "../core/Random.js"

// ---- synthetic data ----

export interface Rec {
  readonly startMs: number
  /** Undefined while in progress (the current cycle). */
  readonly endMs: number | undefined
  readonly id: string
  readonly body: Record<string, unknown>
}

export type Kind = "cycle" | "sleep" | "recovery" | "workout"

const KIND_CODE = { sleep: "1", nap: "2", workout: "3" } as const

export const iso = (ms: number) => new Date(ms).toISOString()

const sports = [
  { name: "running", distance: true, altitude: true },
  { name: "cycling", distance: true, altitude: true },
  { name: "walking", distance: true, altitude: true },
  { name: "swimming", distance: true, altitude: false },
  { name: "weightlifting", distance: false, altitude: false },
  { name: "functional-fitness", distance: false, altitude: false },
  { name: "yoga", distance: false, altitude: false }
] as const

export const cycleBase = (userId: number) =>
  (100_000 + (sha256("whoop-cycle", String(userId)).readUInt32BE(0) % 900_000)) * 100_000

const idCheck = (userId: number) => sha256Hex("whoop-id", String(userId)).slice(0, 4)

export const eventUuid = (userId: number, day: number, kind: keyof typeof KIND_CODE, index: number) =>
  uuidFrom(
    sha256Hex("whoop-uuid", String(userId), String(day), kind, String(index)),
    `${KIND_CODE[kind]}${index.toString(16)}${day.toString(16).padStart(6, "0")}${idCheck(userId)}`
  )

/** Day, kind and index embedded in a simulator UUID, for by-id lookups. */
export const parseUuid = (id: string) => {
  const m = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-([123])([0-9a-f])([0-9a-f]{6})([0-9a-f]{4})$/.exec(
    id
  )
  if (m === null) return undefined
  const kind = m[1] === "1" ? "sleep" : m[1] === "2" ? "nap" : "workout"
  return { kind, index: parseInt(m[2]!, 16), day: parseInt(m[3]!, 16) } as const
}

/** The physiology of one local day: the night's sleep ending that morning, an optional nap, workouts. */
export const dayPlan = (seed: string, userId: number, day: number) => {
  const { zone } = userTraits("whoop", String(userId))
  const midnight = localMidnight(day, zone.offsetMinutes)
  const r = new Rng("whoop-day", seed, String(userId), String(day))
  const onset = (d: number) => {
    const rr = new Rng("whoop-onset", seed, String(userId), String(d))
    return localMidnight(d, zone.offsetMinutes) - 2 * 3_600_000 + rr.int(0, 7200) * 1000 + rr.int(0, 999)
  }
  const wake = midnight + 6 * 3_600_000 + r.int(0, 9000) * 1000 + r.int(0, 999)
  const nap = r.chance(0.25)
    ? (() => {
      const start = midnight + 14 * 3_600_000 + r.int(0, 3600) * 1000
      return { start, end: start + r.int(20, 60) * 60_000 }
    })()
    : undefined
  const count = r.next() < 0.35 ? 0 : r.next() < 0.7 ? 1 : 2
  const workouts = Array.from({ length: count }, (_, i) => {
    const windowStart = midnight + (i === 0 ? 7 : 16) * 3_600_000
    const start = Math.max(windowStart + r.int(0, 3 * 3600) * 1000, wake + 30 * 60_000)
    return { start, end: start + r.int(20, 90) * 60_000, sport: r.pick(sports), index: i }
  })
  return { zone, onset: onset(day), nextOnset: onset(day + 1), wake, nap, workouts }
}

export const nameParts = (name: string) => {
  const parts = name.split(/[\s._-]+/).filter((p) => p !== "")
  const cap = (p: string) => p.charAt(0).toUpperCase() + p.slice(1)
  return {
    first: cap(parts[0] ?? "Sandbox"),
    last: cap(parts.slice(1).join(" ") || "User")
  }
}
