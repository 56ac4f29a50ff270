/**
 * What the scores are computed from: one `ScoringDay` per local date, each input already
 * resolved to a single provider, built from the canonical rows the sync engine stores.
 *
 * When several providers report the same input for a day, the providers' priority (from their
 * plug-ins' catalogue entries) picks the first provider in its list that has a value; the others are ignored for that input (values are
 * never averaged across devices, and baselines only compare values from one provider).
 * Glucose rows add nothing to scores and are not part of the input. Journal entries are read only
 * for the intake before each night's main sleep (`Intake.ts`).
 */
import type { Provider } from "@pulsebridge/domain"
import type { ScoreInput } from "@pulsebridge/providers"
import { makeRegistry, scoreInputs } from "@pulsebridge/providers"
import type {
  DailyActivityRecord,
  DailyLoadRecord,
  RecoveryRecord,
  SleepRecord,
  WorkoutRecord
} from "@pulsebridge/providers"
import { localMinuteOfDay } from "../platform/Calendar.js"
import type { BedtimeIntake, JournalRow } from "./Intake.js"
import { Journal } from "./Intake.js"

export type { BedtimeIntake, JournalRow } from "./Intake.js"

/** A canonical row with the provider of the connection it came from. */
export type FromProvider<A> = A & { readonly provider: Provider }

export type ActivityRow = FromProvider<
  Pick<
    DailyActivityRecord,
    | "date"
    | "steps"
    | "activeCalories"
    | "lightActiveMinutes"
    | "moderateActiveMinutes"
    | "vigorousActiveMinutes"
    | "sedentaryMinutes"
    | "restingHeartRate"
  >
>
export type LoadRow = FromProvider<Pick<DailyLoadRecord, "date" | "loadScore">>
export type SleepRow = FromProvider<
  Pick<
    SleepRecord,
    | "date"
    | "start"
    | "end"
    | "nap"
    | "inBedMinutes"
    | "asleepMinutes"
    | "latencyMinutes"
    | "awakeMinutes"
    | "lightMinutes"
    | "deepMinutes"
    | "remMinutes"
    | "respiratoryRate"
    | "efficiencyPercent"
  >
>
export type RecoveryRow = FromProvider<
  Pick<
    RecoveryRecord,
    | "date"
    | "restingHeartRate"
    | "hrvRmssdMs"
    | "spo2Percent"
    | "respiratoryRate"
    | "skinTempCelsius"
    | "skinTemperatureDeviationCelsius"
  >
>
export type WorkoutRow = FromProvider<Pick<WorkoutRecord, "date" | "zoneDurationsJson">>

/** The canonical rows of one user over the scored dates plus `LookbackDays` before them. */
export interface ScoringRows {
  readonly dailyActivity: ReadonlyArray<ActivityRow>
  readonly dailyLoad: ReadonlyArray<LoadRow>
  readonly sleep: ReadonlyArray<SleepRow>
  readonly recovery: ReadonlyArray<RecoveryRow>
  readonly workouts: ReadonlyArray<WorkoutRow>
  /** The user's journal entries over the same dates (and the day after, for time zones). */
  readonly journal: ReadonlyArray<JournalRow>
}

/** One value and the provider it came from. */
export interface Reading {
  readonly value: number
  readonly source: Provider
}

/** The main sleep of a night (the longest session that is not a nap). */
export interface NightSleep {
  readonly source: Provider
  /** Light + deep + REM, else time in bed minus time awake; null when neither is known. */
  readonly asleepMinutes: number | null
  readonly inBedMinutes: number | null
  /** Time awake in bed; stands in for wake after sleep onset. */
  readonly awakeMinutes: number | null
  /** Sleep onset latency, where the provider reports it. */
  readonly latencyMinutes: number | null
  readonly deepMinutes: number | null
  readonly remMinutes: number | null
  readonly efficiencyPercent: number | null
  /** Midpoint of the session in the user's local time, as minutes after the noon before it (720 = 00:00). */
  readonly midpointMinutes: number
}

/** Moderate and vigorous minutes of a day. */
export interface ActiveMinutes {
  readonly moderate: number
  readonly vigorous: number
  readonly source: Provider
}

export interface ScoringDay {
  /** The user's local date (`YYYY-MM-DD`). */
  readonly date: string
  readonly mainSleep: NightSleep | null
  /** Sleep in naps (and in further sessions) of the main sleep's provider, minutes. */
  readonly napMinutes: number
  readonly hrvRmssdMs: Reading | null
  readonly restingHeartRate: Reading | null
  readonly respiratoryRate: Reading | null
  readonly skinTempCelsius: Reading | null
  readonly spo2Percent: Reading | null
  readonly steps: Reading | null
  readonly activeMinutes: ActiveMinutes | null
  /** Sedentary minutes while awake. */
  readonly sedentaryMinutes: Reading | null
  readonly activeCalories: Reading | null
  /**
   * The day's training load: WHOOP strain (0-21), or moderate + 2 x vigorous minutes from a
   * daily activity summary. Ratios only ever compare loads of one provider.
   */
  readonly load: Reading | null
  /**
   * Caffeine and the last meal before the main sleep, from the journal; null without a main sleep
   * or when the journal has nothing in the 24 h before it.
   */
  readonly intake: BedtimeIntake | null
}

export interface ScoringInput {
  /** IANA time zone of the user, for the clock time of sleep. */
  readonly timezone: string
  /** One entry per date that has data, in increasing date order. */
  readonly days: ReadonlyArray<ScoringDay>
}

/** Days of data needed before the first scored date: the baseline window. */
export const LookbackDays = 60

/**
 * Which provider wins each input when several report it for the same day, best first. Each
 * provider plug-in ranks itself per input in its catalogue entry (`scorePriority`, with the
 * reasons there); a provider without a rank for an input is never its source.
 */
export type ProviderPriority = Readonly<Record<ScoreInput, ReadonlyArray<string>>>

/** The priority of the providers of a registry. */
export const priorityOf = (registry: { readonly scoreOrder: (input: ScoreInput) => ReadonlyArray<string> }) =>
  Object.fromEntries(scoreInputs.map((input) => [input, registry.scoreOrder(input)])) as ProviderPriority

/** The priority of the built-in providers. */
export const ProviderPriority: ProviderPriority = priorityOf(makeRegistry())

const rank = (order: ReadonlyArray<string>, provider: Provider): number => {
  const i = order.indexOf(provider)
  return i < 0 ? order.length : i
}

/** The first row in priority order whose value is known. */
const pick = <R extends { readonly provider: Provider }>(
  rows: ReadonlyArray<R> | undefined,
  order: ReadonlyArray<string>,
  value: (row: R) => number | null
): Reading | null => {
  if (rows === undefined) return null
  let best: Reading | null = null
  let bestRank = Infinity
  for (const row of rows) {
    const v = value(row)
    if (v === null || !Number.isFinite(v)) continue
    const r = rank(order, row.provider)
    if (r < bestRank) {
      best = { value: v, source: row.provider }
      bestRank = r
    }
  }
  return best
}

const groupByDate = <R extends { readonly date: string }>(rows: ReadonlyArray<R>): Map<string, Array<R>> => {
  const map = new Map<string, Array<R>>()
  for (const row of rows) {
    const list = map.get(row.date)
    if (list === undefined) map.set(row.date, [row])
    else list.push(row)
  }
  return map
}

const asleepMinutes = (row: SleepRow): number | null => {
  if (row.lightMinutes !== null && row.deepMinutes !== null && row.remMinutes !== null) {
    return row.lightMinutes + row.deepMinutes + row.remMinutes
  }
  if (row.asleepMinutes !== null) return row.asleepMinutes
  if (row.inBedMinutes !== null && row.awakeMinutes !== null) return Math.max(0, row.inBedMinutes - row.awakeMinutes)
  return null
}

const sessionMinutes = (row: SleepRow): number => (row.end.getTime() - row.start.getTime()) / 60_000

/** The chosen provider's main sleep (longest non-nap session), its naps, and its respiratory rate. */
const resolveSleep = (
  rows: ReadonlyArray<SleepRow> | undefined,
  timezone: string,
  priority: ProviderPriority
): { main: SleepRow | null; night: NightSleep | null; napMinutes: number } => {
  const none = { main: null, night: null, napMinutes: 0 }
  if (rows === undefined) return none
  let main: SleepRow | null = null
  for (const row of rows) {
    if (row.nap) continue
    if (
      main === null ||
      rank(priority.sleep, row.provider) < rank(priority.sleep, main.provider) ||
      (row.provider === main.provider && sessionMinutes(row) > sessionMinutes(main))
    ) main = row
  }
  if (main === null) return none
  let napMinutes = 0
  for (const row of rows) {
    if (row === main || row.provider !== main.provider) continue
    napMinutes += asleepMinutes(row) ?? sessionMinutes(row)
  }
  const asleep = asleepMinutes(main)
  const midpoint = new Date((main.start.getTime() + main.end.getTime()) / 2)
  const efficiency = main.efficiencyPercent ??
    (asleep !== null && main.inBedMinutes !== null && main.inBedMinutes > 0 ? 100 * asleep / main.inBedMinutes : null)
  return {
    main,
    napMinutes,
    night: {
      source: main.provider,
      asleepMinutes: asleep,
      inBedMinutes: main.inBedMinutes,
      awakeMinutes: main.awakeMinutes,
      latencyMinutes: main.latencyMinutes,
      deepMinutes: main.deepMinutes,
      remMinutes: main.remMinutes,
      efficiencyPercent: efficiency,
      midpointMinutes: (localMinuteOfDay(midpoint, timezone) + 720) % 1440
    }
  }
}

/** A day summary with no steps and no active minutes is a day the device was not worn. */
const worn = (row: ActivityRow): boolean =>
  row.steps > 0 || row.lightActiveMinutes + row.moderateActiveMinutes + row.vigorousActiveMinutes > 0

const zoneIndex = (key: string): number | null => {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, "")
  const words = ["zero", "one", "two", "three", "four", "five"]
  for (let i = 0; i < words.length; i++) if (k.includes(`zone${words[i]}`) || k.includes(`zone${i}`)) return i
  return null
}

/** Moderate (zones 2-3, 60-80% of max HR) and vigorous (zones 4-5) minutes of a day's workouts. */
const workoutMinutes = (
  rows: ReadonlyArray<WorkoutRow> | undefined,
  priority: ProviderPriority
): ActiveMinutes | null => {
  if (rows === undefined) return null
  let best: ActiveMinutes | null = null
  for (const provider of priority.activeMinutes) {
    let moderate = 0
    let vigorous = 0
    let seen = false
    for (const row of rows) {
      if (row.provider !== provider) continue
      let zones: unknown
      try {
        zones = JSON.parse(row.zoneDurationsJson)
      } catch {
        continue
      }
      if (zones === null || typeof zones !== "object") continue
      for (const [key, minutes] of Object.entries(zones)) {
        const zone = zoneIndex(key)
        if (zone === null || typeof minutes !== "number" || !Number.isFinite(minutes)) continue
        seen = true
        if (zone === 2 || zone === 3) moderate += minutes
        else if (zone >= 4) vigorous += minutes
      }
    }
    if (seen) {
      best = { moderate, vigorous, source: provider }
      break
    }
  }
  return best
}

/**
 * Builds the scoring input from the canonical rows of one user (any order, any mix of
 * providers). `timezone` is the user's IANA time zone.
 */
export const buildScoringInput = (
  rows: ScoringRows,
  options: { readonly timezone: string; readonly priority?: ProviderPriority | undefined }
): ScoringInput => {
  const priority = options.priority ?? ProviderPriority
  const activity = groupByDate(rows.dailyActivity.filter(worn))
  const load = groupByDate(rows.dailyLoad)
  const sleep = groupByDate(rows.sleep)
  const recovery = groupByDate(rows.recovery)
  const workouts = groupByDate(rows.workouts)
  const journal = new Journal(rows.journal)
  const dates = [
    ...new Set([...activity.keys(), ...load.keys(), ...sleep.keys(), ...recovery.keys(), ...workouts.keys()])
  ]
    .sort()

  const days = dates.map((date): ScoringDay => {
    const act = activity.get(date)
    const rec = recovery.get(date)
    const { main, napMinutes, night } = resolveSleep(sleep.get(date), options.timezone, priority)
    const summaryMinutes = act === undefined ?
      null :
      [...act].sort((a, b) => rank(priority.activeMinutes, a.provider) - rank(priority.activeMinutes, b.provider))[0]!
    const activeMinutes: ActiveMinutes | null = summaryMinutes !== null ?
      {
        moderate: summaryMinutes.moderateActiveMinutes,
        vigorous: summaryMinutes.vigorousActiveMinutes,
        source: summaryMinutes.provider
      } :
      workoutMinutes(workouts.get(date), priority)
    const asleep = night?.asleepMinutes ?? 0
    const restingHeartRate = pick(
      [...(rec ?? []), ...(act ?? [])],
      priority.restingHeartRate,
      (row) => row.restingHeartRate
    )
    return {
      date,
      mainSleep: night,
      napMinutes,
      hrvRmssdMs: pick(
        rec,
        priority.hrv,
        (r) => r.hrvRmssdMs !== null && r.hrvRmssdMs > 0 ? r.hrvRmssdMs : null
      ),
      restingHeartRate,
      // The main sleep's, else the day's recovery of the same provider (Google Health's daily respiratory rate).
      respiratoryRate: main === null ?
        null :
        main.respiratoryRate !== null ?
        { value: main.respiratoryRate, source: main.provider } :
        pick(rec?.filter((r) => r.provider === main.provider), [main.provider], (r) => r.respiratoryRate),
      // A provider reports the temperature itself or its deviation from the wearer's baseline, always the same
      // one: its baseline then compares like with like.
      skinTempCelsius: pick(
        rec,
        priority.skinTemperature,
        (r) => r.skinTempCelsius ?? r.skinTemperatureDeviationCelsius
      ),
      spo2Percent: pick(rec, priority.spo2, (r) => r.spo2Percent),
      steps: pick(act, priority.steps, (r) => r.steps),
      activeMinutes,
      sedentaryMinutes: pick(
        act,
        priority.sedentaryTime,
        (r) =>
          r.sedentaryMinutes > 0 ?
            Math.max(
              0,
              Math.min(
                r.sedentaryMinutes,
                1440 - r.lightActiveMinutes - r.moderateActiveMinutes - r.vigorousActiveMinutes - asleep
              )
            ) :
            null
      ),
      activeCalories: pick(act, priority.activeCalories, (r) => r.activeCalories),
      load: pick(load.get(date), priority.trainingLoad, (r) => r.loadScore) ??
        pick(act, priority.trainingLoad, (r) => r.moderateActiveMinutes + 2 * r.vigorousActiveMinutes),
      intake: main === null ? null : journal.before(main.start)
    }
  })
  return { timezone: options.timezone, days }
}
