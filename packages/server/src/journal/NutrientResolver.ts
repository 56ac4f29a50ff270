/**
 * From a named, measured food to its nutrients, shared by every analyser: the name is matched
 * against the food table's names and aliases (every word of an alias must appear; the longest
 * alias wins), the amount becomes grams (an explicit weight, else the unit: mass, volume times
 * density, or a household measure of that food), and the nutrients are the table's per-100 g
 * values scaled. Without a match, the analyser's own estimate is used when it gave one, marked so;
 * otherwise the nutrients stay unknown.
 */
import * as Effect from "effect/Effect"
import type { Food, Portions } from "./FoodTable.js"
import { foods } from "./FoodTable.js"
import type { NewItem } from "./Journal.js"
import type { NutrientValues } from "./Nutrients.js"
import { emptyNutrients } from "./Nutrients.js"

/** An item as an analyser names it. */
export interface DetectedItem {
  readonly name: string
  readonly quantity: number
  readonly unit: string
  readonly estimatedGrams: number | null
  readonly estimatedVolumeMl: number | null
  /** The analyser's recognition confidence, 0-1; null when it does not say (a caption). */
  readonly confidence: number | null
  /** The analyser's own nutrient estimate for the item, used only without a table match. */
  readonly modelNutrients: NutrientValues | null
}

/** Lower case words, naively singular, so "Eggs" and "egg" meet. */
export const words = (text: string): Array<string> =>
  text.toLowerCase()
    .replace(/[^a-z0-9%\s-]/g, " ")
    .split(/[\s-]+/)
    .filter((w) => w.length > 0)
    .map(singular)

const singular = (w: string): string => {
  if (w.length <= 3) return w
  if (w.endsWith("ies")) return `${w.slice(0, -3)}y`
  if (w.endsWith("oes") || w.endsWith("ches") || w.endsWith("shes") || w.endsWith("sses")) return w.slice(0, -2)
  if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) return w.slice(0, -1)
  return w
}

interface Alias {
  readonly food: Food
  readonly words: ReadonlyArray<string>
}

const aliases: ReadonlyArray<Alias> = foods.flatMap((food) =>
  food.aliases.map((alias) => ({ food, words: words(alias) }))
)

export interface FoodMatch {
  readonly food: Food
  /** How much of the text the alias covers, 0-1. */
  readonly score: number
  /** The text's words the alias used. */
  readonly matched: ReadonlyArray<string>
}

/** The food of the table `text` names, if any. */
export const matchFood = (text: string): FoodMatch | undefined => {
  const textWords = words(text)
  if (textWords.length === 0) return undefined
  const present = new Set(textWords)
  let best: Alias | undefined
  for (const alias of aliases) {
    if (alias.words.length === 0 || !alias.words.every((w) => present.has(w))) continue
    if (best === undefined || alias.words.length > best.words.length) best = alias
  }
  if (best === undefined) return undefined
  return { food: best.food, score: Math.min(1, best.words.length / textWords.length), matched: best.words }
}

const massUnits: Record<string, number> = {
  g: 1,
  gr: 1,
  gram: 1,
  gramme: 1,
  kg: 1000,
  kilogram: 1000,
  mg: 0.001,
  oz: 28.35,
  ounce: 28.35,
  lb: 453.6,
  pound: 453.6
}

const volumeUnits: Record<string, number> = {
  ml: 1,
  milliliter: 1,
  millilitre: 1,
  cl: 10,
  dl: 100,
  l: 1000,
  liter: 1000,
  litre: 1000,
  "fl oz": 29.57,
  floz: 29.57,
  tsp: 5,
  teaspoon: 5,
  glass: 250,
  mug: 250,
  can: 330,
  bottle: 500,
  shot: 30,
  pint: 473
}

const measureUnits: Record<string, keyof Portions> = {
  piece: "piece",
  pc: "piece",
  whole: "piece",
  item: "piece",
  egg: "piece",
  clove: "piece",
  slice: "slice",
  cup: "cup",
  tbsp: "tbsp",
  tablespoon: "tbsp",
  bowl: "bowl",
  serving: "serving",
  portion: "serving",
  plate: "serving",
  handful: "serving",
  scoop: "serving",
  bar: "serving",
  "": "serving"
}

/** The canonical spelling of a unit word ("Tablespoons" -> "tablespoon"), or undefined when unknown. */
export const normaliseUnit = (unit: string): string | undefined => {
  const u = unit.trim().toLowerCase().replace(/\.$/, "")
  const single = u === "" ? "" : singular(u)
  for (const candidate of [u, single]) {
    if (candidate in massUnits || candidate in volumeUnits || candidate in measureUnits) return candidate
  }
  return undefined
}

/** Grams of `quantity unit` of `food`, and whether the amount came as a volume. */
export const gramsOf = (
  food: Food,
  quantity: number,
  unit: string
): { readonly grams: number; readonly volumeMl: number | null } | undefined => {
  const u = normaliseUnit(unit)
  if (u === undefined) return undefined
  if (u in massUnits) {
    const grams = quantity * massUnits[u]!
    return { grams, volumeMl: food.liquid ? grams / food.density : null }
  }
  if (u in volumeUnits) {
    const ml = quantity * volumeUnits[u]!
    return { grams: ml * food.density, volumeMl: food.liquid ? ml : null }
  }
  const measure = measureUnits[u]!
  const portions = food.portions
  const each = portions[measure] ??
    (measure === "bowl"
      ? (portions.cup ?? portions.serving) * 1.5
      : measure === "tbsp"
      ? 15 * food.density
      : measure === "cup"
      ? 240 * food.density
      : portions.serving)
  const grams = quantity * each
  return { grams, volumeMl: food.liquid ? grams / food.density : null }
}

const round = (n: number, digits = 1) => {
  const f = 10 ** digits
  return Math.round(n * f) / f
}

/** The table's nutrients of `grams` of `food` (volume for drinks). */
export const nutrientsOf = (food: Food, grams: number, volumeMl: number | null): NutrientValues => {
  const f = grams / 100
  const v = food.per100g
  return {
    caloriesKcal: round(v.caloriesKcal * f),
    proteinGrams: round(v.proteinGrams * f),
    carbsGrams: round(v.carbsGrams * f),
    fatGrams: round(v.fatGrams * f),
    fiberGrams: round(v.fiberGrams * f),
    sugarGrams: round(v.sugarGrams * f),
    sodiumMg: round(v.sodiumMg * f, 0),
    caffeineMg: round(v.caffeineMg * f, 0),
    volumeMl: volumeMl === null ? null : round(volumeMl, 0)
  }
}

const clamp = (n: number, low: number, high: number) => Math.min(high, Math.max(low, n))

/** One detected item as stored: named as the analyser named it, measured and costed by the table. */
export const resolveItem = (item: DetectedItem): NewItem => {
  const match = matchFood(item.name)
  const confidence = item.confidence === null ? null : clamp(item.confidence, 0, 1)
  if (match === undefined) {
    const grams = item.estimatedGrams ?? null
    return {
      name: item.name,
      category: "",
      quantity: item.quantity,
      unit: item.unit,
      estimatedWeightGrams: grams === null ? null : round(grams),
      confidence: confidence === null ? null : round(confidence * 0.6, 2),
      nutrients: item.modelNutrients === null
        ? { ...emptyNutrients, volumeMl: item.estimatedVolumeMl }
        : { ...item.modelNutrients, volumeMl: item.modelNutrients.volumeMl ?? item.estimatedVolumeMl },
      nutrientSource: item.modelNutrients === null ? null : "ModelEstimate",
      foodSourceId: null
    }
  }
  const { food } = match
  const amount = item.estimatedGrams !== null && item.estimatedGrams > 0
    ? {
      grams: item.estimatedGrams,
      volumeMl: food.liquid ? (item.estimatedVolumeMl ?? item.estimatedGrams / food.density) : null
    }
    : item.estimatedVolumeMl !== null && item.estimatedVolumeMl > 0
    ? { grams: item.estimatedVolumeMl * food.density, volumeMl: food.liquid ? item.estimatedVolumeMl : null }
    : gramsOf(food, item.quantity, item.unit) ?? gramsOf(food, item.quantity, "")!
  return {
    name: item.name,
    category: food.category,
    quantity: item.quantity,
    unit: item.unit,
    estimatedWeightGrams: round(amount.grams),
    confidence: confidence === null ? null : round(confidence * (0.5 + 0.5 * match.score), 2),
    nutrients: nutrientsOf(food, amount.grams, amount.volumeMl),
    nutrientSource: "FoodTable",
    foodSourceId: food.sourceId
  }
}

/** The resolver as a service, so analysers and the analysis share one instance. */
export class NutrientResolver extends Effect.Service<NutrientResolver>()("@pulsebridge/server/NutrientResolver", {
  succeed: {
    resolve: (items: ReadonlyArray<DetectedItem>): ReadonlyArray<NewItem> => items.map(resolveItem),
    match: matchFood
  }
}) {}
