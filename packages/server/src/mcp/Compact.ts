/**
 * The pieces of a compact tool answer, the text an assistant reads: numbers rounded to what they mean, `-` for
 * a missing value, a table of one header line (naming each column with its unit) and one line per row with no key
 * repeated, the lines that say which part of the range an answer holds and where to continue, and the days of a
 * range without data. Pure functions; each tool's own rendering (`Render*.ts`) is built from them.
 */
import { addDays, dayNumber, localMinuteOfDay } from "../platform/Calendar.js"

/** A missing value in a table or a summary. */
export const none = "-"

/**
 * `value` rounded to `digits` decimals, without trailing zeros (`7.0` is `7`) or a negative zero; null is `-`.
 * Never thousands separators, which would read as column separators.
 */
export const num = (value: number | null | undefined, digits = 0): string => {
  if (value === null || value === undefined || !Number.isFinite(value)) return none
  const factor = 10 ** digits
  const rounded = Math.round(value * factor) / factor
  return String(Object.is(rounded, -0) || rounded === 0 ? 0 : Number(rounded.toFixed(digits)))
}

/** A signed figure (`+0.4`, `-1.2`, `0`), for deviations and changes. */
export const signed = (value: number | null | undefined, digits = 0): string => {
  const text = num(value, digits)
  return text !== none && text !== "0" && !text.startsWith("-") ? `+${text}` : text
}

/** The mean of the present values, or null when there is none. */
export const mean = (values: ReadonlyArray<number | null | undefined>): number | null => {
  const present = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v))
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0) / present.length
}

/** The sum of the present values, or null when there is none. */
export const sum = (values: ReadonlyArray<number | null | undefined>): number | null => {
  const present = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v))
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0)
}

/** The rows with the highest and the lowest present `value` (the first on a tie), or null when none has one. */
export const extremes = <A>(
  rows: ReadonlyArray<A>,
  value: (row: A) => number | null | undefined
): { readonly best: A; readonly worst: A } | null => {
  let best: A | undefined
  let worst: A | undefined
  for (const row of rows) {
    const v = value(row)
    if (typeof v !== "number" || !Number.isFinite(v)) continue
    if (best === undefined || v > (value(best) as number)) best = row
    if (worst === undefined || v < (value(worst) as number)) worst = row
  }
  return best === undefined || worst === undefined ? null : { best, worst }
}

/** A text cell: on one line, quoted as CSV when it holds a comma or a quote, cut to `max` characters. */
export const text = (value: string | null | undefined, max = 200): string => {
  if (value === null || value === undefined || value === "") return none
  const line = value.replace(/\s+/g, " ").trim()
  const cut = line.length > max ? `${line.slice(0, max - 1)}…` : line
  return /[",]/.test(cut) ? `"${cut.replace(/"/g, "\"\"")}"` : cut
}

export interface Column<A> {
  /** The column's name with its unit, e.g. `asleep h`. */
  readonly header: string
  readonly cell: (row: A) => string
}

/**
 * A table as CSV: a header line, then a line per row. Columns marked `when: false`, and columns no row has a value
 * in (every cell `-`) unless marked `keep`, are left out.
 */
export const table = <A>(
  columns: ReadonlyArray<Column<A> & { readonly when?: boolean; readonly keep?: boolean }>,
  rows: ReadonlyArray<A>
): string => {
  const cells = columns.filter((column) => column.when !== false).map((column) => ({
    header: column.header,
    keep: column.keep === true,
    cells: rows.map(column.cell)
  })).filter((column) => column.keep || column.cells.some((cell) => cell !== none))
  return [
    cells.map((column) => column.header).join(","),
    ...rows.map((_, i) => cells.map((column) => column.cells[i]).join(","))
  ].join("\n")
}

/** `1 night`, `2 nights`. */
export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`

/** `HH:MM` of an instant at a fixed offset east of UTC; with no offset, UTC marked `Z`. */
export const clockAtOffset = (utc: string | null, offsetMinutes: number | null): string => {
  if (utc === null) return none
  const ms = Date.parse(utc)
  if (Number.isNaN(ms)) return none
  const minutes = Math.floor(((ms / 60_000 + (offsetMinutes ?? 0)) % 1440 + 1440) % 1440)
  return hhmm(minutes) + (offsetMinutes === null ? "Z" : "")
}

/** `HH:MM` of an instant in a time zone (an unknown zone reads as UTC). */
export const clockInZone = (utc: string, timeZone: string): string => {
  const ms = Date.parse(utc)
  return Number.isNaN(ms) ? none : hhmm(localMinuteOfDay(new Date(ms), timeZone))
}

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`

/** `YYYY-MM-DDTHH:MMZ` of a timestamp: to the minute, which is all an assistant needs of it. */
export const minuteUtc = (utc: string | null): string => utc === null ? none : `${utc.slice(0, 16)}Z`

/** The envelope of a range answer: the requested range and what its size bound cut. */
export interface RangeEnvelope {
  readonly from: string
  readonly to: string
  readonly continueFrom: string | null
  readonly partialDay: { readonly date: string; readonly shown: number; readonly total: number } | null
}

/** The last day an answer holds: the day before `continueFrom`, or `to` when it holds the whole range. */
export const lastShown = (answer: RangeEnvelope): string =>
  answer.continueFrom === null ? answer.to : addDays(answer.continueFrom, -1)

/** The range in words: `2026-03-01 to 2026-03-07 (7 days)`. */
export const rangeWords = (from: string, to: string): string => {
  const days = dayNumber(to) - dayNumber(from) + 1
  return from === to ? `${from} (1 day)` : `${from} to ${to} (${days} days)`
}

/**
 * The lines that say what a cut answer holds and how to get the rest; none when it holds the whole range. They
 * come right after the summary's first line, so an assistant cannot miss them.
 */
export const pagingLines = (answer: RangeEnvelope): ReadonlyArray<string> => {
  const lines: Array<string> = []
  if (answer.partialDay !== null) {
    const { date, shown, total } = answer.partialDay
    lines.push(
      `PARTIAL DAY: ${date} alone is over the answer's size bound; only its first ${shown} of ${total} items are ` +
        "shown (the REST API serves the whole day)."
    )
  }
  if (answer.continueFrom !== null) {
    lines.push(
      `CUT: this answer covers ${answer.from} to ${lastShown(answer)} only. For the rest, call again with ` +
        `from=${answer.continueFrom} and to=${answer.to}.`
    )
  }
  return lines
}

/**
 * The days from `from` to `to` not in `present`, as runs: `2026-03-03, 2026-03-05..2026-03-07`; `none` when
 * every day is present. At most `maxRuns` runs are listed, then how many more.
 */
export const missingDays = (from: string, to: string, present: ReadonlySet<string>, maxRuns = 8): string => {
  const runs: Array<string> = []
  const first = dayNumber(from)
  const last = dayNumber(to)
  let start: number | null = null
  let total = 0
  for (let day = first; day <= last + 1; day++) {
    const missing = day <= last && !present.has(addDays(from, day - first))
    if (missing) {
      total++
      if (start === null) start = day
    } else if (start !== null) {
      const a = addDays(from, start - first)
      const b = addDays(from, day - 1 - first)
      runs.push(a === b ? a : `${a}..${b}`)
      start = null
    }
  }
  if (runs.length === 0) return "none"
  const listed = runs.slice(0, maxRuns).join(", ")
  return `${total} (${listed}${runs.length > maxRuns ? `, and ${runs.length - maxRuns} more runs` : ""})`
}

/** The count of each distinct value, in first-seen order: `Fitbit 7, Garmin 6`. */
export const counts = (values: ReadonlyArray<string>): string => {
  const map = new Map<string, number>()
  for (const v of values) map.set(v, (map.get(v) ?? 0) + 1)
  return [...map].map(([k, n]) => `${k} ${n}`).join(", ")
}

/** The distinct values, in first-seen order. */
export const distinct = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> => [...new Set(values)]

/** The rows grouped by a key, in first-seen order. */
export const groupBy = <A>(rows: ReadonlyArray<A>, key: (row: A) => string): ReadonlyArray<[string, Array<A>]> => {
  const map = new Map<string, Array<A>>()
  for (const row of rows) {
    const k = key(row)
    const list = map.get(k)
    if (list === undefined) map.set(k, [row])
    else list.push(row)
  }
  return [...map]
}

/** Lines joined, with the empty ones left out. */
export const lines = (...parts: ReadonlyArray<string | ReadonlyArray<string> | null>): string =>
  parts.flatMap((part) => part === null ? [] : typeof part === "string" ? [part] : part).filter((l) => l !== "")
    .join("\n")

/** What every tool's description says of its text. */
export const formatNote = " The text is compact: a summary, then a CSV table whose header names each column's unit; " +
  "numbers rounded to their meaning, `-` for none. `format: \"json\"` gives the full data as JSON text instead."
