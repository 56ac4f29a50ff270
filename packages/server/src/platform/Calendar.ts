/**
 * The one set of date helpers: calendar arithmetic on local dates (`YYYY-MM-DD`) as whole days since
 * 1970-01-01, and the local date and clock time of an instant in a time zone.
 */

const DayMs = 86_400_000

/** Days since 1970-01-01 of a `YYYY-MM-DD` date. */
export const dayNumber = (date: string): number =>
  Math.round(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DayMs)

export const dateOf = (day: number): string => new Date(day * DayMs).toISOString().slice(0, 10)

/** The Monday starting the ISO week of `day` (1970-01-01 was a Thursday). */
export const isoWeekStart = (day: number): number => day - ((day + 3) % 7 + 7) % 7

export const addDays = (date: string, days: number): string => dateOf(dayNumber(date) + days)

/**
 * Formatters by time zone: building one costs some 100 µs, using one a few. Each map stops growing at
 * `formattersMax` zones (there are some 600 names, letter case aside); a zone past it gets a formatter of its own
 * each time.
 */
const formattersMax = 2048

const cachedFormatter = (
  cache: Map<string, Intl.DateTimeFormat>,
  timeZone: string,
  make: (timeZone: string) => Intl.DateTimeFormat
): Intl.DateTimeFormat => {
  let f = cache.get(timeZone)
  if (f === undefined) {
    f = make(timeZone)
    if (cache.size < formattersMax) cache.set(timeZone, f)
  }
  return f
}

const dateFormatters = new Map<string, Intl.DateTimeFormat>()

const dateFormatter = (timeZone: string): Intl.DateTimeFormat =>
  new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })

/** The local date of `instant` in `timeZone` (`YYYY-MM-DD`); an unknown zone throws, as `Intl` does. */
export const localDate = (instant: Date, timeZone: string): string => {
  const parts = cachedFormatter(dateFormatters, timeZone, dateFormatter).formatToParts(instant)
  const get = (type: string) => parts.find((p) => p.type === type)!.value
  return `${get("year")}-${get("month")}-${get("day")}`
}

/** Today's calendar date in a time zone (UTC when unknown or invalid). */
export const localToday = (now: Date, timeZone: string | null): string => {
  try {
    return localDate(now, timeZone ?? "UTC")
  } catch {
    return now.toISOString().slice(0, 10)
  }
}

const clockFormatters = new Map<string, Intl.DateTimeFormat>()

const clockFormatter = (timeZone: string): Intl.DateTimeFormat => {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", hour: "numeric", minute: "numeric" })
  } catch {
    return new Intl.DateTimeFormat("en-US", { timeZone: "UTC", hourCycle: "h23", hour: "numeric", minute: "numeric" })
  }
}

/** Minutes after local midnight of `instant` in `timeZone` (an unknown zone reads as UTC). */
export const localMinuteOfDay = (instant: Date, timeZone: string): number => {
  let hour = 0
  let minute = 0
  for (const part of cachedFormatter(clockFormatters, timeZone, clockFormatter).formatToParts(instant)) {
    if (part.type === "hour") hour = Number(part.value)
    else if (part.type === "minute") minute = Number(part.value)
  }
  return hour * 60 + minute
}
