/**
 * Determinism for the simulators: hashes, a small seeded PRNG (sfc32 seeded from SHA-256, so
 * the same key gives the same numbers on every run and machine), provider-style ids derived
 * from a consent-page user name, and the calendar arithmetic shared by the data generators.
 */
import * as crypto from "node:crypto"

// `crypto.hash` hashes in one call, without a `Hash` object; a year of Dexcom readings takes three hashes a reading.
export const sha256 = (...parts: ReadonlyArray<string>): Buffer => crypto.hash("sha256", parts.join("\u0000"), "buffer")

export const sha256Hex = (...parts: ReadonlyArray<string>): string => crypto.hash("sha256", parts.join("\u0000"), "hex")

/** The `i`th 32-bit little-endian word of a digest in hex, as `Buffer.readUInt32LE(4 * i)` reads it from the digest. */
const wordLE = (hex: string, i: number): number => {
  const be = parseInt(hex.slice(8 * i, 8 * i + 8), 16)
  return (((be & 0xff) << 24) | ((be & 0xff00) << 8) | ((be >>> 8) & 0xff00) | (be >>> 24)) >>> 0
}

/** A seeded generator; construct one per (seed, user, day, purpose) so values never depend on call order. */
export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number
  constructor(...key: ReadonlyArray<string>) {
    // the hex digest: a digest as a `Buffer` costs more to make than the hash itself
    const h = sha256Hex(...key)
    this.a = wordLE(h, 0)
    this.b = wordLE(h, 1)
    this.c = wordLE(h, 2)
    this.d = wordLE(h, 3)
    for (let i = 0; i < 12; i++) this.next()
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.a >>>= 0
    this.b >>>= 0
    this.c >>>= 0
    this.d >>>= 0
    let t = (this.a + this.b) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.d = (this.d + 1) | 0
    t = (t + this.d) | 0
    this.c = (this.c + t) | 0
    return (t >>> 0) / 4294967296
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  float(min: number, max: number, decimals: number): number {
    return round(min + this.next() * (max - min), decimals)
  }
  pick<A>(items: ReadonlyArray<A>): A {
    return items[Math.floor(this.next() * items.length)]!
  }
  chance(p: number): boolean {
    return this.next() < p
  }
}

export const round = (value: number, decimals: number): number => {
  const f = 10 ** decimals
  return Math.round(value * f) / f
}

export const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value))

/** A UUID-shaped string from a hash; `tail` (12 hex digits) lets callers embed a locator. */
export const uuidFrom = (hex: string, tail?: string): string => {
  const h = hex.padEnd(32, "0")
  const last = tail ?? h.slice(20, 32)
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${last}`
}

const fitbitAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

/** Provider user ids derived from the consent-page user name only, so they survive seed changes. */
export const providerUserIds = {
  fitbit: (name: string): string => {
    const h = sha256("fitbit-user", name)
    let id = ""
    for (let i = 0; i < 6; i++) id += fitbitAlphabet[h[i]! % fitbitAlphabet.length]
    return id
  },
  whoop: (name: string): number => 10_000 + (sha256("whoop-user", name).readUInt32BE(0) % 89_990_000),
  garmin: (name: string): string => sha256Hex("garmin-user", name).slice(0, 32),
  dexcom: (name: string): string => sha256Hex("dexcom-user", name)
} as const

/** A random opaque token; tokens are not derived from anything, like the real ones. */
export const randomToken = (bytes = 32): string => crypto.randomBytes(bytes).toString("base64url")

/** `fp:` plus 12 hex digits of the token's SHA-256: how the call log names secrets it saw. */
export const tokenFingerprint = (token: string): string => `fp:${sha256Hex(token).slice(0, 12)}`

/** The key under which state records a token, so the store never holds a usable token. */
export const tokenKey = (token: string): string => sha256Hex("token", token)

// ---- calendar ----

export const DAY_MS = 86_400_000

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/

/** Days since 1970-01-01 of a `yyyy-MM-dd` date, or undefined when it is not a real date. */
export const parseDay = (date: string): number | undefined => {
  const m = datePattern.exec(date)
  if (m === null) return undefined
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  const day = Math.floor(ms / DAY_MS)
  return formatDay(day) === date ? day : undefined
}

export const formatDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** UTC instant (ms) of local midnight starting `day` for a fixed offset in minutes east of UTC. */
export const localMidnight = (day: number, offsetMinutes: number): number => day * DAY_MS - offsetMinutes * 60_000

/** The local day (days since epoch) containing instant `ms`. */
export const localDayOf = (ms: number, offsetMinutes: number): number =>
  Math.floor((ms + offsetMinutes * 60_000) / DAY_MS)

/** `+hh:mm` / `-hh:mm` for an offset in minutes. */
export const offsetString = (offsetMinutes: number): string => {
  const sign = offsetMinutes < 0 ? "-" : "+"
  const abs = Math.abs(offsetMinutes)
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`
}

/** Time zones without daylight saving, so a user's UTC offset is the same on every date. */
export const zones: ReadonlyArray<{ readonly name: string; readonly offsetMinutes: number }> = [
  { name: "America/Phoenix", offsetMinutes: -420 },
  { name: "America/Bogota", offsetMinutes: -300 },
  { name: "Pacific/Honolulu", offsetMinutes: -600 },
  { name: "Atlantic/Reykjavik", offsetMinutes: 0 },
  { name: "Africa/Lagos", offsetMinutes: 60 },
  { name: "Asia/Kolkata", offsetMinutes: 330 },
  { name: "Asia/Singapore", offsetMinutes: 480 },
  { name: "Asia/Tokyo", offsetMinutes: 540 }
]

/**
 * A provider user's fixed traits: time zone and the first day with data. Like the ids they
 * depend on the user only, not on the seed, so a seed changes values but not who lives where.
 */
export const userTraits = (provider: string, userId: string) => {
  const r = new Rng("traits", provider, userId)
  const zone = r.pick(zones)
  // 2023-01-01 is day 19358; members joined some time during 2023
  const memberSinceDay = 19_358 + r.int(0, 364)
  return { zone, memberSinceDay }
}
