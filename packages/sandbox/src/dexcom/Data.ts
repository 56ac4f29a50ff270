/**
 * The Dexcom simulator's record windows: the date parameters as Dexcom reads them, clipping a
 * request to what exists (first day, retrospective delay), the records of a kind in a window
 * newest first, and `dexcomRecords`, the same answer for assertions.
 */
import * as Effect from "effect/Effect"
import { localDayOf } from "../core/Random.js"
import { Glucose } from "./Glucose.js"
import { DATA_DELAY_MS, SLOT_MS } from "./Shapes.js"

const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?$/

/** A Dexcom date parameter: ISO 8601 without offset, read as UTC. */
export const parseDexcomDate = (value: string | null): number | undefined => {
  if (value === null || !dateTimePattern.test(value)) return undefined
  const ms = Date.parse(`${value}Z`)
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== value.slice(0, 19)) return undefined
  return ms
}

export const plainTime = (ms: number) => new Date(ms).toISOString().slice(0, 19)

export type DexcomRecordKind = "egv" | "event" | "calibration"

/** A request window clipped to what exists: from the user's first day to the newest delayed data. */
export const clip = (glucose: Glucose, start: number, end: number, latestMs: number) => ({
  from: Math.max(start, glucose.t.start),
  to: Math.min(end, latestMs + 1)
})

const daysDescending = (glucose: Glucose, from: number, to: number) => {
  const offset = glucose.t.zone.offsetMinutes
  const days: Array<number> = []
  for (let day = localDayOf(to, offset); day >= localDayOf(from, offset); day--) days.push(day)
  return days
}

/** The EGVs whose `systemTime` lies in [from, to), newest first, as `recordsIn` gives them, 500 at a time. */
export const egvsInSlices = (glucose: Glucose, from: number, to: number) =>
  Effect.gen(function*() {
    const records: Array<Record<string, unknown>> = []
    let made = 0
    for (let ms = glucose.firstSlotAtOrAfter(from); ms < to; ms += SLOT_MS) {
      // `setImmediate`, not `Effect.sleep` of zero: a timer waits at least a millisecond, 16 times a month of readings
      if (made > 0 && made % 500 === 0) {
        yield* Effect.async<void>((resume) => {
          const handle = setImmediate(() => resume(Effect.void))
          return Effect.sync(() => clearImmediate(handle))
        })
      }
      records.push(glucose.egv(ms))
      made++
    }
    return records.reverse()
  })

/** The records of a kind whose `systemTime` lies in [from, to), newest first. */
export const recordsIn = (
  glucose: Glucose,
  kind: DexcomRecordKind,
  from: number,
  to: number
): Array<Record<string, unknown>> => {
  if (kind === "egv") {
    const records: Array<Record<string, unknown>> = []
    for (let ms = glucose.firstSlotAtOrAfter(from); ms < to; ms += SLOT_MS) records.push(glucose.egv(ms))
    return records.reverse()
  }
  return daysDescending(glucose, from, to).flatMap((day) =>
    (kind === "event" ? glucose.events(day) : glucose.calibrations(day))
      .filter((e) => e.ms >= from && e.ms < to)
      .reverse()
      .map((e) => e.body)
  )
}

/**
 * The records a v3 list endpoint (`egvs`, `events`, `calibrations`) answers for
 * `startDate`..`endDate` (ms; start inclusive, end exclusive) when the simulator's clock reads
 * `nowMs`: newest first, clipped to the user's first day and to the data delay. For assertions.
 */
export const dexcomRecords = (
  seed: string,
  userId: string,
  kind: DexcomRecordKind,
  range: { readonly start: number; readonly end: number },
  nowMs: number
): ReadonlyArray<Record<string, unknown>> => {
  const glucose = new Glucose(seed, userId)
  const w = clip(glucose, range.start, range.end, nowMs - DATA_DELAY_MS)
  return recordsIn(glucose, kind, w.from, w.to)
}
