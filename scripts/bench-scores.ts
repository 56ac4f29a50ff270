/**
 * `npx tsx scripts/bench-scores.ts`: CPU time of one user's scores for a year, as the two score
 * endpoints would spend it. From 425 days of synthetic canonical rows (a year plus the 60-day
 * lookback; WHOOP sleep, recovery and cycles, Garmin daily activity) it measures building the
 * input, the 365 daily scores, and the weekly scores of the same year (which compute their
 * daily scores again, as a weekly request does). Prints the median and the 90th percentile of
 * `BENCH_RUNS` runs (default 100) after a warm-up, in milliseconds of process CPU time.
 */
import { buildScoringInput, LookbackDays, Scoring } from "@pulsebridge/server/scoring"
import { personaRows, Personas } from "@pulsebridge/testing/ScoringPersonas"
import * as Effect from "effect/Effect"

const runs = Number(process.env.BENCH_RUNS ?? 100)
const range = { from: "2026-01-01", to: "2026-12-31" }
const timezone = "Europe/Berlin"
const rows = personaRows(Personas.wellRestedAthlete, "2025-11-02", 365 + LookbackDays)
const rowCount = rows.sleep.length + rows.recovery.length + rows.dailyLoad.length + rows.dailyActivity.length

const cpuMs = (f: () => unknown): number => {
  const before = process.cpuUsage()
  f()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

interface Figure {
  readonly median: number
  readonly p90: number
}

const measure = (f: () => unknown): Figure => {
  for (let i = 0; i < 10; i++) f()
  const times = Array.from({ length: runs }, () => cpuMs(f)).sort((a, b) => a - b)
  return { median: times[Math.floor(runs / 2)]!, p90: times[Math.floor(runs * 0.9)]! }
}

const show = (f: Figure) => `median ${f.median.toFixed(1)} ms, p90 ${f.p90.toFixed(1)} ms`

const program = Effect.gen(function*() {
  const scoring = yield* Scoring
  const input = buildScoringInput(rows, { timezone })
  const daily = scoring.daily(input, range).length
  const weekly = scoring.weekly(input, range).length
  const build = measure(() => buildScoringInput(rows, { timezone }))
  const dailyFigure = measure(() => scoring.daily(buildScoringInput(rows, { timezone }), range))
  const weeklyFigure = measure(() => scoring.weekly(buildScoringInput(rows, { timezone }), range))
  yield* Effect.log(`one user, one year: ${rowCount} canonical rows -> ${daily} daily and ${weekly} weekly scores`)
  yield* Effect.log(`build input:                   ${show(build)}`)
  yield* Effect.log(`daily request (input + 365):   ${show(dailyFigure)}`)
  yield* Effect.log(`weekly request (input + 53):   ${show(weeklyFigure)}`)
  yield* Effect.log(`CPU time over ${runs} runs, node ${process.version}, ${process.platform}/${process.arch}`)
})

Effect.runSync(program.pipe(Effect.provide(Scoring.Default)))
