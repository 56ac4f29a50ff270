/**
 * Withings' time: instants are Unix seconds, and every record names the user's IANA time zone (`timezone`,
 * "Timezone for the date"); its local date is the date in that zone. Offsets come from the zone's rules at the
 * instant (the runtime's time-zone data), so a record across a change of clocks is dated right.
 */
import { localDate } from "../Shared.js"

const formatters = new Map<string, Intl.DateTimeFormat>()

/**
 * How many zones' formatters are kept. The names come from the provider's records, and `Intl` takes a zone in any
 * letter case, so the names a response can carry are not few; past this many a formatter is made and not kept.
 */
const formattersMax = 1024

/** How many zones' formatters are kept now: never more than `formattersMax`. */
export const keptFormatters = (): number => formatters.size

/** Throws a `RangeError` for a zone the runtime does not know: the record is then quarantined. */
const formatterOf = (zone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(zone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit"
    })
    if (formatters.size < formattersMax) formatters.set(zone, formatter)
  }
  return formatter
}

/** Minutes east of UTC of `zone` at the instant `ms`. */
export const zoneOffsetMinutes = (zone: string, ms: number): number => {
  const parts: Record<string, number> = {}
  for (const part of formatterOf(zone).formatToParts(new Date(ms))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value)
  }
  const wall = Date.UTC(
    parts["year"]!,
    parts["month"]! - 1,
    parts["day"]!,
    parts["hour"]!,
    parts["minute"]!,
    parts["second"]!
  )
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000)
}

/** The local date, in `zone`, of the Unix time `seconds`. */
export const withingsLocalDate = (seconds: number, zone: string): string =>
  localDate(seconds * 1000, zoneOffsetMinutes(zone, seconds * 1000))

/** Whether the runtime knows `zone`. */
export const isKnownZone = (zone: string): boolean => {
  try {
    formatterOf(zone)
    return true
  } catch {
    return false
  }
}
