/**
 * Caffeine and late meals in the sleep score, as pure functions: which journal entries count, the
 * 24-hour window before sleep onset, the caffeine left at onset after a 5-hour half-life, the points
 * `caffeine` and `lateMeal` cost (hand-computed), and that without journal entries every score is
 * byte for byte what algorithm 1.0 computed (the hashes were recorded from it).
 */
import { describe, expect, it } from "@effect/vitest"
import type { EntryKind } from "@pulsebridge/domain"
import { personaRows, Personas } from "@pulsebridge/testing/ScoringPersonas"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as Curves from "../../src/scoring/Curves.js"
import { dailyScores, IntakeWeights } from "../../src/scoring/Daily.js"
import type { BedtimeIntake, ScoringDay } from "../../src/scoring/Inputs.js"
import { buildScoringInput } from "../../src/scoring/Inputs.js"
import type { JournalRow } from "../../src/scoring/Intake.js"
import { caffeineOf, isMeal, Journal } from "../../src/scoring/Intake.js"
import { daysBefore, factor, goodNight, input, steadyDay } from "./Fixtures.js"

const entry = (
  entryKind: EntryKind,
  at: string,
  nutrients: Partial<Pick<JournalRow, "caffeineMg" | "caloriesKcal" | "volumeMl">> = {}
): JournalRow => ({
  entryKind,
  consumedAtUtc: new Date(at),
  caffeineMg: nutrients.caffeineMg ?? null,
  caloriesKcal: nutrients.caloriesKcal ?? null,
  volumeMl: nutrients.volumeMl ?? null
})

/** Sleep onset of the nights below: 23:00 UTC on 9 March. */
const onset = new Date("2026-03-09T23:00:00.000Z")

describe("which journal entries count", () => {
  it.effect("caffeine: any entry above 0 mg; a coffee of unknown caffeine as brewed coffee; decaf as 0", () =>
    Effect.sync(() => {
      const at = "2026-03-09T12:00:00Z"
      expect(caffeineOf(entry("Drink", at, { caffeineMg: 80 }))).toBe(80)
      expect(caffeineOf(entry("Meal", at, { caffeineMg: 20 }))).toBe(20)
      // 107 mg per 250 mL: one cup when the volume is unknown, 500 mL twice that
      expect(caffeineOf(entry("Coffee", at))).toBe(107)
      expect(caffeineOf(entry("Coffee", at, { volumeMl: 500 }))).toBe(214)
      expect(caffeineOf(entry("Coffee", at, { volumeMl: 125 }))).toBe(53.5)
      expect(caffeineOf(entry("Coffee", at, { caffeineMg: 0 }))).toBe(0)
      // a drink of unknown caffeine may have none: nothing is guessed
      expect(caffeineOf(entry("Drink", at))).toBeNull()
      expect(caffeineOf(entry("Drink", at, { caffeineMg: 0 }))).toBeNull()
      expect(caffeineOf(entry("Water", at, { volumeMl: 500 }))).toBeNull()
    }))

  it.effect("meals: Meal entries, but not one known to be under 100 kcal (a snack)", () =>
    Effect.sync(() => {
      const at = "2026-03-09T20:00:00Z"
      expect(isMeal(entry("Meal", at))).toBe(true)
      expect(isMeal(entry("Meal", at, { caloriesKcal: 100 }))).toBe(true)
      expect(isMeal(entry("Meal", at, { caloriesKcal: 99 }))).toBe(false)
      expect(isMeal(entry("Drink", at, { caloriesKcal: 500 }))).toBe(false)
      expect(isMeal(entry("Coffee", at, { caloriesKcal: 150 }))).toBe(false)
    }))
})

describe("caffeine left at sleep onset", () => {
  it.effect("halves every 5 hours", () =>
    Effect.sync(() => {
      expect(Curves.caffeineRemaining(100, 0, 5)).toBe(100)
      expect(Curves.caffeineRemaining(100, 5, 5)).toBe(50)
      expect(Curves.caffeineRemaining(100, 10, 5)).toBe(25)
      // 400 mg 6 h before bed (Drake et al. 2013): 400 x 2^-1.2 = 174.11 mg
      expect(Curves.caffeineRemaining(400, 6, 5)).toBeCloseTo(174.11, 2)
      // 107 mg 8.8 h before bed (Gardiner et al. 2023): 107 x 2^-1.76 = 31.59 mg
      expect(Curves.caffeineRemaining(107, 8.8, 5)).toBeCloseTo(31.59, 2)
    }))

  it.effect("sums the entries of the 24 h up to onset, each from its own time", () =>
    Effect.sync(() => {
      const journal = new Journal([
        entry("Drink", "2026-03-09T18:00:00Z", { caffeineMg: 100 }), // 5 h before: 50 mg left
        entry("Drink", "2026-03-09T13:00:00Z", { caffeineMg: 100 }), // 10 h before: 25 mg left
        entry("Coffee", "2026-03-08T22:59:00Z", { caffeineMg: 300 }), // 24 h 1 min before: not read
        entry("Coffee", "2026-03-09T23:30:00Z", { caffeineMg: 300 }) // after onset: the next night's
      ])
      expect(journal.before(onset)).toEqual({ caffeineMg: 75, lastMealHours: null })
    }))

  it.effect("reads an entry exactly 24 h before onset and one at onset", () =>
    Effect.sync(() => {
      const journal = new Journal([
        entry("Drink", "2026-03-08T23:00:00Z", { caffeineMg: 320 }), // 24 h: 320 / 2^4.8 = 11.49 mg
        entry("Drink", "2026-03-09T23:00:00Z", { caffeineMg: 40 }) // at onset: all 40 mg
      ])
      expect(journal.before(onset)!.caffeineMg).toBeCloseTo(40 + 320 * Math.pow(2, -4.8), 9)
    }))
})

describe("the last meal before sleep", () => {
  it.effect("is the latest meal of the window; a snack after it does not move it", () =>
    Effect.sync(() => {
      const journal = new Journal([
        entry("Meal", "2026-03-09T12:30:00Z"),
        entry("Meal", "2026-03-09T19:00:00Z", { caloriesKcal: 700 }), // 4 h before onset
        entry("Meal", "2026-03-09T22:00:00Z", { caloriesKcal: 80 }), // a snack
        entry("Water", "2026-03-09T22:30:00Z")
      ])
      expect(journal.before(onset)).toEqual({ caffeineMg: null, lastMealHours: 4 })
    }))

  it.effect("a journal with nothing to read before the night gives no intake at all", () =>
    Effect.sync(() => {
      expect(new Journal([]).before(onset)).toBeNull()
      const journal = new Journal([
        entry("Water", "2026-03-09T21:00:00Z", { volumeMl: 500 }),
        entry("Drink", "2026-03-09T20:00:00Z"),
        entry("Meal", "2026-03-09T20:00:00Z", { caloriesKcal: 60 }),
        entry("Meal", "2026-03-08T20:00:00Z") // 27 h before
      ])
      expect(journal.before(onset)).toBeNull()
    }))
})

const today = "2026-03-10"
/** Six steady nights and today's: every sleep factor at 100, so the sleep score is 100 before penalties. */
const nightsWith = (intake: BedtimeIntake | null, today_: Partial<ScoringDay> = {}) =>
  dailyScores(input([...daysBefore(today, 6, (date) => steadyDay(date)), steadyDay(today, { intake, ...today_ })]), {
    from: today,
    to: today
  })[0]!

describe("caffeine and lateMeal in the sleep score", () => {
  it.effect("weights: caffeine 0.10, lateMeal 0.05", () =>
    Effect.sync(() => {
      expect(IntakeWeights).toEqual({ caffeine: 0.10, lateMeal: 0.05 })
    }))

  it.effect("100 mg left and a meal 2.5 h before: 5 + 0.75 points off, the other factors unchanged", () =>
    Effect.sync(() => {
      const without = nightsWith(null)
      const withIntake = nightsWith({ caffeineMg: 100, lastMealHours: 2.5 })
      expect(without.sleepScore).toBe(100)
      // caffeine 100 mg -> 50, costs 0.10 x 50 = 5; meal 2.5 h -> 85, costs 0.05 x 15 = 0.75
      expect(withIntake.sleepScore).toBe(Math.round(100 - 5 - 0.75))
      expect(withIntake.sleepScore).toBe(94)
      expect(factor(withIntake, "sleep", "caffeine")).toEqual({
        key: "caffeine",
        value: 100,
        unit: "mg",
        reference: { kind: "target", value: 30 },
        subScore: 50,
        weight: 0.1,
        effectiveWeight: 0.1,
        pointsLost: 5,
        state: "scored",
        source: null
      })
      expect(factor(withIntake, "sleep", "lateMeal")).toEqual({
        key: "lateMeal",
        value: 2.5,
        unit: "h",
        reference: { kind: "target", value: 3 },
        subScore: 85,
        weight: 0.05,
        effectiveWeight: 0.05,
        pointsLost: 0.8,
        state: "scored",
        source: null
      })
      // the measured factors keep their weights and the coverage is the same: nothing renormalised
      expect(withIntake.components.sleep.factors.slice(0, -2)).toEqual(without.components.sleep.factors)
      expect(withIntake.components.sleep.coverage).toBe(without.components.sleep.coverage)
      // the recovery score reads the sleep score; the overall score follows
      expect(factor(withIntake, "recovery", "lastNightSleep").value).toBe(94)
    }))

  it.effect("only the factor the journal has something for appears", () =>
    Effect.sync(() => {
      const coffee = nightsWith({ caffeineMg: 65, lastMealHours: null })
      expect(coffee.components.sleep.factors.map((f) => f.key)).toContain("caffeine")
      expect(coffee.components.sleep.factors.map((f) => f.key)).not.toContain("lateMeal")
      // 65 mg -> 75, costs 2.5: 97.5 rounds to 98
      expect(coffee.sleepScore).toBe(98)
      const meal = nightsWith({ caffeineMg: null, lastMealHours: 1 })
      expect(meal.components.sleep.factors.map((f) => f.key)).not.toContain("caffeine")
      // 1 h -> 30, costs 0.05 x 70 = 3.5: 96.5 rounds to 97
      expect(factor(meal, "sleep", "lateMeal").pointsLost).toBe(3.5)
      expect(meal.sleepScore).toBe(97)
    }))

  it.effect("harmless intake (a morning coffee, dinner 4 h before) costs nothing", () =>
    Effect.sync(() => {
      const score = nightsWith({ caffeineMg: 13.4, lastMealHours: 4 })
      expect(score.sleepScore).toBe(100)
      expect(factor(score, "sleep", "caffeine").pointsLost).toBe(0)
      expect(factor(score, "sleep", "lateMeal").pointsLost).toBe(0)
    }))

  it.effect("at most 15 points, and never under 0", () =>
    Effect.sync(() => {
      expect(nightsWith({ caffeineMg: 400, lastMealHours: 0 }).sleepScore).toBe(85)
      const awful = nightsWith({ caffeineMg: 400, lastMealHours: 0 }, {
        mainSleep: goodNight({ asleepMinutes: 200, efficiencyPercent: 60, awakeMinutes: 120, midpointMinutes: 1200 })
      })
      expect(awful.sleepScore).toBeGreaterThanOrEqual(0)
    }))

  it.effect("a sleep score that is null stays null, and its intake factors count for nothing", () =>
    Effect.sync(() => {
      // no efficiency, wake time nor stages: duration, regularity and timing are 50% of the weight
      const thin = nightsWith({ caffeineMg: 200, lastMealHours: 0.5 }, {
        mainSleep: goodNight({ efficiencyPercent: null, awakeMinutes: null, deepMinutes: null, remMinutes: null })
      })
      expect(thin.sleepScore).toBeNull()
      expect(factor(thin, "sleep", "caffeine").effectiveWeight).toBe(0)
      expect(factor(thin, "sleep", "caffeine").pointsLost).toBe(0)
      expect(factor(thin, "sleep", "lateMeal").pointsLost).toBe(0)
    }))
})

describe("without a journal, nothing changes", () => {
  /** SHA-256 of the JSON of each persona's 90 daily scores, as algorithm 1.0 computed them. */
  const recorded: Record<keyof typeof Personas, string> = {
    wellRestedAthlete: "433335995ac1c1b9fd03c59d1b0941af22433a7d472037c5b45d1c05f525d2ea",
    sleepDeprived: "5303a84ec04e9de7b0374faa4346f498abf125589579ee7dc9eb53f6b61b3cc3",
    ill: "fab7b95d9e977e57bc7af8edb38d8056035d5d4940bb8016723afbce37fdd46d",
    sedentary: "e673c230a9682e29e4782c429d799b70ddf017bbfe41320351c339fef732b37f",
    sparseData: "d21e0a3969faaabc279c9a90fd163c0995d24c49ac4b11d59359735261946c0f"
  }

  const scoresOf = (persona: keyof typeof Personas, journal: ReadonlyArray<JournalRow> = []) =>
    dailyScores(
      buildScoringInput({ ...personaRows(Personas[persona], "2026-01-01", 90), journal }, { timezone: "UTC" }),
      { from: "2026-01-01", to: "2026-03-31" }
    )

  it.effect("every persona's scores are those of algorithm 1.0 byte for byte, but for the version label", () =>
    Effect.sync(() => {
      for (const persona of Object.keys(recorded) as Array<keyof typeof Personas>) {
        const text = JSON.stringify(scoresOf(persona))
        expect(text).toContain(`"algorithmVersion":"1.2"`)
        const as10 = text.replaceAll(`"algorithmVersion":"1.2"`, `"algorithmVersion":"1.0"`)
        expect(crypto.createHash("sha256").update(as10).digest("hex"), persona).toBe(recorded[persona])
      }
    }))

  it.effect("a journal changes the nights it has entries before, and no other day", () =>
    Effect.sync(() => {
      const plain = scoresOf("wellRestedAthlete")
      // a large coffee at 20:00 on 14 February: before the night that ends on the 15th
      const withCoffee = scoresOf("wellRestedAthlete", [
        entry("Coffee", "2026-02-14T20:00:00Z", { caffeineMg: 200 }),
        entry("Water", "2026-03-01T20:00:00Z")
      ])
      const changed = withCoffee.filter((d, i) => JSON.stringify(d) !== JSON.stringify(plain[i]))
      expect(changed.map((d) => d.date)).toEqual(["2026-02-15"])
      expect(factor(changed[0]!, "sleep", "caffeine").state).toBe("scored")
      expect(changed[0]!.sleepScore!).toBeLessThan(plain.find((d) => d.date === "2026-02-15")!.sleepScore!)
    }))
})
