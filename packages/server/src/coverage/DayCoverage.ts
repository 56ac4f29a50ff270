/**
 * The rules of data coverage, as pure functions: what a connection holds of a day (from the counts the
 * repository reads), its status and reason given the day's timing, the provider's delay and the
 * connection's sync state; a data type's status over its sources; and why a score of the day is null,
 * read from the score's own `components` so the scoring rules are stated once, in `scoring/`.
 */
import type {
  CoverageReason,
  CoverageStatus,
  DailyScore,
  PillarBreakdown,
  ScoreCoverage,
  ScoreFactorKey
} from "@pulsebridge/domain"
import { MinCoverage, Weights } from "../scoring/Daily.js"

const DayMs = 86_400_000
const HourMs = 3_600_000

/** A Garmin upload covering at least this share of 24 h is the whole day (a 23-hour DST day is 96%). */
export const FullDayShare = 0.95
/** Glucose is complete from this share of the day's 288 five-minute slots with a reading. */
export const GlucoseCompleteShare = 0.9
/** Five-minute slots in a day: a continuous glucose monitor's readings. */
export const GlucoseSlotsPerDay = 288

export type CoverageDataType =
  | "dailyActivity"
  | "dailyLoad"
  | "sleep"
  | "recovery"
  | "workouts"
  | "body"
  | "glucose"
  | "journal"

/** The provider-fed types, by the catalogue's data type that supplies each. */
export const suppliedBy: ReadonlyArray<readonly [string, Exclude<CoverageDataType, "journal">]> = [
  ["DailyActivity", "dailyActivity"],
  ["ActivityLoadDaily", "dailyLoad"],
  ["Sleep", "sleep"],
  ["Recovery", "recovery"],
  ["ActivitySession", "workouts"],
  ["BodyMeasurementSnapshot", "body"],
  ["GlucoseReading", "glucose"]
]

// ---- the user's clock ----

/** Now as the user's wall clock shows it, in milliseconds since 1970-01-01 local, and the user's today. */
export interface LocalClock {
  readonly nowMs: number
  readonly today: string
}

const wallFormatters = new Map<string, Intl.DateTimeFormat>()

const wallFormatter = (timeZone: string): Intl.DateTimeFormat => {
  let f = wallFormatters.get(timeZone)
  if (f === undefined) {
    const options = {
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric"
    } as const
    try {
      f = new Intl.DateTimeFormat("en-US", { ...options, timeZone })
    } catch {
      f = new Intl.DateTimeFormat("en-US", { ...options, timeZone: "UTC" })
    }
    wallFormatters.set(timeZone, f)
  }
  return f
}

/** The user's clock at `now` in `timeZone` (an unknown zone reads as UTC). */
export const localClock = (now: number, timeZone: string): LocalClock => {
  const parts: Record<string, number> = {}
  for (const part of wallFormatter(timeZone).formatToParts(new Date(now))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value)
  }
  const nowMs = Date.UTC(
    parts["year"]!,
    parts["month"]! - 1,
    parts["day"]!,
    parts["hour"]!,
    parts["minute"]!,
    parts["second"]!
  )
  return { nowMs, today: new Date(nowMs).toISOString().slice(0, 10) }
}

export type Timing = "today" | "withinDelay" | "settled"

/** Whether `date` is the user's today, ended less than `delayHours` ago, or settled. */
export const timingOf = (date: string, delayHours: number, clock: LocalClock): Timing => {
  if (date >= clock.today) return "today"
  const end = Date.parse(`${date}T00:00:00Z`) + DayMs
  return clock.nowMs < end + delayHours * HourMs ? "withinDelay" : "settled"
}

// ---- one connection's day ----

/** What the repository counted of one connection's (or the journal's) day. */
export interface Measure {
  readonly records: number
  /** Records that are final: scored by the provider, a finished cycle, an analysed journal entry. */
  readonly completeRecords: number
  /** The share of the day covered, where the provider says (Garmin's upload span, glucose slots). */
  readonly dayFraction: number | null
}

export const noMeasure: Measure = { records: 0, completeRecords: 0, dayFraction: null }

/** What a day holds, before timing and sync state are taken into account. */
export type Held = "none" | "partial" | "complete"

export const heldOf = (dataType: CoverageDataType, m: Measure, isToday: boolean): Held => {
  if (m.records === 0) return "none"
  switch (dataType) {
    case "dailyActivity":
      // A summary that says what it covers (Garmin) is whole from 95% of a day; one that does not (Fitbit) is
      // whole once the day is over.
      return m.dayFraction !== null
        ? m.dayFraction >= FullDayShare ? "complete" : "partial"
        : isToday
        ? "partial"
        : "complete"
    case "glucose":
      return (m.dayFraction ?? 0) >= GlucoseCompleteShare ? "complete" : "partial"
    default:
      return m.completeRecords > 0 ? "complete" : "partial"
  }
}

/** A connection as coverage sees it. */
export interface SourceConnection {
  readonly id: string
  readonly provider: string
  readonly status: string
  /** Null before its first sync. */
  readonly syncState: string | null
  readonly backfillFrom: string | null
  readonly backfillCursor: string | null
  readonly delayHours: number
}

export interface SourceStatus {
  readonly status: CoverageStatus
  readonly reason: CoverageReason | null
}

/** The days a connection has not read yet: all before its first sync, else those of its backfill not stored. */
const unreadBy = (c: SourceConnection, date: string): boolean =>
  c.syncState === null || c.syncState === "Pending" ||
  (c.backfillCursor !== null && c.backfillFrom !== null && date >= c.backfillFrom && date <= c.backfillCursor)

/** One connection's status for a day of `dataType`. */
export const sourceStatus = (
  dataType: CoverageDataType,
  c: SourceConnection,
  date: string,
  m: Measure,
  clock: LocalClock
): SourceStatus => {
  const timing = timingOf(date, c.delayHours, clock)
  const held = heldOf(dataType, m, timing === "today")
  if (held === "complete") return { status: "complete", reason: null }
  const running = c.status === "Active" && c.syncState !== "Stopped"
  const unread = unreadBy(c, date)
  if (held === "partial") {
    return {
      status: "partial",
      reason: timing === "today"
        ? "dayInProgress"
        : timing === "withinDelay"
        ? "awaitingProvider"
        : unread && running
        ? "syncing"
        : "incomplete"
    }
  }
  if (!running && (timing !== "settled" || unread)) return { status: "missing", reason: "syncStopped" }
  if (timing === "today") return { status: "pending", reason: "dayInProgress" }
  if (timing === "withinDelay") return { status: "pending", reason: "awaitingProvider" }
  if (unread) return { status: "pending", reason: "syncing" }
  return { status: "missing", reason: "noData" }
}

/** The journal's day: the app keeps it, so any entry makes the day complete once analysed. */
export const journalStatus = (date: string, m: Measure, clock: LocalClock): SourceStatus =>
  m.records > 0
    ? m.completeRecords < m.records
      ? { status: "partial", reason: "analysisPending" }
      : { status: "complete", reason: null }
    : date >= clock.today
    ? { status: "pending", reason: "dayInProgress" }
    : { status: "missing", reason: "noData" }

const statusRank: Record<CoverageStatus, number> = { complete: 0, partial: 1, pending: 2, missing: 3 }

/**
 * The best of a type's sources: by status, then by `preference` (the scores' order of providers), then as
 * given. Undefined without sources.
 */
export const bestSource = <S extends SourceStatus & { readonly provider: string }>(
  sources: ReadonlyArray<S>,
  preference: ReadonlyArray<string>
): S | undefined => {
  const rank = (p: string) => {
    const i = preference.indexOf(p)
    return i < 0 ? preference.length : i
  }
  let best: S | undefined
  for (const s of sources) {
    if (
      best === undefined || statusRank[s.status] < statusRank[best.status] ||
      (statusRank[s.status] === statusRank[best.status] && rank(s.provider) < rank(best.provider))
    ) best = s
  }
  return best
}

// ---- scores ----

type PillarName = "sleep" | "recovery" | "activity"

const scored = (score: number): ScoreCoverage => ({ score, nullReason: null, factors: [] })

/**
 * Why a pillar of the day is null, from its components: `MinCoverage` of its weight scored and still null
 * means the day has no data of its own; short of it, calibrating factors that would make up the rest mean
 * calibrating; nothing scored or calibrating is no data; anything else is low coverage.
 */
export const pillarCoverage = (
  pillar: PillarName,
  breakdown: PillarBreakdown | undefined,
  awaitingData: boolean
): ScoreCoverage => {
  if (breakdown !== undefined && breakdown.score !== null) return scored(breakdown.score)
  if (awaitingData) return { score: null, nullReason: "awaitingData", factors: [] }
  if (breakdown === undefined) return { score: null, nullReason: "noData", factors: [] }
  const weights: Readonly<Record<string, number>> = Weights[pillar]
  // The journal's penalty factors only take points off; they are no part of the pillar's coverage.
  const factors = breakdown.factors.filter((f) => weights[f.key] !== undefined)
  const total = factors.reduce((sum, f) => sum + f.weight, 0)
  const calibratingWeight = factors.filter((f) => f.state === "calibrating").reduce((sum, f) => sum + f.weight, 0)
  const tolerance = 1e-9
  if (breakdown.coverage >= MinCoverage - tolerance) return { score: null, nullReason: "noData", factors: [] }
  if (breakdown.calibrating && total > 0 && breakdown.coverage + calibratingWeight / total >= MinCoverage - tolerance) {
    return {
      score: null,
      nullReason: "calibrating",
      factors: factors.filter((f) => f.state === "calibrating").map((f) => f.key)
    }
  }
  if (breakdown.coverage === 0 && !breakdown.calibrating) return { score: null, nullReason: "noData", factors: [] }
  return {
    score: null,
    nullReason: "lowCoverage",
    factors: factors.filter((f) => f.state !== "scored").map((f): ScoreFactorKey => f.key)
  }
}

/** The day's four scores and the reason of each null one. */
export const scoresCoverage = (
  score: DailyScore | undefined,
  awaiting: Readonly<Record<PillarName, boolean>>
): Record<PillarName | "overall", ScoreCoverage> => {
  const c = score?.components
  const sleep = pillarCoverage("sleep", c?.sleep, awaiting.sleep)
  const recovery = pillarCoverage("recovery", c?.recovery, awaiting.recovery)
  const activity = pillarCoverage("activity", c?.activity, awaiting.activity)
  const overall: ScoreCoverage = score !== undefined && score.overallScore !== null
    ? scored(score.overallScore)
    : {
      score: null,
      nullReason: [sleep, recovery, activity].every((p) => p.nullReason === "noData")
        ? "noData"
        : "fewerThanTwoPillars",
      factors: []
    }
  return { sleep, recovery, activity, overall }
}
