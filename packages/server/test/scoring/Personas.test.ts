/**
 * Synthetic users over 90 days, built from canonical rows like the server will load them. The
 * expected order (means over the last 30 days):
 *   overall:  well-rested athlete > sedentary > sleep-deprived
 *   sleep:    well-rested athlete > sedentary > sleep-deprived
 *   activity: well-rested athlete > ill person on normal days > sleep-deprived > sedentary
 *   recovery: well-rested athlete > sleep-deprived
 * The ill person's three ill days are capped at 33 and flagged; sparse data yields fewer scores,
 * never made-up ones; the first 14 days of every persona have no recovery (calibrating).
 */
import { describe, expect, it } from "@effect/vitest"
import { DailyScore } from "@pulsebridge/domain"
import { dailyScoreExample } from "@pulsebridge/domain/ScoresExample"
import type { Persona } from "@pulsebridge/testing/ScoringPersonas"
import { personaRows, Personas } from "@pulsebridge/testing/ScoringPersonas"
import * as Schema from "effect/Schema"
import { dailyScores } from "../../src/scoring/Daily.js"
import { buildScoringInput } from "../../src/scoring/Inputs.js"

const start = "2026-01-01"
const end = "2026-03-31"
const days = 90

const run = (persona: Persona): ReadonlyArray<DailyScore> =>
  dailyScores(buildScoringInput(personaRows(persona, start, days), { timezone: "UTC" }), { from: start, to: end })

const scores = {
  athlete: run(Personas.wellRestedAthlete),
  deprived: run(Personas.sleepDeprived),
  ill: run(Personas.ill),
  sedentary: run(Personas.sedentary),
  sparse: run(Personas.sparseData)
}

type Pick = (d: DailyScore) => number | null

const mean = (values: ReadonlyArray<number | null>): number => {
  const present = values.filter((v): v is number => v !== null)
  expect(present.length).toBeGreaterThan(0)
  return present.reduce((a, b) => a + b, 0) / present.length
}

const last30 = (list: ReadonlyArray<DailyScore>, pick: Pick) => mean(list.slice(-30).map(pick))

const overall: Pick = (d) => d.overallScore
const sleep: Pick = (d) => d.sleepScore
const activity: Pick = (d) => d.activityScore
const recovery: Pick = (d) => d.recoveryScore

// The ill days are days 80-82 (2026-03-22..24).
const illDates = ["2026-03-22", "2026-03-23", "2026-03-24"]

describe("synthetic personas over 90 days", () => {
  it("every persona with daily data gets a score for each of the 90 days, and every score is an integer 0-100", () => {
    for (const [name, list] of Object.entries(scores)) {
      if (name !== "sparse") expect(list, name).toHaveLength(days)
      for (const d of list) {
        for (const s of [d.sleepScore, d.recoveryScore, d.activityScore, d.overallScore]) {
          if (s === null) continue
          expect(Number.isInteger(s), `${name} ${d.date}`).toBe(true)
          expect(s).toBeGreaterThanOrEqual(0)
          expect(s).toBeLessThanOrEqual(100)
        }
      }
    }
  })

  it("overall: well-rested athlete > sedentary > sleep-deprived", () => {
    const [a, s, d] = [
      last30(scores.athlete, overall),
      last30(scores.sedentary, overall),
      last30(scores.deprived, overall)
    ]
    expect(a).toBeGreaterThan(s)
    expect(s).toBeGreaterThan(d)
    expect(a).toBeGreaterThan(85)
  })

  it("sleep: well-rested athlete > sedentary (7 h, regular) > sleep-deprived (5 h, irregular, under 70)", () => {
    const [a, s, d] = [last30(scores.athlete, sleep), last30(scores.sedentary, sleep), last30(scores.deprived, sleep)]
    expect(a).toBeGreaterThan(s)
    expect(s).toBeGreaterThan(d)
    expect(d).toBeLessThan(70)
  })

  it("activity: well-rested athlete > ill person on normal days > sleep-deprived > sedentary (under 50)", () => {
    const illNormal = scores.ill.slice(-40, -10)
    const [a, i, d, s] = [
      last30(scores.athlete, activity),
      mean(illNormal.map(activity)),
      last30(scores.deprived, activity),
      last30(scores.sedentary, activity)
    ]
    expect(a).toBeGreaterThan(i)
    expect(i).toBeGreaterThan(d)
    expect(d).toBeGreaterThan(s)
    expect(s).toBeLessThan(50)
  })

  it("recovery: well-rested athlete > sleep-deprived", () => {
    expect(last30(scores.athlete, recovery)).toBeGreaterThan(last30(scores.deprived, recovery))
  })

  it("ill for 3 days: recovery capped at 33 and flagged on exactly those days, well under the person's normal", () => {
    const normal = mean(scores.ill.slice(-40, -10).map(recovery))
    expect(normal).toBeGreaterThan(65)
    for (const d of scores.ill.filter((d) => d.date >= "2026-01-15")) {
      const ill = illDates.includes(d.date)
      expect(d.components.recovery.flags.includes("possibleIllnessSignal"), d.date).toBe(ill)
      if (ill) expect(d.recoveryScore, d.date).toBeLessThanOrEqual(33)
    }
    const illOverall = mean(scores.ill.filter((d) => illDates.includes(d.date)).map(overall))
    expect(illOverall).toBeLessThan(mean(scores.ill.slice(-40, -10).map(overall)) - 10)
  })

  it("sparse data: fewer scores, none where the data is missing, and plausible where present", () => {
    const rows = personaRows(Personas.sparseData, start, days)
    const nights = new Set(rows.sleep.map((r) => r.date))
    const sleepScored = scores.sparse.filter((d) => d.sleepScore !== null)
    expect(sleepScored.every((d) => nights.has(d.date))).toBe(true)
    expect(sleepScored.length).toBeLessThan(60)
    const overallScored = scores.sparse.filter((d) => d.overallScore !== null)
    expect(overallScored.length).toBeLessThan(scores.athlete.filter((d) => d.overallScore !== null).length)
    expect(mean(sleepScored.map(sleep))).toBeGreaterThan(60)
  })

  it("no persona has a recovery score in its first 14 days: the baselines are calibrating", () => {
    for (const [name, list] of Object.entries(scores)) {
      const early = list.filter((d) => d.date < "2026-01-15")
      expect(early.every((d) => d.recoveryScore === null), name).toBe(true)
      expect(early.filter((d) => d.components.recovery.factors.some((f) => f.state === "calibrating")).length, name)
        .toBeGreaterThan(0)
    }
    expect(scores.athlete.find((d) => d.date === "2026-01-15")?.recoveryScore).not.toBeNull()
  })
})

describe("the API reference example", () => {
  it("is what the algorithm computes for a sleep-deprived user on 2026-11-02 in Berlin", () => {
    const input = buildScoringInput(personaRows(Personas.sleepDeprived, "2026-09-01", 70), {
      timezone: "Europe/Berlin"
    })
    const [day] = dailyScores(input, { from: dailyScoreExample.date, to: dailyScoreExample.date })
    expect(Schema.encodeSync(DailyScore)(day!)).toEqual(dailyScoreExample)
  })
})
