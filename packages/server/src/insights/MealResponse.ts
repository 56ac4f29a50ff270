/**
 * The glucose response to a journal entry, as a pure function of the readings around it: which
 * connection's readings to use, whether they cover the window, and the figures (baseline, peak, time to
 * peak, rise, incremental area under the curve over 2 hours, return to baseline; and for the comparison of
 * repeated meals, the change at 1 and 2 hours, the time above 140 mg/dL and the baseline's slope). No I/O and no clock:
 * the caller passes `now`, so the same input always gives the same answer. The method and its sources
 * are in `docs/insights.md`.
 */

const MINUTE_MS = 60_000

/** The window of a response, in minutes from the entry. */
export const BaselineMinutes = 30
export const IaucMinutes = 120
export const PeakMinutes = 180
/** The longest step between readings (or from a window's edge to its first or last reading) still read as covered. */
export const MaxGapMinutes = 15
/** How long after the end of the window its readings may still arrive (Dexcom's data lands 1-3 hours late). */
export const LateDataMinutes = 180
/** The fewest readings a baseline is the mean of. */
export const MinBaselineReadings = 2
/** The level whose time above is counted: the upper bound of normal glucose 2 hours after a glucose load. */
export const AboveMgDl = 140

/** One reading in mg/dL; `atLimit` when the sensor reported its Low or High limit instead of a value. */
export interface Reading {
  readonly t: number
  readonly mgDl: number
  readonly atLimit: boolean
}

/** The readings of one glucose connection, sorted by time. */
export interface GlucoseSource {
  readonly connectionId: string
  readonly provider: string
  readonly readings: ReadonlyArray<Reading>
}

export interface OtherEntry {
  readonly id: string
  readonly t: number
}

export type Status = "Complete" | "Pending" | "Insufficient"
export type Reason = "awaitingData" | "noBaseline" | "gap"
export type Flag = "otherEntryInWindow" | "sensorLimit" | "noRise" | "notBackToBaseline"

export interface Response {
  readonly status: Status
  readonly reason: Reason | null
  readonly detail: string | null
  readonly connectionId: string | null
  readonly provider: string | null
  readonly baselineMgDl: number | null
  readonly peakMgDl: number | null
  readonly peakAt: number | null
  readonly timeToPeakMinutes: number | null
  readonly riseMgDl: number | null
  readonly iauc2hMgDlMin: number | null
  readonly returnToBaselineMinutes: number | null
  /** Glucose 60 and 120 minutes after the entry (linear between readings) minus the baseline. */
  readonly change1hMgDl: number | null
  readonly change2hMgDl: number | null
  /** Minutes from the entry to 180 minutes after it that glucose was above `AboveMgDl` (linear between readings). */
  readonly minutesAbove140: number | null
  /** The least-squares slope of the baseline's readings, mg/dL per minute: how much glucose still moved before. */
  readonly baselineSlopeMgDlPerMin: number | null
  readonly readingCount: number
  readonly flags: ReadonlyArray<Flag>
  readonly overlappingEntryIds: ReadonlyArray<string>
}

/** The instants the response of an entry at `at` reads: from the baseline's start to the peak window's end. */
export const windowOf = (at: number) => ({
  start: at - BaselineMinutes * MINUTE_MS,
  end: at + PeakMinutes * MINUTE_MS
})

const round1 = (x: number) => Math.round(x * 10) / 10
const round2 = (x: number) => Math.round(x * 100) / 100

const iso = (t: number) => new Date(t).toISOString().slice(0, 16) + "Z"

/** The items of a list sorted by time (readings, entries) with `start <= t <= end`. */
export const within = <A extends { readonly t: number }>(
  readings: ReadonlyArray<A>,
  start: number,
  end: number
): Array<A> => {
  // Binary search for the first reading at or after start: a range read passes months of readings.
  let lo = 0
  let hi = readings.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (readings[mid]!.t < start) lo = mid + 1
    else hi = mid
  }
  const out: Array<A> = []
  for (let i = lo; i < readings.length && readings[i]!.t <= end; i++) out.push(readings[i]!)
  return out
}

/**
 * The first step longer than `MaxGapMinutes` in `[start, end]`: between the start and the first reading,
 * two readings, or the last reading and the end. None when the readings cover the span.
 */
export const firstGap = (
  readings: ReadonlyArray<Reading>,
  start: number,
  end: number
): { readonly from: number; readonly to: number } | undefined => {
  const max = MaxGapMinutes * MINUTE_MS
  let previous = start
  for (const reading of readings) {
    if (reading.t - previous > max) return { from: previous, to: reading.t }
    previous = reading.t
  }
  return end - previous > max ? { from: previous, to: end } : undefined
}

/** The value of the polyline through `readings` at `t` (linear between the readings around it). */
const valueAt = (readings: ReadonlyArray<Reading>, t: number): number => {
  for (let i = 0; i < readings.length; i++) {
    const r = readings[i]!
    if (r.t === t) return r.mgDl
    if (r.t > t) {
      const p = readings[i - 1]!
      return p.mgDl + (r.mgDl - p.mgDl) * (t - p.t) / (r.t - p.t)
    }
  }
  return readings[readings.length - 1]!.mgDl
}

/**
 * The area above `baseline` of the polyline through `points`, in mg/dL x min: each segment is a trapezoid,
 * a segment below the baseline counts nothing, and one that crosses it counts only its triangle above
 * (Wolever and Jenkins' incremental area).
 */
export const incrementalArea = (points: ReadonlyArray<Reading>, baseline: number): number => {
  let area = 0
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!.mgDl - baseline
    const b = points[i]!.mgDl - baseline
    const minutes = (points[i]!.t - points[i - 1]!.t) / MINUTE_MS
    if (a >= 0 && b >= 0) area += (a + b) / 2 * minutes
    else if (a > 0) area += a * a / (a - b) * minutes / 2
    else if (b > 0) area += b * b / (b - a) * minutes / 2
  }
  return area
}

/** The polyline through `readings` cut at `from` and `to` (both lie between readings of the list). */
const cut = (readings: ReadonlyArray<Reading>, from: number, to: number): Array<Reading> => [
  { t: from, mgDl: valueAt(readings, from), atLimit: false },
  ...readings.filter((r) => r.t > from && r.t < to),
  { t: to, mgDl: valueAt(readings, to), atLimit: false }
]

/**
 * Minutes the polyline through `points` is above `level`: each segment counts the part of its time above, the
 * crossing found by linear interpolation (as the incremental area finds its crossings).
 */
export const minutesAbove = (points: ReadonlyArray<Reading>, level: number): number => {
  let minutes = 0
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!.mgDl - level
    const b = points[i]!.mgDl - level
    const span = (points[i]!.t - points[i - 1]!.t) / MINUTE_MS
    if (a > 0 && b > 0) minutes += span
    else if (a > 0) minutes += span * a / (a - b)
    else if (b > 0) minutes += span * b / (b - a)
  }
  return minutes
}

/** The least-squares slope of `readings` in mg/dL per minute (0 for fewer than 2 instants). */
export const slopePerMinute = (readings: ReadonlyArray<Reading>): number => {
  const n = readings.length
  if (n < 2) return 0
  const meanT = readings.reduce((sum, r) => sum + r.t, 0) / n
  const meanV = readings.reduce((sum, r) => sum + r.mgDl, 0) / n
  let num = 0
  let den = 0
  for (const r of readings) {
    const dt = (r.t - meanT) / MINUTE_MS
    num += dt * (r.mgDl - meanV)
    den += dt * dt
  }
  return den === 0 ? 0 : num / den
}

const empty = {
  change1hMgDl: null,
  change2hMgDl: null,
  minutesAbove140: null,
  baselineSlopeMgDlPerMin: null,
  baselineMgDl: null,
  peakMgDl: null,
  peakAt: null,
  timeToPeakMinutes: null,
  riseMgDl: null,
  iauc2hMgDlMin: null,
  returnToBaselineMinutes: null
} as const

/**
 * The response of an entry at `at` from the sorted readings of one connection (those outside the window
 * are ignored), the other entries of the user (a meal, drink or coffee inside the window is flagged, not
 * hidden) and the time now (a window whose readings stop early is Pending while late data may still come).
 */
export const mealResponse = (input: {
  readonly at: number
  readonly source: GlucoseSource
  readonly others: ReadonlyArray<OtherEntry>
  readonly now: number
}): Response => {
  const { at, now, source } = input
  const { end, start } = windowOf(at)
  const readings = within(source.readings, start, end)
  const flags: Array<Flag> = []
  const overlappingEntryIds = input.others.filter((o) => o.t >= start && o.t <= end).map((o) => o.id)
  if (overlappingEntryIds.length > 0) flags.push("otherEntryInWindow")
  if (readings.some((r) => r.atLimit)) flags.push("sensorLimit")
  const common = {
    connectionId: source.connectionId,
    provider: source.provider,
    readingCount: readings.length,
    overlappingEntryIds
  }
  const notComputed = (status: Status, reason: Reason, detail: string): Response => ({
    status,
    reason,
    detail,
    ...common,
    ...empty,
    flags
  })

  const last = readings.length === 0 ? start : readings[readings.length - 1]!.t
  if (end - last > MaxGapMinutes * MINUTE_MS && now < end + LateDataMinutes * MINUTE_MS) {
    return notComputed(
      "Pending",
      "awaitingData",
      readings.length === 0
        ? `no readings from ${iso(start)} yet; the window ends at ${iso(end)}`
        : `readings so far end at ${iso(last)}; the window ends at ${iso(end)}`
    )
  }
  const before = within(readings, start, at)
  const baselineGap = firstGap(before, start, at)
  if (before.length < MinBaselineReadings || baselineGap !== undefined) {
    return notComputed(
      "Insufficient",
      "noBaseline",
      baselineGap !== undefined
        ? `no reading from ${iso(baselineGap.from)} to ${iso(baselineGap.to)} in the ${BaselineMinutes} minutes ` +
          "before the entry"
        : `${before.length} reading(s) in the ${BaselineMinutes} minutes before the entry; at least ` +
          `${MinBaselineReadings} are needed`
    )
  }
  const after = within(readings, at, end)
  const gap = firstGap(after, at, end)
  if (gap !== undefined) {
    return notComputed(
      "Insufficient",
      "gap",
      `no reading from ${iso(gap.from)} to ${iso(gap.to)} (${round1((gap.to - gap.from) / MINUTE_MS)} minutes)`
    )
  }

  const baseline = before.reduce((sum, r) => sum + r.mgDl, 0) / before.length
  // The peak is read after the entry; the reading at the entry's instant is part of the baseline.
  let peak: Reading | undefined
  for (const r of after) if (r.t > at && (peak === undefined || r.mgDl > peak.mgDl)) peak = r
  // Coverage leaves a reading within 15 minutes after the entry, so there is a peak.
  const top = peak!
  const rise = top.mgDl - baseline
  const iauc = incrementalArea(cut(readings, at, at + IaucMinutes * MINUTE_MS), baseline)

  let back: number | null = null
  if (rise <= 0) {
    flags.push("noRise")
  } else {
    const tail = readings.filter((r) => r.t >= top.t)
    for (let i = 1; i < tail.length && back === null; i++) {
      const p = tail[i - 1]!
      const r = tail[i]!
      if (r.mgDl <= baseline) back = p.t + (p.mgDl - baseline) / (p.mgDl - r.mgDl) * (r.t - p.t)
    }
    if (back === null) flags.push("notBackToBaseline")
  }
  return {
    status: "Complete",
    reason: null,
    detail: null,
    ...common,
    baselineMgDl: round1(baseline),
    peakMgDl: round1(top.mgDl),
    peakAt: top.t,
    timeToPeakMinutes: round1((top.t - at) / MINUTE_MS),
    riseMgDl: round1(rise),
    iauc2hMgDlMin: round1(iauc),
    returnToBaselineMinutes: back === null ? null : round1((back - at) / MINUTE_MS),
    change1hMgDl: round1(valueAt(readings, at + 60 * MINUTE_MS) - baseline),
    change2hMgDl: round1(valueAt(readings, at + 120 * MINUTE_MS) - baseline),
    // Readings come every 5 minutes: whole minutes are what the curve can tell.
    minutesAbove140: Math.round(minutesAbove(cut(readings, at, end), AboveMgDl)),
    baselineSlopeMgDlPerMin: round2(slopePerMinute(before)),
    flags
  }
}

/**
 * The response of an entry from every glucose connection of the user: the readings of the connection with
 * the most readings in the window are used (values of two devices are never mixed; on a tie, the first by
 * provider then connection id). None when no connection has a reading in the window and none can still
 * bring one (`expectsData`: the user has a glucose connection, and the window ended less than
 * `LateDataMinutes` ago); then a Pending response without a connection.
 */
export const respond = (input: {
  readonly at: number
  readonly sources: ReadonlyArray<GlucoseSource>
  readonly others: ReadonlyArray<OtherEntry>
  readonly now: number
  readonly expectsData: boolean
}): Response | null => {
  const { end, start } = windowOf(input.at)
  let best: GlucoseSource | undefined
  let bestCount = 0
  const ordered = [...input.sources].sort((a, b) =>
    a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : a.connectionId < b.connectionId ? -1 : 1
  )
  for (const source of ordered) {
    const count = within(source.readings, start, end).length
    if (count > bestCount) {
      best = source
      bestCount = count
    }
  }
  if (best !== undefined) return mealResponse({ at: input.at, source: best, others: input.others, now: input.now })
  if (!input.expectsData || input.now >= end + LateDataMinutes * MINUTE_MS) return null
  const response = mealResponse({
    at: input.at,
    source: { connectionId: "", provider: "", readings: [] },
    others: input.others,
    now: input.now
  })
  return { ...response, connectionId: null, provider: null }
}
