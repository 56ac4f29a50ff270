/**
 * The user page's data shaped for its charts: one series per provider, never one provider's values
 * merged into another's. A provider keeps its colour on every chart of the page (the legend names it,
 * and the series' fill or dash tells it apart without colour).
 */
import type { UserOverview } from "../../api.js"
import type { Series } from "../../Chart.js"

/** Colours with at least 4.5:1 contrast on white, far from the meal marks' amber. */
const palette = ["#1d4ed8", "#be185d", "#0f766e", "#7c3aed", "#4d7c0f", "#0e7490", "#9f1239", "#374151"]

export type Colors = ReadonlyMap<string, string>

/** What a section of the user page draws from: the overview, its days, and each provider's colour. */
export interface SectionProps {
  readonly overview: UserOverview
  readonly days: ReadonlyArray<string>
  readonly colors: Colors
}

/** Each series with how many of its points have a value, for a chart's text summary ("Fitbit 12 days, ..."). */
export const pointCounts = (
  series: ReadonlyArray<{ readonly label: string; readonly values: ReadonlyArray<number | null> }>,
  unit?: string
) =>
  series.map((s) => {
    const count = s.values.filter((v) => v !== null).length
    return unit === undefined ? `${s.label} ${count}` : `${s.label} ${count} ${unit}`
  }).join(", ")

/** A colour per provider, in the providers' alphabetical order. */
export const colorsOf = (providers: Iterable<string>): Colors =>
  new Map([...new Set(providers)].sort().map((provider, i) => [provider, palette[i % palette.length]!]))

/** The range's days, `from` to `to` inclusive (YYYY-MM-DD). */
export const daysOf = (from: string, to: string): ReadonlyArray<string> => {
  const days: Array<string> = []
  for (let d = Date.parse(`${from}T00:00:00Z`); d <= Date.parse(`${to}T00:00:00Z`); d += 86_400_000) {
    days.push(new Date(d).toISOString().slice(0, 10))
  }
  return days
}

/** A local date at noon, in seconds: the middle of its bar whatever the viewer's zone. */
export const dayAt = (date: string) => new Date(`${date}T12:00:00`).getTime() / 1000

const providersIn = (records: ReadonlyArray<{ readonly provider: string }>) =>
  [...new Set(records.map((r) => r.provider))].sort()

/**
 * One value per day and provider: `pick` chooses among a provider's records of a day (the default, the
 * last one), `value` reads it; a day without a record, or whose record has no value, is null.
 */
export const dailySeries = <R extends { readonly provider: string; readonly date: string }>(
  days: ReadonlyArray<string>,
  records: ReadonlyArray<R>,
  colors: Colors,
  value: (record: R) => number | null,
  pick: (a: R, b: R) => R = (_a, b) => b
): ReadonlyArray<Series> =>
  providersIn(records.filter((r) => value(r) !== null)).map((provider) => {
    const byDay = new Map<string, R>()
    for (const r of records) {
      if (r.provider !== provider || value(r) === null) continue
      const seen = byDay.get(r.date)
      byDay.set(r.date, seen === undefined ? r : pick(seen, r))
    }
    return {
      label: provider,
      color: colors.get(provider) ?? palette[0]!,
      values: days.map((d) => {
        const r = byDay.get(d)
        return r === undefined ? null : value(r)
      })
    }
  })

/**
 * Values at instants, one series per provider, aligned on the union of the instants (a provider without a
 * value at an instant has null there), as uPlot takes them.
 */
export const instantSeries = <R extends { readonly provider: string }>(
  records: ReadonlyArray<R>,
  colors: Colors,
  at: (record: R) => number,
  value: (record: R) => number | null
): { readonly x: ReadonlyArray<number>; readonly series: ReadonlyArray<Series> } => {
  const kept = records.filter((r) => value(r) !== null)
  const x = [...new Set(kept.map(at))].sort((a, b) => a - b)
  const index = new Map(x.map((t, i) => [t, i]))
  const series = providersIn(kept).map((provider) => {
    const values: Array<number | null> = x.map(() => null)
    for (const r of kept) if (r.provider === provider) values[index.get(at(r))!] = value(r)
    return { label: provider, color: colors.get(provider) ?? palette[0]!, values }
  })
  return { x, series }
}

/** "Fitbit 16, Garmin 15": how many records each provider has. */
export const countsByProvider = (records: ReadonlyArray<{ readonly provider: string }>) =>
  providersIn(records).map((p) => `${p} ${records.filter((r) => r.provider === p).length}`).join(", ")

/** "Fitbit, Garmin", or "no provider". */
export const providerNames = (records: ReadonlyArray<{ readonly provider: string }>) =>
  providersIn(records).join(", ") || "no provider"

export const round = (value: number | null, digits = 0) =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits

/** A table cell's number: rounded to `digits` decimals and grouped, or empty when there is none. */
export const cell = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined
    ? ""
    : value.toLocaleString(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits })

const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" })
const dayAndClock = new Intl.DateTimeFormat(undefined, {
  weekday: "short",
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit"
})

const dayAndClockUtc = new Intl.DateTimeFormat(undefined, {
  weekday: "short",
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC"
})
const clockUtc = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: "UTC" })

/**
 * "Mon 23 Nov, 23:10": on the wearer's clock when the record gives its offset from UTC (a night reads as the
 * sleeper lived it), else in the viewer's zone.
 */
export const whenOf = (utc: string, offsetMinutes: number | null = null) =>
  offsetMinutes === null
    ? dayAndClock.format(new Date(utc))
    : dayAndClockUtc.format(new Date(Date.parse(utc) + offsetMinutes * 60_000))
/** "07:02", as `whenOf`. */
export const clockOf = (utc: string, offsetMinutes: number | null = null) =>
  offsetMinutes === null
    ? clock.format(new Date(utc))
    : clockUtc.format(new Date(Date.parse(utc) + offsetMinutes * 60_000))

/** The wall-clock time of an instant on the wearer's clock (the instant itself without an offset), to sort by. */
export const wallClock = (utc: string, offsetMinutes: number | null = null) =>
  Date.parse(utc) + (offsetMinutes ?? 0) * 60_000

/**
 * Newest first, by `date` then by the given time (for records of wearers' clocks, the wall-clock time, so a
 * table of several providers reads in the order of the times it shows).
 */
export const newestFirst = <R extends { readonly date: string }>(
  records: ReadonlyArray<R>,
  time: (r: R) => number | string
) =>
  [...records].sort((a, b) => {
    const ta = time(a)
    const tb = time(b)
    return b.date.localeCompare(a.date) || (tb > ta ? 1 : tb < ta ? -1 : 0)
  })
