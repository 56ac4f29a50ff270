/**
 * Weekly scores: ISO weeks (Monday to Sunday) of the user's local dates. A weekly pillar is the
 * mean of the week's daily pillar scores and needs 4 of the 7 days; the weekly overall is the
 * weighted mean of the weekly pillars (two of three needed), which stays steadier than a mean
 * of daily overall scores when days are missing.
 */
import type { DailyScore } from "@pulsebridge/domain"
import { WeeklyScore } from "@pulsebridge/domain"
import { dateOf, dayNumber, isoWeekStart } from "../platform/Calendar.js"
import { overallOf } from "./Daily.js"

/** Days (of 7) with a pillar score a weekly pillar needs. */
export const MinDaysPerWeek = 4

const meanOf = (values: ReadonlyArray<number | null>): number | null => {
  let sum = 0
  let n = 0
  for (const v of values) {
    if (v === null) continue
    sum += v
    n++
  }
  return n >= MinDaysPerWeek ? Math.round(sum / n) : null
}

/** Groups daily scores (any order) into ISO weeks; one weekly score per week that has any day, weeks in increasing order. */
export const weeklyScores = (dailies: ReadonlyArray<DailyScore>): Array<WeeklyScore> => {
  const weeks = new Map<number, Array<DailyScore>>()
  for (const daily of dailies) {
    const week = isoWeekStart(dayNumber(daily.date))
    const list = weeks.get(week)
    if (list === undefined) weeks.set(week, [daily])
    else list.push(daily)
  }
  return [...weeks.entries()].sort(([a], [b]) => a - b).map(([week, days]) => {
    const sleep = meanOf(days.map((d) => d.sleepScore))
    const recovery = meanOf(days.map((d) => d.recoveryScore))
    const activity = meanOf(days.map((d) => d.activityScore))
    return new WeeklyScore({
      weekStartDate: dateOf(week),
      sleepScore: sleep,
      activityScore: activity,
      recoveryScore: recovery,
      overallScore: overallOf({ sleep, recovery, activity }).score,
      daysWithData: days.filter((d) =>
        d.sleepScore !== null || d.recoveryScore !== null || d.activityScore !== null || d.overallScore !== null
      ).length
    }, true)
  })
}
