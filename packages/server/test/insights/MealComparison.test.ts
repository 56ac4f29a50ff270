/**
 * Meals compared, as pure functions, against values worked out by hand: the key of what was eaten (order, case,
 * spacing, punctuation and accents do not matter; a default title names nothing), the response figures the
 * comparison adds (change at 1 and 2 hours, minutes above 140 mg/dL, the baseline's slope), the statistics (mean,
 * sample SD, lowest, highest), the per-carbohydrate figures and how unknown carbohydrate is handled, the moving
 * baseline left out of a group's figures, and the smallest group.
 */
import { describe, expect, it } from "@effect/vitest"
import type { EntryKind } from "@pulsebridge/domain"
import type { MealInput } from "../../src/insights/MealComparison.js"
import { compareMeals, isMovingBaseline, mealKey, normaliseName, statOf } from "../../src/insights/MealComparison.js"
import type { Reading, Response } from "../../src/insights/MealResponse.js"
import { mealResponse, minutesAbove, slopePerMinute } from "../../src/insights/MealResponse.js"

const MIN = 60_000
const T = Date.parse("2026-03-02T12:00:00Z")

const key = (entryKind: EntryKind, title: string, itemNames: ReadonlyArray<string> = []) =>
  mealKey({ entryKind, title, itemNames })

describe("the key of what was eaten", () => {
  it("items: order, case, spacing, punctuation, accents and repeats do not matter; quantities are not in it", () => {
    const a = key("Meal", "Oatmeal, Banana", ["Oatmeal", "Banana"])
    expect(a).toBe("banana + oatmeal")
    expect(key("Meal", "anything", ["  BANANA ", "oatmeal!", "Banana"])).toBe(a)
    expect(key("Drink", "x", ["Crème  Brûlée"])).toBe("creme brulee")
    expect(key("Meal", "x", ["Pain-au-chocolat"])).toBe(key("Meal", "y", ["pain au chocolat"]))
    expect(normaliseName("Ｃａｆé\tLATTE")).toBe("cafe latte")
    // a different food is a different key
    expect(key("Meal", "x", ["Oatmeal"])).not.toBe(a)
    // items named by nothing but punctuation name nothing
    expect(key("Meal", "Lunch", ["!!", "--"])).toBeNull()
  })

  it("without items, the title; the entry's kind alone (the default title) names nothing", () => {
    expect(key("Meal", "Porridge, with honey")).toBe("porridge with honey")
    expect(key("Meal", "porridge with HONEY.")).toBe("porridge with honey")
    // an entry whose one item is its title's food joins the same group
    expect(key("Meal", "Porridge", [])).toBe(key("Meal", "Meal", ["porridge"]))
    expect(key("Meal", "Meal")).toBeNull()
    expect(key("Coffee", "coffee ")).toBeNull()
    expect(key("Drink", "Coffee")).toBe("coffee")
    expect(key("Meal", "...")).toBeNull()
  })
})

describe("the figures a comparison adds to a response", () => {
  it("change at 1 and 2 hours, minutes above 140 and the baseline's slope of a curve that rose before the meal", () => {
    // before: 130 + 1.2 m (94 at -30 up to 130 at 0), mean 112, slope 1.2 mg/dL a minute; after: +1 a minute to
    // 190 at 60, then down 1 a minute (130 at 120, 70 at 180)
    const f = (m: number) => m <= 0 ? 130 + 1.2 * m : m <= 60 ? 130 + m : 250 - m
    const readings: Array<Reading> = []
    for (let m = -30; m <= 180; m += 5) readings.push({ t: T + m * MIN, mgDl: f(m), atLimit: false })
    const r = mealResponse({
      at: T,
      source: { connectionId: "c1", provider: "Dexcom", readings },
      others: [],
      now: T + 24 * 60 * MIN
    })
    expect(r).toMatchObject({
      status: "Complete",
      baselineMgDl: 112,
      riseMgDl: 78,
      change1hMgDl: 78,
      change2hMgDl: 18,
      // above 140 from 10 to 110 minutes
      minutesAbove140: 100,
      baselineSlopeMgDlPerMin: 1.2
    })
    expect(isMovingBaseline(r.baselineSlopeMgDlPerMin!)).toBe(true)
  })

  it("minutes above a level are linear between readings; the slope is least squares", () => {
    const at = (m: number, mgDl: number): Reading => ({ t: T + m * MIN, mgDl, atLimit: false })
    // 130 -> 150 crosses 140 at 5, 150 -> 130 at 25
    expect(minutesAbove([at(0, 130), at(10, 150), at(20, 150), at(30, 130)], 140)).toBe(20)
    expect(minutesAbove([at(0, 140), at(10, 140)], 140)).toBe(0)
    // 100, 104, 102, 106 at 0, 5, 10, 15: slope (sum of dt dv) / (sum of dt²) = (-7.5 x -3 + -2.5 x 1 + 2.5 x -1 +
    // 7.5 x 3) / 125 = 40 / 125 = 0.32
    expect(slopePerMinute([at(0, 100), at(5, 104), at(10, 102), at(15, 106)])).toBeCloseTo(0.32, 10)
    expect(slopePerMinute([at(0, 100)])).toBe(0)
    // the threshold: steeper than 1 mg/dL a minute, either way
    expect([isMovingBaseline(1), isMovingBaseline(1.01), isMovingBaseline(-1.5), isMovingBaseline(-0.5)]).toEqual([
      false,
      true,
      true,
      false
    ])
  })
})

describe("statistics", () => {
  it("mean, sample standard deviation (n - 1), lowest and highest, rounded", () => {
    // deviations -15, -5, 5, 15: squares 500 / 3 = 166.67, SD 12.91
    expect(statOf([10, 20, 30, 40], 1)).toEqual({ mean: 25, sd: 12.9, min: 10, max: 40 })
    expect(statOf([2400.4, 3600.6], 0)).toEqual({ mean: 3001, sd: 849, min: 2400, max: 3601 })
    expect(statOf([-0.01, 0.01], 1)).toEqual({ mean: 0, sd: 0, min: 0, max: 0 })
  })
})

/** A Complete response with the given figures (the others of no matter here). */
const complete = (figures: Partial<Response>): Response => ({
  status: "Complete",
  reason: null,
  detail: null,
  connectionId: "c1",
  provider: "Dexcom",
  baselineMgDl: 100,
  peakMgDl: 150,
  peakAt: T,
  timeToPeakMinutes: 45,
  riseMgDl: 50,
  iauc2hMgDlMin: 3000,
  returnToBaselineMinutes: 120,
  change1hMgDl: 40,
  change2hMgDl: 10,
  minutesAbove140: 10,
  baselineSlopeMgDlPerMin: 0,
  readingCount: 43,
  flags: [],
  overlappingEntryIds: [],
  ...figures
})

let day = 0
const meal = (title: string, carbsGrams: number | null, response: Response | null, items: Array<string> = []) => {
  day++
  const date = `2026-03-${String(day).padStart(2, "0")}`
  return {
    entryId: `00000000-0000-4000-8000-${String(day).padStart(12, "0")}`,
    entryKind: "Meal",
    title,
    consumedAtUtc: new Date(`${date}T08:00:00Z`),
    journalDate: date,
    carbsGrams,
    key: mealKey({ entryKind: "Meal", title, itemNames: items }),
    response
  } satisfies MealInput
}

describe("groups", () => {
  const oatmeal = (carbs: number | null, figures: Partial<Response>) =>
    meal("Oatmeal", carbs, complete(figures), ["oatmeal"])
  const meals = [
    oatmeal(40, {
      riseMgDl: 40,
      iauc2hMgDlMin: 2000,
      change1hMgDl: 30,
      change2hMgDl: 0,
      minutesAbove140: 0,
      timeToPeakMinutes: 40
    }),
    meal("Pasta", 80, complete({ riseMgDl: 60, iauc2hMgDlMin: 3600 })),
    oatmeal(50, {
      riseMgDl: 50,
      iauc2hMgDlMin: 3000,
      change1hMgDl: 40,
      change2hMgDl: 10,
      minutesAbove140: 10,
      timeToPeakMinutes: 45,
      flags: ["otherEntryInWindow"]
    }),
    // the baseline rose 1.2 mg/dL a minute: listed, not counted
    oatmeal(45, { riseMgDl: 90, iauc2hMgDlMin: 6000, baselineSlopeMgDlPerMin: 1.2 }),
    meal("Apple", 20, complete({})),
    meal("Rice", 60, { ...complete({}), status: "Pending", riseMgDl: null }),
    meal("Meal", 30, complete({})),
    // carbohydrate unknown
    oatmeal(null, {
      riseMgDl: 60,
      iauc2hMgDlMin: 4000,
      change1hMgDl: 50,
      change2hMgDl: 20,
      minutesAbove140: 20,
      timeToPeakMinutes: 50
    }),
    meal("pasta!", 60, complete({ riseMgDl: 30, iauc2hMgDlMin: 2400 })),
    meal("Salad", 5, complete({})),
    meal("Salad", 8, complete({ riseMgDl: 10 }))
  ]

  it("each group's n, mean and spread; per carbohydrate only where every meal of the statistics has it", () => {
    const result = compareMeals(meals, 2)
    // 11 entries; the Pending rice is not Complete; the default-titled meal is in no group
    expect([result.entries, result.completeResponses, result.inGroups]).toEqual([11, 10, 7])
    expect(result.groups.map((g) => [g.key, g.n, g.movingBaselineMeals, g.carbsKnown])).toEqual([
      ["oatmeal", 3, 1, 2],
      ["pasta", 2, 0, 2],
      ["salad", 2, 0, 2]
    ])
    const [oat, pasta, salad] = result.groups
    // rises 40, 50, 60 (the moving 90 left out): mean 50, SD 10
    expect(oat!.riseMgDl).toEqual({ mean: 50, sd: 10, min: 40, max: 60 })
    expect(oat!.iauc2hMgDlMin).toEqual({ mean: 3000, sd: 1000, min: 2000, max: 4000 })
    expect(oat!.change1hMgDl).toEqual({ mean: 40, sd: 10, min: 30, max: 50 })
    expect(oat!.change2hMgDl).toEqual({ mean: 10, sd: 10, min: 0, max: 20 })
    expect(oat!.minutesAbove140).toEqual({ mean: 10, sd: 10, min: 0, max: 20 })
    expect(oat!.timeToPeakMinutes).toEqual({ mean: 45, sd: 5, min: 40, max: 50 })
    // one meal's carbohydrate is unknown: no group figure per carbohydrate, each known meal has its own
    expect([oat!.carbsGrams, oat!.risePer10gCarbs, oat!.iaucPer10gCarbs]).toEqual([null, null, null])
    expect(oat!.meals.map((m) => [m.inStatistics, m.movingBaseline, m.risePer10gCarbs, m.iaucPer10gCarbs])).toEqual([
      [true, false, 10, 500],
      [true, false, 10, 600],
      [false, true, 20, 1333.3],
      [true, false, null, null]
    ])
    expect(oat!.meals[1]!.flags).toEqual(["otherEntryInWindow"])
    expect(oat!.label).toBe("Oatmeal")

    // 80 g: rise 60 -> 7.5 per 10 g, area 3600 -> 450; 60 g: 30 -> 5, 2400 -> 400
    expect(pasta!.riseMgDl).toEqual({ mean: 45, sd: 21.2, min: 30, max: 60 })
    expect(pasta!.carbsGrams).toEqual({ mean: 70, sd: 14.1, min: 60, max: 80 })
    expect(pasta!.risePer10gCarbs).toEqual({ mean: 6.3, sd: 1.8, min: 5, max: 7.5 })
    expect(pasta!.iaucPer10gCarbs).toEqual({ mean: 425, sd: 35.4, min: 400, max: 450 })
    // the latest meal's title
    expect(pasta!.label).toBe("pasta!")

    // 5 and 8 g: known, but below 10 g no per-carbohydrate figure
    expect(salad!.carbsGrams).toEqual({ mean: 6.5, sd: 2.1, min: 5, max: 8 })
    expect([salad!.risePer10gCarbs, salad!.meals[0]!.risePer10gCarbs]).toEqual([null, null])
  })

  it("the smallest group counts the meals of the statistics only", () => {
    expect(compareMeals(meals, 3).groups.map((g) => g.key)).toEqual(["oatmeal"])
    // oatmeal has 4 meals, but one has a moving baseline
    expect(compareMeals(meals, 4).groups).toEqual([])
    expect(compareMeals([], 2)).toEqual({ entries: 0, completeResponses: 0, inGroups: 0, groups: [] })
  })
})
