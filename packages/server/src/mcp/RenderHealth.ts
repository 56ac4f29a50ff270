/**
 * The compact text of the tools over the providers' records: daily activity, daily load, sleep, workouts,
 * recovery, body measurements and the glucose summary. Each is a summary first (the range, how many records,
 * per provider the means, totals, best and worst day and the days without data), then the records as one table.
 * Rounding: steps, kcal, minutes, heart rate, HRV, glucose and percentages whole; hours, kilometres, breathing
 * rate, temperatures, weight, BMI and load scores to 0.1; GMI and the time below 70 mg/dL to 0.1 (their
 * meaning is in tenths: the consensus target for time below 54 is under 1 %).
 */
import type {
  BodyMeasurement,
  DailyActivitySummary,
  DailyLoadSummary,
  GlucoseStats,
  GlucoseSummary,
  Recovery,
  SleepSession,
  Workout
} from "@pulsebridge/domain"
import type { RangeEnvelope } from "./Compact.js"
import {
  clockAtOffset,
  counts,
  distinct,
  extremes,
  groupBy,
  lastShown,
  lines,
  mean,
  minuteUtc,
  missingDays,
  none,
  num,
  pagingLines,
  plural,
  rangeWords,
  signed,
  sum,
  table,
  text
} from "./Compact.js"

type Activity = typeof DailyActivitySummary.Encoded
type Load = typeof DailyLoadSummary.Encoded
type Sleep = typeof SleepSession.Encoded
type WorkoutRow = typeof Workout.Encoded
type RecoveryRow = typeof Recovery.Encoded
type Body = typeof BodyMeasurement.Encoded
type Glucose = typeof GlucoseSummary.Encoded
type Stats = typeof GlucoseStats.Encoded

const km = (meters: number | null) => num(meters === null ? null : meters / 1000, 1)
const hours = (minutes: number | null) => num(minutes === null ? null : minutes / 60, 1)

/** The first line of an answer, its paging lines, and a line per provider (or `empty` when there are no rows). */
const summary = <A extends { readonly provider: string; readonly date: string }>(
  answer: RangeEnvelope,
  title: string,
  rows: ReadonlyArray<A>,
  noun: string,
  perProvider: (rows: ReadonlyArray<A>, provider: string) => string,
  gaps: "days without data" | "days with some" = "days without data"
): ReadonlyArray<string> => {
  const head = `${title}, ${rangeWords(answer.from, answer.to)}: ` +
    (rows.length === 0 ? `no ${noun}s.` : `${plural(rows.length, noun)} (${counts(rows.map((r) => r.provider))}).`)
  return [
    head,
    ...pagingLines(answer),
    ...groupBy(rows, (r) => r.provider).map(([provider, list]) =>
      `${provider}: ${perProvider(list, provider)}; ` + (gaps === "days without data"
        ? `days without data: ${missingDays(answer.from, lastShown(answer), new Set(list.map((r) => r.date)))}.`
        : `days with some: ${new Set(list.map((r) => r.date)).size}.`)
    )
  ]
}

/** `best 2026-03-04 (12001), worst 2026-03-02 (3200)` of a figure, or nothing when no row has it. */
const bestWorst = <A extends { readonly date: string }>(
  rows: ReadonlyArray<A>,
  value: (row: A) => number | null,
  show: (value: number | null) => string,
  words: readonly [string, string] = ["highest", "lowest"]
): string => {
  const found = extremes(rows, value)
  return found === null || rows.length < 2
    ? ""
    : `; ${words[0]} ${found.best.date} (${show(value(found.best))}), ${words[1]} ${found.worst.date} (${
      show(value(found.worst))
    })`
}

/** The provider column, shown only when the rows come from more than one. */
const providerColumn = <A extends { readonly provider: string }>(rows: ReadonlyArray<A>) => ({
  header: "provider",
  cell: (row: A) => row.provider,
  when: distinct(rows.map((r) => r.provider)).length > 1
})

export const renderActivity = (answer: RangeEnvelope & { readonly days: ReadonlyArray<Activity> }): string => {
  const { days } = answer
  return lines(
    summary(
      answer,
      "Daily activity",
      days,
      "day record",
      (list) =>
        `mean ${num(mean(list.map((d) => d.steps)))} steps/day (total ${num(sum(list.map((d) => d.steps)))}), ` +
        `mean ${num(mean(list.map((d) => d.caloriesOut)))} kcal out/day, ` +
        `mean ${km(mean(list.map((d) => d.distanceMeters)))} km/day, ` +
        `mean ${num(mean(list.map((d) => d.moderateActiveMinutes + d.vigorousActiveMinutes)))} moderate+vigorous ` +
        `min/day` + bestWorst(list, (d) => d.steps, (v) => `${num(v)} steps`, ["most steps", "fewest"])
    ),
    days.length === 0 ? "" : table([
      { header: "date", cell: (d) => d.date },
      providerColumn(days),
      { header: "steps", cell: (d) => num(d.steps) },
      { header: "kcal out", cell: (d) => num(d.caloriesOut) },
      { header: "distance km", cell: (d) => km(d.distanceMeters) },
      { header: "light min", cell: (d) => num(d.lightActiveMinutes) },
      { header: "moderate min", cell: (d) => num(d.moderateActiveMinutes) },
      { header: "vigorous min", cell: (d) => num(d.vigorousActiveMinutes) },
      { header: "sedentary min", cell: (d) => num(d.sedentaryMinutes) },
      { header: "floors", cell: (d) => num(d.floorsClimbed) }
    ], days)
  )
}

/** Minutes per heart-rate zone from the JSON text the records carry: `zone0:12 zone1:30`, or `-`. */
export const zones = (json: string): string => {
  try {
    const parsed: unknown = JSON.parse(json)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return none
    const parts = Object.entries(parsed).filter(([, v]) => typeof v === "number").map(([k, v]) =>
      `${k}:${num(v as number)}`
    )
    return parts.length === 0 ? none : parts.join(" ")
  } catch {
    return none
  }
}

export const renderLoad = (answer: RangeEnvelope & { readonly days: ReadonlyArray<Load> }): string => {
  const { days } = answer
  const running = days.filter((d) => d.windowEndUtc === null)
  return lines(
    summary(
      answer,
      "Daily load",
      days,
      "day record",
      (list) =>
        `load on the scale ${distinct(list.map((d) => d.loadScoreScale)).join("/")}, mean ` +
        `${num(mean(list.map((d) => d.loadScore)), 1)}, mean ${num(mean(list.map((d) => d.energyKilocalories)))} ` +
        `kcal/day, mean average HR ${num(mean(list.map((d) => d.averageHeartRate)))} bpm` +
        bestWorst(list, (d) => d.loadScore, (v) => num(v, 1))
    ),
    running.map((d) =>
      `${d.date} ${d.provider} is the running cycle (no end yet): its load and energy are so far, not the day's.`
    ),
    days.length === 0 ? "" : table([
      { header: "date", cell: (d) => d.date },
      providerColumn(days),
      { header: "load", cell: (d) => num(d.loadScore, 1) },
      { header: "kcal", cell: (d) => num(d.energyKilocalories) },
      { header: "avg HR bpm", cell: (d) => num(d.averageHeartRate) },
      { header: "max HR bpm", cell: (d) => num(d.maxHeartRate) },
      { header: "distance km", cell: (d) => km(d.distanceMeters), when: days.some((d) => d.distanceMeters !== null) },
      { header: "steps", cell: (d) => num(d.steps), when: days.some((d) => d.steps !== null) },
      { header: "zone min", cell: (d) => zones(d.zoneDurationsJson) }
    ], days)
  )
}

export const renderSleep = (answer: RangeEnvelope & { readonly sleep: ReadonlyArray<Sleep> }): string => {
  const { sleep } = answer
  return lines(
    summary(answer, "Sleep", sleep, "session", (list) => {
      const nights = list.filter((s) => !s.isNap)
      const scales = distinct(list.map((s) => s.providerScoreScale).filter((s) => s !== null))
      const figures = [
        ["asleep", hours(mean(nights.map((s) => s.asleepMinutes))), " h"],
        ["in bed", hours(mean(nights.map((s) => s.inBedMinutes))), " h"],
        ["efficiency", num(mean(nights.map((s) => s.efficiencyPercent))), " %"],
        ["HRV", num(mean(nights.map((s) => s.hrvRmssdMs))), " ms"],
        ["lowest HR", num(mean(nights.map((s) => s.lowestHeartRate))), " bpm"],
        ["score", num(mean(nights.map((s) => s.providerScore))), scales.length > 0 ? ` (${scales.join("/")})` : ""]
      ].filter(([, value]) => value !== none).map(([name, value, unit]) => `${name} ${value}${unit}`)
      return `${plural(nights.length, "night")}, ${plural(list.length - nights.length, "nap")}` +
        (figures.length > 0 ? `; nights' mean ${figures.join(", ")}` : "") +
        bestWorst(nights, (s) => s.asleepMinutes, (v) => `${hours(v)} h`, ["longest", "shortest"])
    }),
    sleep.length === 0 ? "" : [
      "Times are the sleeper's local clock (Z: UTC, the provider gave no offset).",
      table([
        { header: "date", cell: (s) => s.date },
        providerColumn(sleep),
        { header: "nap", cell: (s) => s.isNap ? "nap" : none, when: sleep.some((s) => s.isNap) },
        { header: "start", cell: (s) => clockAtOffset(s.startUtc, s.utcOffsetMinutes) },
        { header: "end", cell: (s) => clockAtOffset(s.endUtc, s.utcOffsetMinutes) },
        { header: "in bed h", cell: (s) => hours(s.inBedMinutes) },
        { header: "asleep h", cell: (s) => hours(s.asleepMinutes) },
        { header: "light h", cell: (s) => hours(s.lightMinutes) },
        { header: "deep h", cell: (s) => hours(s.deepMinutes) },
        { header: "REM h", cell: (s) => hours(s.remMinutes) },
        { header: "awake min", cell: (s) => num(s.awakeMinutes) },
        { header: "efficiency %", cell: (s) => num(s.efficiencyPercent) },
        { header: "latency min", cell: (s) => num(s.latencyMinutes) },
        { header: "avg HR bpm", cell: (s) => num(s.averageHeartRate) },
        { header: "lowest HR bpm", cell: (s) => num(s.lowestHeartRate) },
        { header: "HRV ms", cell: (s) => num(s.hrvRmssdMs) },
        { header: "breaths/min", cell: (s) => num(s.respiratoryRate, 1) },
        { header: "SpO2 %", cell: (s) => num(s.spo2Percent) },
        { header: "score", cell: (s) => num(s.providerScore) }
      ], sleep)
    ]
  )
}

export const renderWorkouts = (answer: RangeEnvelope & { readonly workouts: ReadonlyArray<WorkoutRow> }): string => {
  const { workouts } = answer
  const scales = distinct(workouts.map((w) => w.loadScoreScale).filter((s) => s !== null))
  return lines(
    summary(
      answer,
      "Workouts",
      workouts,
      "workout",
      (list) =>
        `${counts(list.map((w) => w.activityType))}; total ${hours(sum(list.map((w) => w.durationMinutes)))} h, ` +
        `${num(sum(list.map((w) => w.activeEnergyKilocalories)))} kcal, ` +
        `${num((sum(list.map((w) => w.distanceMeters)) ?? 0) / 1000, 1)} km` +
        bestWorst(list, (w) => w.durationMinutes, (v) => `${num(v)} min`, ["longest", "shortest"]),
      "days with some"
    ),
    workouts.length === 0 ? "" : [
      "Start is the local clock (Z: UTC, the provider gave no offset)" +
      (scales.length > 0 ? `; load on ${scales.join("/")}.` : "."),
      table([
        { header: "date", cell: (w) => w.date },
        providerColumn(workouts),
        { header: "start", cell: (w) => clockAtOffset(w.startUtc, w.utcOffsetMinutes) },
        { header: "type", cell: (w) => w.activityType },
        {
          header: "provider's name if not the type",
          cell: (w) =>
            w.providerActivityName?.toLowerCase() === w.activityType ? none : text(w.providerActivityName, 60)
        },
        { header: "min", cell: (w) => num(w.durationMinutes) },
        { header: "kcal", cell: (w) => num(w.activeEnergyKilocalories) },
        { header: "distance km", cell: (w) => num(w.distanceMeters === null ? null : w.distanceMeters / 1000, 2) },
        { header: "steps", cell: (w) => num(w.steps) },
        { header: "avg HR bpm", cell: (w) => num(w.averageHeartRate) },
        { header: "max HR bpm", cell: (w) => num(w.maxHeartRate) },
        { header: "zone min", cell: (w) => zones(w.zoneDurationsJson) },
        { header: "load", cell: (w) => num(w.loadScore, 1), when: workouts.some((w) => w.loadScore !== null) }
      ], workouts)
    ]
  )
}

export const renderRecovery = (answer: RangeEnvelope & { readonly days: ReadonlyArray<RecoveryRow> }): string => {
  const { days } = answer
  return lines(
    summary(answer, "Recovery", days, "day record", (list) => {
      const scales = distinct(list.map((d) => d.providerScoreScale).filter((s) => s !== null))
      return `mean resting HR ${num(mean(list.map((d) => d.restingHeartRate)))} bpm, HRV ` +
        `${num(mean(list.map((d) => d.hrvRmssdMs)))} ms` +
        (scales.length > 0
          ? `, score ${num(mean(list.map((d) => d.providerScore)))} (${scales.join("/")})` +
            bestWorst(list, (d) => d.providerScore, (v) => num(v))
          : bestWorst(list, (d) => d.hrvRmssdMs, (v) => `HRV ${num(v)} ms`))
    }),
    days.length === 0 ? "" : table([
      { header: "date", cell: (d) => d.date },
      providerColumn(days),
      { header: "resting HR bpm", cell: (d) => num(d.restingHeartRate) },
      { header: "HRV ms", cell: (d) => num(d.hrvRmssdMs) },
      { header: "SpO2 %", cell: (d) => num(d.spo2Percent) },
      { header: "breaths/min", cell: (d) => num(d.respiratoryRate, 1) },
      {
        header: "skin °C",
        cell: (d) => num(d.skinTemperatureCelsius, 1),
        when: days.some((d) => d.skinTemperatureCelsius !== null)
      },
      {
        header: "skin vs baseline °C",
        cell: (d) => signed(d.skinTemperatureDeviationCelsius, 1),
        when: days.some((d) => d.skinTemperatureDeviationCelsius !== null)
      },
      { header: "score", cell: (d) => num(d.providerScore) }
    ], days)
  )
}

export const renderBody = (answer: RangeEnvelope & { readonly measurements: ReadonlyArray<Body> }): string => {
  const { measurements } = answer
  return lines(
    summary(answer, "Body measurements", measurements, "measurement", (list) => {
      const weighed = list.filter((m) => m.weightKilograms !== null)
      const first = weighed[0]
      const last = weighed.at(-1)
      return first === undefined || last === undefined
        ? "no weight"
        : `latest weight ${num(last.weightKilograms, 1)} kg (${last.date})` +
          (weighed.length > 1
            ? `, ${signed(last.weightKilograms! - first.weightKilograms!, 1)} kg since ${first.date}, ` +
              `mean ${num(mean(weighed.map((m) => m.weightKilograms)), 1)} kg`
            : "")
    }, "days with some"),
    measurements.length === 0 ? "" : table([
      { header: "date", cell: (m) => m.date },
      providerColumn(measurements),
      { header: "measured UTC", cell: (m) => minuteUtc(m.measuredAtUtc).slice(11) },
      { header: "weight kg", cell: (m) => num(m.weightKilograms, 1) },
      { header: "height m", cell: (m) => num(m.heightMeters, 2) },
      { header: "body fat %", cell: (m) => num(m.bodyFatPercent) },
      { header: "BMI", cell: (m) => num(m.bmi, 1) },
      { header: "lean kg", cell: (m) => num(m.leanMassKilograms, 1) }
    ], measurements)
  )
}

const statsWords = (s: Stats) =>
  `${s.readings} readings (${num(s.coveragePercent)} % coverage), mean ${num(s.meanMgDl)} mg/dL, SD ` +
  `${num(s.sdMgDl)}, CV ${num(s.cvPercent)} %, range ${num(s.minMgDl)}-${num(s.maxMgDl)}, GMI ` +
  `${num(s.gmiPercent, 1)} %; time in ranges: <54 ${num(s.timeInRanges.veryLow, 1)} %, 54-69 ` +
  `${num(s.timeInRanges.low, 1)} %, 70-180 ${num(s.timeInRanges.inRange)} %, 181-250 ${num(s.timeInRanges.high)} %, ` +
  `>250 ${num(s.timeInRanges.veryHigh)} %`

export const renderGlucose = (answer: Glucose): string => {
  const { connections, days } = answer
  const found = extremes(days, (d) => d.stats.timeInRanges.inRange)
  return lines(
    `Glucose summary, ${rangeWords(answer.from, answer.to)}, mg/dL, target range ${num(answer.targetRange.lowMgDl)}-${
      num(answer.targetRange.highMgDl)
    }: ` +
      (connections.length === 0
        ? "no readings."
        : `${days.length} ${days.length === 1 ? "day summary" : "day summaries"} (${
          counts(days.map((d) => d.provider))
        }).`),
    pagingLines(answer),
    connections.map((c) =>
      `${c.provider} over the whole range (${plural(c.days, "day")} with readings): ${
        statsWords(c.stats)
      }; days without ` +
      `readings: ${
        missingDays(
          answer.from,
          lastShown(answer),
          new Set(days.filter((d) => d.connectionId === c.connectionId).map((d) => d.date))
        )
      }.`
    ),
    found === null || days.length < 2
      ? ""
      : `Most in range ${found.best.date} (${
        num(found.best.stats.timeInRanges.inRange)
      } %), least ${found.worst.date} ` +
        `(${num(found.worst.stats.timeInRanges.inRange)} %).`,
    days.length === 0 ? "" : table([
      { header: "date", cell: (d) => d.date },
      providerColumn(days),
      { header: "readings", cell: (d) => num(d.stats.readings) },
      { header: "coverage %", cell: (d) => num(d.stats.coveragePercent) },
      { header: "mean", cell: (d) => num(d.stats.meanMgDl) },
      { header: "SD", cell: (d) => num(d.stats.sdMgDl) },
      { header: "CV %", cell: (d) => num(d.stats.cvPercent) },
      { header: "min", cell: (d) => num(d.stats.minMgDl) },
      { header: "max", cell: (d) => num(d.stats.maxMgDl) },
      { header: "<54 %", cell: (d) => num(d.stats.timeInRanges.veryLow, 1) },
      { header: "54-69 %", cell: (d) => num(d.stats.timeInRanges.low, 1) },
      { header: "70-180 %", cell: (d) => num(d.stats.timeInRanges.inRange) },
      { header: "181-250 %", cell: (d) => num(d.stats.timeInRanges.high) },
      { header: ">250 %", cell: (d) => num(d.stats.timeInRanges.veryHigh) }
    ], days)
  )
}
