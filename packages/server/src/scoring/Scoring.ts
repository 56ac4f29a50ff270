/**
 * The `Scoring` service: daily and weekly health scores from a user's canonical data. Pure and
 * synchronous; the caller loads the rows of `rowsWindow(range)` with one query, builds the input
 * with `buildScoringInput` and asks for the scores of `range`.
 */
import type { DailyScore, WeeklyScore } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import { addDays, dateOf, dayNumber, isoWeekStart } from "../platform/Calendar.js"
import { AlgorithmVersion, dailyScores } from "./Daily.js"
import type { ScoringInput } from "./Inputs.js"
import { LookbackDays } from "./Inputs.js"
import { weeklyScores } from "./Weekly.js"

export interface DateWindow {
  readonly from: string
  readonly to: string
}

/** `range` widened to whole ISO weeks. */
export const weekWindow = (range: DateWindow): DateWindow => {
  const from = isoWeekStart(dayNumber(range.from))
  const to = isoWeekStart(dayNumber(range.to)) + 6
  return { from: dateOf(from), to: dateOf(to) }
}

const make = {
  algorithmVersion: AlgorithmVersion,
  /** The local dates whose rows the scores of `range` read: the range (widened to ISO weeks for weekly) and the lookback before it. */
  rowsWindow: (range: DateWindow, period: "daily" | "weekly"): DateWindow => {
    const scored = period === "weekly" ? weekWindow(range) : range
    return { from: addDays(scored.from, -LookbackDays), to: scored.to }
  },
  /** Daily scores of the dates in `range` that have data, most recent first. */
  daily: (input: ScoringInput, range: DateWindow): ReadonlyArray<DailyScore> => dailyScores(input, range).reverse(),
  /** Weekly scores of the ISO weeks that overlap `range` and have data, most recent first. */
  weekly: (input: ScoringInput, range: DateWindow): ReadonlyArray<WeeklyScore> =>
    weeklyScores(dailyScores(input, weekWindow(range))).reverse()
}

export class Scoring extends Effect.Service<Scoring>()("@pulsebridge/server/Scoring", {
  succeed: make
}) {}
