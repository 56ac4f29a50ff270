/**
 * Daily scores: the sleep, recovery and activity pillars of one local day, each a weighted mean
 * of its factors, and the overall score over the pillars. Pure functions over a `ScoringInput`.
 *
 * A factor without data is `unavailable` and a factor whose personal baseline has fewer than 14
 * valid nights is `calibrating`; both leave the score and the remaining weights are
 * renormalised. A pillar with under 60% of its weight scored, or without any data of its own
 * that day, is null; values are never imputed.
 *
 * Each pillar has its file under `daily/` (with the shared factor, calendar and parameter pieces);
 * this module scores one day and a range of days.
 */
import { DailyScore } from "@pulsebridge/domain"
import { dateOf, dayNumber } from "../platform/Calendar.js"
import { activityPillar } from "./daily/Activity.js"
import { Days } from "./daily/Days.js"
import { overallOf } from "./daily/Overall.js"
import { AlgorithmVersion } from "./daily/Parameters.js"
import { recoveryPillar } from "./daily/Recovery.js"
import { sleepPillar } from "./daily/Sleep.js"
import type { ScoringInput } from "./Inputs.js"

export { activityPillar } from "./daily/Activity.js"
export { Days } from "./daily/Days.js"
export { assemblePillar } from "./daily/Factors.js"
export { overallOf } from "./daily/Overall.js"
export * from "./daily/Parameters.js"
export { recoveryPillar } from "./daily/Recovery.js"
export { sleepPillar } from "./daily/Sleep.js"

export const scoreDay = (days: Days, day: number): DailyScore => {
  const sleep = sleepPillar(days, day)
  const recovery = recoveryPillar(days, day, sleep.score)
  const activity = activityPillar(days, day)
  const overall = overallOf({ sleep: sleep.score, recovery: recovery.score, activity: activity.score })
  return new DailyScore({
    date: dateOf(day),
    sleepScore: sleep.score,
    activityScore: activity.score,
    recoveryScore: recovery.score,
    overallScore: overall.score,
    components: { sleep, activity, recovery, overall, algorithmVersion: AlgorithmVersion }
  }, true)
}

/**
 * Daily scores of the dates in `from`..`to` (inclusive) that have any data, in increasing
 * date order. The input should hold `LookbackDays` of data before `from` for the baselines.
 */
export const dailyScores = (
  input: ScoringInput,
  range: { readonly from: string; readonly to: string }
): Array<DailyScore> => {
  const days = new Days(input)
  const from = dayNumber(range.from)
  const to = dayNumber(range.to)
  const out: Array<DailyScore> = []
  for (const d of input.days) {
    const day = dayNumber(d.date)
    if (day >= from && day <= to) out.push(scoreDay(days, day))
  }
  return out
}
