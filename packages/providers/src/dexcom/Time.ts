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

/** A Dexcom time stamp, or `undefined` when it is none (an impossible date or hour included). */
export const parseDexcomTime = (text: string): DexcomWrittenTime | undefined => {
  const m = timePattern.exec(text.trim())
  if (m === null) return undefined
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const hour = Number(m[4])
  const minute = Number(m[5])
  const second = m[6] === undefined ? 0 : Number(m[6])
  const millis = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000)
  // an impossible date (31 April) is refused rather than rolled over into the next month
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  const wallMs = Date.UTC(year, month - 1, day, hour, minute, second, millis)
  if (m[8] !== undefined) return { wallMs, offsetMinutes: null, zulu: true }
  if (m[9] === undefined) return { wallMs, offsetMinutes: null, zulu: false }
  const offsetHours = Number(m[10])
  const offsetMins = m[11] === undefined ? 0 : Number(m[11])
  const offsetSecs = m[12] === undefined ? 0 : Number(m[12])
  if (offsetHours > 14 || offsetMins > 59 || offsetSecs > 59) return undefined
  const minutes = offsetHours * 60 + offsetMins + (offsetSecs >= 30 ? 1 : 0)
  return { wallMs, offsetMinutes: m[9] === "-" ? -minutes : minutes, zulu: false }
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
    date: new Date(display.wallMs).toISOString().slice(0, 10)
  }
}
