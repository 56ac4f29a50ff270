/**
 * Meals compared, as pure functions: the key of what an entry was (its items' names, or its title without
 * items, normalised), the statistics of a figure over a group (mean, sample SD, lowest, highest), and the
 * groups themselves from the entries and their computed glucose responses (`MealResponse.ts`, the one
 * computation of a response). No I/O; the rules and their reasons are in `docs/insights.md`.
 */
import type { EntryKind } from "@pulsebridge/domain"
import {
  ComparedMeal,
  MealComparisonStat,
  MealGroup,
  MinCarbsGramsPerCarbFigures,
  MovingBaselineMgDlPerMin
} from "@pulsebridge/domain"
import type { Response } from "./MealResponse.js"

/**
 * A name as a key part: compatibility-decomposed, accents dropped, lower case, every run of characters that are
 * neither letters nor digits one space, trimmed. "Crème Brûlée!" and "creme  brulee" are the same.
 */
export const normaliseName = (name: string): string =>
  name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()

/**
 * What an entry was, as a key: its items' normalised names, each once, sorted and joined with " + " (so order,
 * case, spacing, punctuation and repeated items do not matter, and quantities are not part of it); an entry
 * without items, its normalised title. None when nothing names it: no item or title with a letter or digit, or
 * a title that is only the entry's kind (the journal's default title, "Meal", says nothing of what was eaten).
 */
export const mealKey = (entry: {
  readonly entryKind: EntryKind
  readonly title: string
  readonly itemNames: ReadonlyArray<string>
}): string | null => {
  if (entry.itemNames.length === 0) {
    const title = normaliseName(entry.title)
    return title === "" || title === entry.entryKind.toLowerCase() ? null : title
  }
  const names = [...new Set(entry.itemNames.map(normaliseName).filter((n) => n !== ""))].sort()
  return names.length === 0 ? null : names.join(" + ")
}

const round = (x: number, decimals: number) => {
  const f = 10 ** decimals
  // `+ 0` turns a negative zero into zero, which JSON would write as 0 anyway but a test's toEqual would not.
  return Math.round(x * f) / f + 0
}

/** Mean, sample standard deviation (n - 1), lowest and highest of at least two values, rounded to `decimals`. */
export const statOf = (values: ReadonlyArray<number>, decimals: number): MealComparisonStat => {
  const n = values.length
  const mean = values.reduce((sum, v) => sum + v, 0) / n
  const sd = n < 2 ? 0 : Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1))
  return new MealComparisonStat({
    mean: round(mean, decimals),
    sd: round(sd, decimals),
    min: round(Math.min(...values), decimals),
    max: round(Math.max(...values), decimals)
  }, true)
}

/** A meal, drink or coffee of the range, with its key and its computed response (null: none). */
export interface MealInput {
  readonly entryId: string
  readonly entryKind: EntryKind
  readonly title: string
  readonly consumedAtUtc: Date
  readonly journalDate: string
  readonly carbsGrams: number | null
  readonly key: string | null
  readonly response: Response | null
}

/** A Complete response, whose figures are all set. */
type Complete =
  & Response
  & {
    readonly [
      K in
        | "baselineMgDl"
        | "riseMgDl"
        | "iauc2hMgDlMin"
        | "change1hMgDl"
        | "change2hMgDl"
        | "minutesAbove140"
        | "timeToPeakMinutes"
        | "baselineSlopeMgDlPerMin"
    ]: number
  }

const isComplete = (r: Response | null): r is Complete => r !== null && r.status === "Complete"

/** A baseline still moving: its slope steeper than `MovingBaselineMgDlPerMin`, either way. */
export const isMovingBaseline = (slopeMgDlPerMin: number) => Math.abs(slopeMgDlPerMin) > MovingBaselineMgDlPerMin

const perTenGrams = (value: number, carbs: number | null) =>
  carbs === null || carbs < MinCarbsGramsPerCarbFigures ? null : round(value / carbs * 10, 1)

const comparedMeal = (meal: MealInput, r: Complete): ComparedMeal => {
  const moving = isMovingBaseline(r.baselineSlopeMgDlPerMin)
  return new ComparedMeal({
    entryId: meal.entryId as ComparedMeal["entryId"],
    entryKind: meal.entryKind,
    title: meal.title,
    consumedAtUtc: meal.consumedAtUtc,
    journalDate: meal.journalDate,
    carbsGrams: meal.carbsGrams,
    inStatistics: !moving,
    movingBaseline: moving,
    baselineMgDl: r.baselineMgDl,
    baselineSlopeMgDlPerMin: r.baselineSlopeMgDlPerMin,
    riseMgDl: r.riseMgDl,
    iauc2hMgDlMin: r.iauc2hMgDlMin,
    change1hMgDl: r.change1hMgDl,
    change2hMgDl: r.change2hMgDl,
    minutesAbove140: r.minutesAbove140,
    timeToPeakMinutes: r.timeToPeakMinutes,
    risePer10gCarbs: perTenGrams(r.riseMgDl, meal.carbsGrams),
    iaucPer10gCarbs: perTenGrams(r.iauc2hMgDlMin, meal.carbsGrams),
    flags: r.flags
  }, true)
}

/** A group's figures over the meals of its statistics (at least two). */
const groupOf = (key: string, meals: ReadonlyArray<ComparedMeal>): MealGroup => {
  const used = meals.filter((m) => m.inStatistics)
  const of = (pick: (m: ComparedMeal) => number, decimals: number) => statOf(used.map(pick), decimals)
  const carbsKnown = used.filter((m) => m.carbsGrams !== null).length
  const everyPerCarb = used.every((m) => m.risePer10gCarbs !== null)
  return new MealGroup({
    key,
    label: meals[meals.length - 1]!.title,
    n: used.length,
    movingBaselineMeals: meals.length - used.length,
    carbsKnown,
    riseMgDl: of((m) => m.riseMgDl, 1),
    iauc2hMgDlMin: of((m) => m.iauc2hMgDlMin, 0),
    change1hMgDl: of((m) => m.change1hMgDl, 1),
    change2hMgDl: of((m) => m.change2hMgDl, 1),
    minutesAbove140: of((m) => m.minutesAbove140, 0),
    timeToPeakMinutes: of((m) => m.timeToPeakMinutes, 0),
    carbsGrams: carbsKnown === used.length ? of((m) => m.carbsGrams!, 1) : null,
    risePer10gCarbs: everyPerCarb ? of((m) => m.risePer10gCarbs!, 1) : null,
    iaucPer10gCarbs: everyPerCarb ? of((m) => m.iaucPer10gCarbs!, 1) : null,
    meals
  }, true)
}

/**
 * The groups of `meals` (sorted by time) with at least `minGroupSize` meals in their statistics, largest first,
 * then by key; and the counts of the answer.
 */
export const compareMeals = (meals: ReadonlyArray<MealInput>, minGroupSize: number) => {
  const byKey = new Map<string, Array<ComparedMeal>>()
  let completeResponses = 0
  for (const meal of meals) {
    if (!isComplete(meal.response)) continue
    completeResponses++
    if (meal.key === null) continue
    const list = byKey.get(meal.key)
    if (list === undefined) byKey.set(meal.key, [comparedMeal(meal, meal.response)])
    else list.push(comparedMeal(meal, meal.response))
  }
  const groups: Array<MealGroup> = []
  for (const [key, list] of byKey) {
    if (list.filter((m) => m.inStatistics).length >= minGroupSize) groups.push(groupOf(key, list))
  }
  groups.sort((a, b) => b.n - a.n || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return {
    entries: meals.length,
    completeResponses,
    inGroups: groups.reduce((sum, g) => sum + g.n, 0),
    groups
  }
}
