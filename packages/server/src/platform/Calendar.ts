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

/** The local date of `instant` in `timeZone` (`YYYY-MM-DD`); an unknown zone throws, as `Intl` does. */
export const localDate = (instant: Date, timeZone: string): string => {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    .formatToParts(instant)
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

const formatters = new Map<string, Intl.DateTimeFormat>()

const formatter = (timeZone: string): Intl.DateTimeFormat => {
  let f = formatters.get(timeZone)
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", hour: "numeric", minute: "numeric" })
    } catch {
      f = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", hourCycle: "h23", hour: "numeric", minute: "numeric" })
    }
    formatters.set(timeZone, f)
  }
  return f
}

/** Minutes after local midnight of `instant` in `timeZone` (an unknown zone reads as UTC). */
export const localMinuteOfDay = (instant: Date, timeZone: string): number => {
  let hour = 0
  let minute = 0
  for (const part of formatter(timeZone).formatToParts(instant)) {
    if (part.type === "hour") hour = Number(part.value)
    else if (part.type === "minute") minute = Number(part.value)
  }
  return hour * 60 + minute
}
