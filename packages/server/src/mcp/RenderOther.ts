/**
 * The compact text of the tools over the user, their connections, the journal, the meal responses, the scores
 * and the coverage, and the rendering of an answer no tool has its own for: a summary first, then tables. Scores
 * are whole numbers; nutrients whole (grams, mg, ml, kcal); glucose figures whole mg/dL.
 */
import type {
  Connection,
  Coverage,
  DailyScore,
  JournalEntrySummary,
  McpProfile,
  MealResponse,
  ScoreFactor,
  WeeklyScore
} from "@pulsebridge/domain"
import { dayNumber } from "../platform/Calendar.js"
import type { RangeEnvelope } from "./Compact.js"
import {
  clockInZone,
  counts,
  extremes,
  groupBy,
  lines,
  mean,
  minuteUtc,
  none,
  num,
  pagingLines,
  plural,
  rangeWords,
  sum,
  table,
  text
} from "./Compact.js"

type ConnectionRow = typeof Connection.Encoded
type Entry = typeof JournalEntrySummary.Encoded
type Response = typeof MealResponse.Encoded
type Daily = typeof DailyScore.Encoded
type Weekly = typeof WeeklyScore.Encoded
type Factor = typeof ScoreFactor.Encoded
type CoverageAnswer = typeof Coverage.Encoded & RangeEnvelope

const weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

export const renderProfile = (profile: typeof McpProfile.Encoded): string =>
  `User ${profile.userId}; time zone ${profile.timezone}; today is ${profile.today} (${
    weekdays[((dayNumber(profile.today) + 3) % 7 + 7) % 7]
  }).`

export const renderConnections = (answer: { readonly connections: ReadonlyArray<ConnectionRow> }): string => {
  const { connections } = answer
  const attention = connections.filter((c) => c.status !== "Active" || c.syncState === "Error")
  return lines(
    connections.length === 0
      ? "No connections: the user has connected no wearable or glucose monitor."
      : `${connections.length} connections: ${connections.map((c) => `${c.provider} ${c.status}`).join(", ")}.`,
    attention.map((c) =>
      `${c.provider} needs attention: ${c.status}, sync ${c.syncState}` +
      (c.statusReason !== null ? `; ${text(c.statusReason, 300)}` : "") +
      (c.syncError !== null ? `; ${text(c.syncError, 300)}` : "")
    ),
    connections.length === 0 ? "" : table([
      { header: "provider", cell: (c) => c.provider },
      { header: "status", cell: (c) => c.status },
      { header: "sync", cell: (c) => c.syncState },
      { header: "last synced UTC", cell: (c) => minuteUtc(c.lastSyncedAt) },
      {
        header: "backfill windows done/total (oldest day)",
        cell: (c) =>
          c.syncProgress === null
            ? none
            : `${c.syncProgress.windowsDone}/${c.syncProgress.windowsTotal} (${
              c.syncProgress.oldestDateReached ?? none
            })`
      },
      { header: "rate limited until UTC", cell: (c) => minuteUtc(c.rateLimitedUntil) },
      { header: "connected UTC", cell: (c) => minuteUtc(c.createdAt) }
    ], connections)
  )
}

const nutrientColumns = <A>(nutrients: (row: A) => Entry["nutrients"]) => [
  { header: "kcal", cell: (r: A) => num(nutrients(r).caloriesKcal) },
  { header: "protein g", cell: (r: A) => num(nutrients(r).proteinGrams) },
  { header: "carbs g", cell: (r: A) => num(nutrients(r).carbsGrams) },
  { header: "fat g", cell: (r: A) => num(nutrients(r).fatGrams) },
  { header: "fiber g", cell: (r: A) => num(nutrients(r).fiberGrams) },
  { header: "sugar g", cell: (r: A) => num(nutrients(r).sugarGrams) },
  { header: "sodium mg", cell: (r: A) => num(nutrients(r).sodiumMg) },
  { header: "caffeine mg", cell: (r: A) => num(nutrients(r).caffeineMg) },
  { header: "volume ml", cell: (r: A) => num(nutrients(r).volumeMl) }
]

export const renderJournal = (answer: RangeEnvelope & { readonly entries: ReadonlyArray<Entry> }): string => {
  const { entries } = answer
  const days = groupBy(entries, (e) => e.journalDate)
  return lines(
    `Nutrition journal, ${rangeWords(answer.from, answer.to)}: ` +
      (entries.length === 0
        ? "no entries."
        : `${entries.length} ${entries.length === 1 ? "entry" : "entries"} on ${plural(days.length, "day")} (${
          counts(entries.map((e) => e.entryKind))
        }).`),
    pagingLines(answer),
    days.length === 0 ?
      "" :
      "Per day: " +
      days.map(([date, list]) =>
        `${date} ${num(sum(list.map((e) => e.nutrients.caloriesKcal)) ?? 0)} kcal, ${
          num(sum(list.map((e) => e.nutrients.caffeineMg)) ?? 0)
        } mg caffeine`
      ).join("; ") + " (sums of the entries whose nutrients are known).",
    entries.some((e) => e.analysisStatus === "Pending")
      ? "A photo's analysis is still pending for some entries: their nutrients may change."
      : "",
    entries.length === 0 ? "" : [
      "Time is the entry's local clock; notes cut to 100 characters (format json for all).",
      table([
        { header: "date", cell: (e) => e.journalDate },
        { header: "time", cell: (e) => clockInZone(e.consumedAtUtc, e.timezone) },
        { header: "kind", cell: (e) => e.entryKind },
        { header: "title", cell: (e) => text(e.title, 100) },
        ...nutrientColumns<Entry>((e) => e.nutrients),
        { header: "items", cell: (e) => num(e.itemCount) },
        { header: "photo", cell: (e) => e.hasImage ? "yes" : "no" },
        { header: "analysis", cell: (e) => e.analysisStatus },
        { header: "notes", cell: (e) => text(e.notes, 100) }
      ], entries)
    ]
  )
}

export const renderMealResponses = (
  answer: RangeEnvelope & { readonly responses: ReadonlyArray<Response> }
): string => {
  const { responses } = answer
  const complete = responses.filter((r) => r.glucoseResponse.status === "Complete")
  const highest = extremes(complete, (r) => r.glucoseResponse.riseMgDl)
  return lines(
    `Glucose responses to meals, ${rangeWords(answer.from, answer.to)}, mg/dL: ` +
      (responses.length === 0
        ? "none (no meal, drink or coffee with glucose data around it)."
        : `${responses.length} ${responses.length === 1 ? "entry" : "entries"} (${
          counts(responses.map((r) => r.glucoseResponse.status))
        }).`),
    pagingLines(answer),
    complete.length === 0 ?
      "" :
      `Complete ones: mean rise ${num(mean(complete.map((r) => r.glucoseResponse.riseMgDl)))}, ` +
      `mean peak ${num(mean(complete.map((r) => r.glucoseResponse.peakMgDl)))}, mean iAUC 2 h ` +
      `${num(mean(complete.map((r) => r.glucoseResponse.iauc2hMgDlMin)))} mg/dL·min` +
      (highest === null || complete.length < 2
        ? "."
        : `; highest rise ${text(highest.best.title, 60)} ${highest.best.journalDate} (${
          num(highest.best.glucoseResponse.riseMgDl)
        }), lowest ${text(highest.worst.title, 60)} ${highest.worst.journalDate} (${
          num(highest.worst.glucoseResponse.riseMgDl)
        }).`),
    responses.length === 0 ? "" : [
      "Time is the entry's local clock; minutes count from the entry; iAUC over 2 h in mg/dL·min.",
      table([
        { header: "date", cell: (r) => r.journalDate },
        { header: "time", cell: (r) => clockInZone(r.consumedAtUtc, r.timezone) },
        { header: "kind", cell: (r) => r.entryKind },
        { header: "title", cell: (r) => text(r.title, 100) },
        { header: "kcal", cell: (r) => num(r.nutrients.caloriesKcal) },
        { header: "carbs g", cell: (r) => num(r.nutrients.carbsGrams) },
        { header: "status", cell: (r) => r.glucoseResponse.status },
        { header: "baseline", cell: (r) => num(r.glucoseResponse.baselineMgDl) },
        { header: "peak", cell: (r) => num(r.glucoseResponse.peakMgDl) },
        { header: "rise", cell: (r) => num(r.glucoseResponse.riseMgDl) },
        { header: "min to peak", cell: (r) => num(r.glucoseResponse.timeToPeakMinutes) },
        { header: "iAUC 2h", cell: (r) => num(r.glucoseResponse.iauc2hMgDlMin) },
        { header: "min back to baseline", cell: (r) => num(r.glucoseResponse.returnToBaselineMinutes) },
        {
          header: "reason or flags",
          cell: (r) =>
            text(
              [r.glucoseResponse.reason, ...r.glucoseResponse.flags].filter((x) => x !== null).join(" ") || null,
              100
            )
        }
      ], responses)
    ]
  )
}

/** The decimals a factor's value means, by its unit. */
const unitDigits: Record<string, number> = { h: 1, "°C": 1, "br/min": 1, ratio: 2 }

/** A factor in a few characters: `sleep.duration 6.2h -8`, its value with its unit and the points it cost. */
const factorWords = (pillar: string, f: Factor) =>
  `${pillar}.${f.key} ${num(f.value, unitDigits[f.unit] ?? 0)}${f.unit === "ratio" ? "" : ` ${f.unit}`} ` +
  `-${num(f.pointsLost)}`

/** The factors that cost a day's scores the most points, most first. */
const topLosses = (day: Daily, count: number): string => {
  const all = (["sleep", "recovery", "activity"] as const).flatMap((pillar) =>
    day.components[pillar].factors.filter((f) => f.state === "scored" && f.pointsLost >= 0.5).map((f) => ({
      pillar,
      f
    }))
  )
  all.sort((a, b) => b.f.pointsLost - a.f.pointsLost)
  return all.length === 0 ? none : text(all.slice(0, count).map(({ f, pillar }) => factorWords(pillar, f)).join("; "))
}

/** The day's flags and calibrating pillars, or `-`. */
const notes = (day: Daily): string => {
  const parts = (["sleep", "recovery", "activity"] as const).flatMap((pillar) => [
    ...day.components[pillar].flags,
    ...(day.components[pillar].calibrating ? [`${pillar} calibrating`] : [])
  ])
  return parts.length === 0 ? none : text(parts.join(" "))
}

export const renderDailyScores = (answer: RangeEnvelope & { readonly days: ReadonlyArray<Daily> }): string => {
  const { days } = answer
  const pillars = ["overallScore", "sleepScore", "recoveryScore", "activityScore"] as const
  const overall = extremes(days, (d) => d.overallScore)
  return lines(
    `Daily scores (0-100), ${rangeWords(answer.from, answer.to)}: ` +
      (days.length === 0 ? "no days with scores." : `${plural(days.length, "day")}.`),
    pagingLines(answer),
    days.length === 0 ?
      "" :
      "Means: " +
      pillars.map((p) =>
        `${p.replace("Score", "")} ${num(mean(days.map((d) => d[p])))} (${
          plural(days.filter((d) => d[p] !== null).length, "day")
        })`
      ).join(", ") +
      (overall === null || days.length < 2
        ? "."
        : `; best overall ${overall.best.date} (${num(overall.best.overallScore)}), worst ${overall.worst.date} ` +
          `(${num(overall.worst.overallScore)}).`),
    days.length === 0 ? "" : [
      "Costliest: the three factors that cost the day's pillar scores most points (pillar.factor value unit " +
      "-points); format json gives every factor with its baseline and weight.",
      table([
        { header: "date", cell: (d) => d.date },
        { header: "overall", cell: (d) => num(d.overallScore), keep: true },
        { header: "sleep", cell: (d) => num(d.sleepScore), keep: true },
        { header: "recovery", cell: (d) => num(d.recoveryScore), keep: true },
        { header: "activity", cell: (d) => num(d.activityScore), keep: true },
        { header: "costliest", cell: (d) => topLosses(d, 3) },
        { header: "notes", cell: notes }
      ], days)
    ]
  )
}

export const renderWeeklyScores = (answer: RangeEnvelope & { readonly weeks: ReadonlyArray<Weekly> }): string => {
  const { weeks } = answer
  const overall = extremes(weeks, (w) => w.overallScore)
  return lines(
    `Weekly scores (0-100, means of the daily scores of each ISO week, Monday first), ${
      rangeWords(answer.from, answer.to)
    }: ` + (weeks.length === 0 ? "no weeks with scores." : `${plural(weeks.length, "week")}.`),
    pagingLines(answer),
    overall === null || weeks.length < 2
      ? ""
      : `Best overall week of ${overall.best.weekStartDate} (${num(overall.best.overallScore)}), worst of ` +
        `${overall.worst.weekStartDate} (${num(overall.worst.overallScore)}).`,
    weeks.length === 0 ? "" : table([
      { header: "week of", cell: (w) => w.weekStartDate },
      { header: "overall", cell: (w) => num(w.overallScore), keep: true },
      { header: "sleep", cell: (w) => num(w.sleepScore), keep: true },
      { header: "recovery", cell: (w) => num(w.recoveryScore), keep: true },
      { header: "activity", cell: (w) => num(w.activityScore), keep: true },
      { header: "days with data", cell: (w) => num(w.daysWithData) }
    ], weeks)
  )
}

const dataTypes = ["dailyActivity", "dailyLoad", "sleep", "recovery", "workouts", "body", "glucose", "journal"] as const
const scoreKeys = ["overall", "sleep", "recovery", "activity"] as const

export const renderCoverage = (answer: CoverageAnswer): string => {
  const { days } = answer
  const providers = dataTypes.map((type) => {
    const names = counts(days.flatMap((d) => d.data[type].provider === null ? [] : [d.data[type].provider]))
    return `${type} ${names === "" ? none : names}`
  })
  return lines(
    `Data coverage, ${rangeWords(answer.from, answer.to)}, time zone ${answer.timezone}, today ${answer.today}: ` +
      `${plural(days.length, "day")}.`,
    pagingLines(answer),
    days.length === 0 ? "" : [
      "Complete days per type: " +
      dataTypes.map((type) => `${type} ${days.filter((d) => d.data[type].status === "complete").length}`).join(", ") +
      ".",
      `Providers (days): ${providers.join("; ")}.`,
      "Cells: ok (complete), or status:reason; scores: the score, or -:why it is null.",
      table([
        { header: "date", cell: (d) => d.date },
        ...dataTypes.map((type) => ({
          header: type,
          cell: (d: CoverageAnswer["days"][number]) => {
            const c = d.data[type]
            return c.status === "complete" ? "ok" : `${c.status}${c.reason === null ? "" : `:${c.reason}`}`
          }
        })),
        ...scoreKeys.map((key) => ({
          header: `${key} score`,
          cell: (d: CoverageAnswer["days"][number]) => {
            const s = d.scores[key]
            return s.score !== null ? num(s.score) : `-:${s.nullReason ?? "unknown"}`
          }
        }))
      ], days)
    ]
  )
}

/**
 * Any answer without a rendering of its own: its scalar fields on one line, then each list of objects as a
 * table of their scalar fields (nested values as compact JSON). A tool added without a renderer still answers
 * a readable text; a renderer of its own does better.
 */
export const renderGeneric = (answer: Record<string, unknown>): string => {
  const scalar = (v: unknown): string =>
    v === null || v === undefined
      ? none
      : typeof v === "number"
      ? num(v, Number.isInteger(v) ? 0 : 1)
      : typeof v === "string"
      ? text(v)
      : typeof v === "boolean"
      ? String(v)
      : text(JSON.stringify(v))
  const fields = Object.entries(answer).filter(([, v]) => !Array.isArray(v))
  const lists = Object.entries(answer).filter((entry): entry is [string, Array<unknown>] => Array.isArray(entry[1]))
  return lines(
    fields.map(([k, v]) => `${k}: ${scalar(v)}`).join("; "),
    lists.flatMap(([key, list]) => {
      const rows = list.filter((r): r is Record<string, unknown> => typeof r === "object" && r !== null)
      const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))]
      return [
        `${key}: ${list.length}`,
        rows.length === 0
          ? ""
          : table(keys.map((k) => ({ header: k, cell: (r: Record<string, unknown>) => scalar(r[k]) })), rows)
      ]
    })
  )
}
