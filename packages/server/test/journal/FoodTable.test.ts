/**
 * The food composition table, the nutrient resolver and the caption reader: the table's values
 * are plausible by construction rules, names and units turn into the right grams, and captions
 * into items, with nothing guessed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readCaption } from "../../src/journal/Caption.js"
import { foods } from "../../src/journal/FoodTable.js"
import { offlineAnalyzer } from "../../src/journal/MealAnalyzer.js"
import { gramsOf, matchFood, resolveItem } from "../../src/journal/NutrientResolver.js"

const item = (name: string, quantity: number, unit: string) => ({
  name,
  quantity,
  unit,
  estimatedGrams: null,
  estimatedVolumeMl: null,
  confidence: null,
  modelNutrients: null
})

describe("food composition table", () => {
  it("has at least 150 foods and drinks, each with a source id and a unique name", () => {
    expect(foods.length).toBeGreaterThanOrEqual(150)
    expect(new Set(foods.map((f) => f.name.toLowerCase())).size).toBe(foods.length)
    expect(new Set(foods.map((f) => f.sourceId)).size).toBe(foods.length)
    for (const food of foods) expect(food.sourceId, food.name).toMatch(/^(usda-sr:\d{5}|derived:[\d+:]+)$/)
    expect(foods.filter((f) => f.category === "Beverages").length).toBeGreaterThanOrEqual(20)
  })

  it("energy is within 15 % (at least 20 kcal) of 4 P + 4 C + 9 F + 7 alcohol for every food", () => {
    for (const { name, per100g: v } of foods) {
      const atwater = 4 * v.proteinGrams + 4 * v.carbsGrams + 9 * v.fatGrams + 7 * v.alcoholGrams
      expect(Math.abs(v.caloriesKcal - atwater), `${name}: ${v.caloriesKcal} kcal vs ${atwater}`)
        .toBeLessThanOrEqual(Math.max(20, 0.15 * v.caloriesKcal))
    }
  })

  it("sugar and fibre fit in the carbohydrate, macronutrients in 100 g, sodium and caffeine in range", () => {
    for (const { name, per100g: v } of foods) {
      // USDA measures sugars apart from carbohydrate by difference; milk's sugars exceed it by 0.25 g.
      expect(v.sugarGrams, name).toBeLessThanOrEqual(v.carbsGrams + 0.5)
      if (v.fiberGrams > 0) expect(v.fiberGrams, name).toBeLessThanOrEqual(Math.max(v.carbsGrams, 1))
      expect(v.proteinGrams + v.carbsGrams + v.fatGrams + v.alcoholGrams, name).toBeLessThanOrEqual(100.5)
      expect(v.sodiumMg, name).toBeLessThanOrEqual(40_000)
      for (const value of Object.values(v)) expect(value, name).toBeGreaterThanOrEqual(0)
    }
    const caffeinated = foods.filter((f) => f.per100g.caffeineMg > 0).map((f) => f.name)
    for (const name of caffeinated) {
      expect(name).toMatch(/coffee|espresso|latte|cappuccino|tea|cola|energy|chocolate/i)
    }
    expect(foods.find((f) => f.name === "Coffee")!.per100g.caffeineMg).toBe(40)
    expect(foods.find((f) => f.name === "Espresso")!.per100g.caffeineMg).toBe(212)
  })
})

describe("nutrient resolver", () => {
  it("matches names by their words, preferring the longest alias", () => {
    expect(matchFood("Grilled chicken breast")?.food.name).toBe("Chicken breast")
    expect(matchFood("black coffee")?.food.name).toBe("Coffee")
    expect(matchFood("rice, white, cooked")?.food.name).toBe("White rice")
    expect(matchFood("Eggs")?.food.name).toBe("Boiled egg")
    expect(matchFood("hot chocolate")?.food.name).toBe("Hot chocolate")
    expect(matchFood("pad thai")).toBeUndefined()
    expect(matchFood("")).toBeUndefined()
  })

  it("turns units into grams: mass, volume by density, and each food's household measures", () => {
    const food = (name: string) => matchFood(name)!.food
    expect(gramsOf(food("banana"), 2, "piece")).toEqual({ grams: 236, volumeMl: null })
    expect(gramsOf(food("rice"), 150, "g")).toEqual({ grams: 150, volumeMl: null })
    expect(gramsOf(food("rice"), 1, "cups")).toEqual({ grams: 158, volumeMl: null })
    expect(gramsOf(food("coffee"), 250, "ml")).toEqual({ grams: 250, volumeMl: 250 })
    expect(gramsOf(food("milk"), 1, "l")?.grams).toBeCloseTo(1030)
    expect(gramsOf(food("butter"), 1, "tbsp")?.grams).toBe(14)
    expect(gramsOf(food("apple"), 1, "")?.grams).toBe(182)
    expect(gramsOf(food("apple"), 1, "furlong")).toBeUndefined()
  })

  it("costs a matched item from the table and leaves an unknown one to the model's marked estimate", () => {
    const coffee = resolveItem(item("coffee", 250, "ml"))
    expect(coffee).toMatchObject({ category: "Beverages", estimatedWeightGrams: 250, nutrientSource: "FoodTable" })
    expect(coffee.nutrients).toMatchObject({ caffeineMg: 100, volumeMl: 250, caloriesKcal: 2.5 })
    expect(coffee.foodSourceId).toBe("usda-sr:14209")
    const unknown = resolveItem({
      ...item("pad thai", 1, "plate"),
      confidence: 0.8,
      modelNutrients: {
        caloriesKcal: 510,
        proteinGrams: 21,
        carbsGrams: 60,
        fatGrams: 20,
        fiberGrams: null,
        sugarGrams: null,
        sodiumMg: null,
        caffeineMg: null,
        volumeMl: null
      }
    })
    expect(unknown).toMatchObject({ category: "", nutrientSource: "ModelEstimate", foodSourceId: null })
    expect(unknown.nutrients.caloriesKcal).toBe(510)
    expect(unknown.confidence).toBeLessThan(0.8)
    const nothing = resolveItem(item("mystery stew", 1, "bowl"))
    expect(nothing.nutrientSource).toBeNull()
    expect(Object.values(nothing.nutrients).every((v) => v === null)).toBe(true)
  })
})

describe("caption reader and offline analyser", () => {
  it("reads quantities, units and foods from a caption", () => {
    const reading = readCaption("2 eggs, toast with butter, 250 ml black coffee and ½ cup blueberries")
    expect(reading.unknown).toEqual([])
    expect(reading.items.map((i) => [i.name, i.quantity, i.unit])).toEqual([
      ["eggs", 2, "serving"],
      ["toast", 1, "serving"],
      ["butter", 1, "serving"],
      ["black coffee", 250, "ml"],
      ["blueberries", 0.5, "cup"]
    ])
    const resolved = reading.items.map(resolveItem)
    expect(resolved.map((i) => i.estimatedWeightGrams)).toEqual([100, 22, 10, 250, 74])
    expect(readCaption("a slice of pizza; 1/2 avocado + 330ml cola").items.map((i) => [i.name, i.quantity, i.unit]))
      .toEqual([["pizza", 1, "slice"], ["avocado", 0.5, "serving"], ["cola", 330, "ml"]])
  })

  it.effect("the offline analyser fails with a reason when nothing in the caption is known", () =>
    Effect.gen(function*() {
      const input = (notes: string | null) => ({ image: Option.none(), entryKind: "Meal" as const, notes })
      const ok = yield* offlineAnalyzer.analyze(input("porridge with honey and a banana"))
      expect(ok.items.map((i) => i.name)).toEqual(["Porridge", "Honey", "Banana"])
      const unknown = yield* Effect.flip(offlineAnalyzer.analyze(input("something delicious")))
      expect(unknown.transient).toBe(false)
      expect(unknown.reason).toMatch(/no known food/i)
      const empty = yield* Effect.flip(offlineAnalyzer.analyze(input(null)))
      expect(empty.reason).toMatch(/caption/)
    }))
})
