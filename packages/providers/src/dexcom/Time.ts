/**
 * Dexcom's time stamps, read leniently, and the local offset of a record.
 *
 * Dexcom writes `systemTime` (UTC by the device's clock) and `displayTime` (the clock the user
 * saw) in several forms, depending on the device that recorded them:
 * - app records (`displayDevice` `iOS`/`android`): a UTC offset, sometimes with seconds
 *   (`2024-03-10T01:12:35-08:00:00`), and `systemTime` often ending in `Z`;
 * - receiver records (`displayDevice` `receiver`): no offset at all;
 * - some records without seconds (`2021-02-03T14:15Z`).
 *
 * Rules (after tidepool-org/platform `dexcom/time.go` and `dexcom/fetch/translate.go`):
 * - A time stamp is `YYYY-MM-DD`, `T` or a space, `hh:mm`, optional `:ss` and fraction, and an
 *   optional zone: `Z`, or `±hh`, `±hh:mm`, `±hhmm`, `±hh:mm:ss`. Offset seconds are rounded to
 *   the nearest minute (`-06:59:58` is `-07:00`).
 * - `systemTime` without a zone is UTC.
 * - `displayTime` with a numeric offset: that offset is the record's local offset.
 * - `displayTime` without an offset, or ending in `Z`: the written time is the device's wall
 *   clock; the local offset is `displayTime - systemTime` rounded to 30 minutes (half away from
 *   zero), brought into -12:00..+14:00 by whole days (a receiver whose date is set wrong). A true
 *   UTC `Z` time gives a difference near zero, so it reads the same either way.
 * - The record's `date` is the date of the wall clock as written; its `displayTime` instant is the
 *   wall clock minus the local offset (so it differs from `systemTime` only by the clock's drift).
 */

/** A time stamp as written: its wall clock read as if it were UTC, and the zone written with it. */
export interface DexcomWrittenTime {
  /** The written date and time, as milliseconds of the same wall clock in UTC. */
  readonly wallMs: number
  /** Minutes east of UTC of a numeric offset; `null` for `Z` or no zone. */
  readonly offsetMinutes: number | null
  /** Whether the stamp ended in `Z`. */
  readonly zulu: boolean
}

const timePattern =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?(?:([zZ])|([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/

/** Days in a month (1-12) of the year `Date.UTC` reads (it takes 0-99 as 1900-1999). */
const daysInMonth = (year: number, month: number): number => {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
  const y = year >= 0 && year <= 99 ? 1900 + year : year
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28
}

/** The regular-expression reading of a time stamp: every form the rules allow (`parseDexcomTime`). */
export const parseDexcomTimeByPattern = (text: string): DexcomWrittenTime | undefined => {
  const m = timePattern.exec(text.trim())
  if (m === null) return undefined
  return writtenTime(
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    m[6] === undefined ? 0 : Number(m[6]),
    m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000),
    m[8] !== undefined ? Zone.Zulu : m[9] === undefined ? Zone.None : m[9] === "-" ? Zone.West : Zone.East,
    m[10] === undefined ? 0 : Number(m[10]),
    m[11] === undefined ? 0 : Number(m[11]),
    m[12] === undefined ? 0 : Number(m[12])
  )
}

/** The zone written after a time. */
const Zone = { None: 0, Zulu: 1, East: 2, West: 3 } as const
type Zone = (typeof Zone)[keyof typeof Zone]

/** The checks and the arithmetic of both readings, from the parts as written. */
const writtenTime = (
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millis: number,
  zone: Zone,
  offsetHours: number,
  offsetMins: number,
  offsetSecs: number
): DexcomWrittenTime | undefined => {
  // an impossible date (31 April) is refused rather than rolled over into the next month
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  const wallMs = Date.UTC(year, month - 1, day, hour, minute, second, millis)
  if (zone === Zone.Zulu) return { wallMs, offsetMinutes: null, zulu: true }
  if (zone === Zone.None) return { wallMs, offsetMinutes: null, zulu: false }
  if (offsetHours > 14 || offsetMins > 59 || offsetSecs > 59) return undefined
  const minutes = offsetHours * 60 + offsetMins + (offsetSecs >= 30 ? 1 : 0)
  return { wallMs, offsetMinutes: zone === Zone.West ? -minutes : minutes, zulu: false }
}

/** The digit at `i`, or -1. */
const digitAt = (text: string, i: number): number => {
  const d = text.charCodeAt(i) - 48
  return d >= 0 && d <= 9 ? d : -1
}

/** The two digits at `i` as a number, or -1. */
const twoDigitsAt = (text: string, i: number): number => {
  const a = digitAt(text, i)
  const b = digitAt(text, i + 1)
  return a < 0 || b < 0 ? -1 : a * 10 + b
}

const char = { dash: 45, colon: 58, plus: 43, space: 32, T: 84, Z: 90, z: 122 } as const

/**
 * The forms Dexcom writes most, read by position without a regular expression (a year of readings is some 210,000
 * time stamps): `YYYY-MM-DDThh:mm:ss` with nothing after it, `Z`, `±hh:mm` or `±hh:mm:ss`. `null` for any other
 * form, which the pattern then reads; the result is the pattern's (`Time.test.ts` holds the two to each other).
 */
const parseCommonForm = (text: string): DexcomWrittenTime | undefined | null => {
  const length = text.length
  if (length !== 19 && length !== 20 && length !== 25 && length !== 28) return null
  const century = twoDigitsAt(text, 0)
  const yearOf = twoDigitsAt(text, 2)
  const month = twoDigitsAt(text, 5)
  const day = twoDigitsAt(text, 8)
  const hour = twoDigitsAt(text, 11)
  const minute = twoDigitsAt(text, 14)
  const second = twoDigitsAt(text, 17)
  const t = text.charCodeAt(10)
  if (
    century < 0 || yearOf < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 ||
    text.charCodeAt(4) !== char.dash || text.charCodeAt(7) !== char.dash || (t !== char.T && t !== char.space) ||
    text.charCodeAt(13) !== char.colon || text.charCodeAt(16) !== char.colon
  ) return null
  const year = century * 100 + yearOf
  if (length === 19) return writtenTime(year, month, day, hour, minute, second, 0, Zone.None, 0, 0, 0)
  const sign = text.charCodeAt(19)
  if (length === 20) {
    return sign === char.Z || sign === char.z
      ? writtenTime(year, month, day, hour, minute, second, 0, Zone.Zulu, 0, 0, 0)
      : null
  }
  const offsetHours = twoDigitsAt(text, 20)
  const offsetMins = twoDigitsAt(text, 23)
  const offsetSecs = length === 28 && text.charCodeAt(25) === char.colon
    ? twoDigitsAt(text, 26)
    : length === 25
    ? 0
    : -1
  if (
    (sign !== char.plus && sign !== char.dash) || offsetHours < 0 || text.charCodeAt(22) !== char.colon ||
    offsetMins < 0 || offsetSecs < 0
  ) return null
  const zone = sign === char.dash ? Zone.West : Zone.East
  return writtenTime(year, month, day, hour, minute, second, 0, zone, offsetHours, offsetMins, offsetSecs)
}

/** A Dexcom time stamp, or `undefined` when it is none (an impossible date or hour included). */
export const parseDexcomTime = (text: string): DexcomWrittenTime | undefined => {
  const common = parseCommonForm(text)
  return common === null ? parseDexcomTimeByPattern(text) : common
}

/** Whether `text` is a time stamp `parseDexcomTime` reads. */
export const isDexcomTime = (text: string): boolean => parseDexcomTime(text) !== undefined

const minuteMs = 60_000
const slotMinutes = 30
const maxOffsetMinutes = 14 * 60
const minOffsetMinutes = -12 * 60
const dayMinutes = 24 * 60

/**
 * The local offset (minutes east of UTC) of a wall clock that reads `wallMs` at the UTC instant
 * `systemMs`: the difference rounded to 30 minutes, half away from zero, brought into
 * -12:00..+14:00 by whole days.
 */
export const inferredOffsetMinutes = (wallMs: number, systemMs: number): number => {
  const delta = (wallMs - systemMs) / minuteMs / slotMinutes
  let minutes = Math.sign(delta) * Math.floor(Math.abs(delta) + 0.5) * slotMinutes
  while (minutes > maxOffsetMinutes) minutes -= dayMinutes
  while (minutes < minOffsetMinutes) minutes += dayMinutes
  // `Math.sign(-0.2) * 0` is -0; an offset of zero is written +00:00
  return minutes === 0 ? 0 : minutes
}

/** A record's times: both instants, the local offset and the local date. */
export interface DexcomRecordTimes {
  readonly systemTime: Date
  readonly displayTime: Date
  /** Minutes east of UTC: written with `displayTime`, or inferred. */
  readonly offsetMinutes: number
  /** Whether the offset was inferred from `displayTime - systemTime`. */
  readonly offsetInferred: boolean
  /** The date of `displayTime`'s wall clock (`YYYY-MM-DD`). */
  readonly date: string
}

/**
 * The date of a wall clock: as written when the text opens with `YYYY-MM-DD` of a year from 1000 (a date it read, so
 * the same as the instant's), else from the instant.
 */
const wallDate = (text: string, wallMs: number): string =>
  text.length >= 10 && text.charCodeAt(4) === char.dash && text.charCodeAt(7) === char.dash &&
    digitAt(text, 0) > 0 && twoDigitsAt(text, 5) >= 0 && twoDigitsAt(text, 8) >= 0
    ? text.slice(0, 10)
    : new Date(wallMs).toISOString().slice(0, 10)

/** Thrown for a time stamp that cannot be read; the message names the field, never a token. */
export class DexcomTimeError extends Error {}

/** The times of a record from its `systemTime` and `displayTime` as written (rules above). */
export const dexcomRecordTimes = (systemTime: string, displayTime: string): DexcomRecordTimes => {
  const system = parseDexcomTime(systemTime)
  if (system === undefined) throw new DexcomTimeError("systemTime is not an ISO 8601 date-time")
  const display = parseDexcomTime(displayTime)
  if (display === undefined) throw new DexcomTimeError("displayTime is not an ISO 8601 date-time")
  const systemMs = system.wallMs - (system.offsetMinutes ?? 0) * minuteMs
  const offsetInferred = display.offsetMinutes === null
  const offsetMinutes = display.offsetMinutes ?? inferredOffsetMinutes(display.wallMs, systemMs)
  return {
    systemTime: new Date(systemMs),
    displayTime: new Date(display.wallMs - offsetMinutes * minuteMs),
    offsetMinutes,
    offsetInferred,
    date: wallDate(displayTime, display.wallMs)
  }
}
