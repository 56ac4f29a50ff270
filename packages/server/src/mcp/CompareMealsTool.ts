/**
 * The MCP tool `compare_meals`: the meal comparisons of the REST read (`MealComparisons`), the same numbers in
 * the same shape, plus `groupsLeftOut`. Its answer is not a list of days, so its size bound cuts whole groups
 * from the end (the smallest groups): `groupsLeftOut` says how many, and the REST read serves them all.
 */
import type { CurrentUser, MealComparison } from "@pulsebridge/domain"
import { MaxRangeDays, McpCompareMealsInput, McpMaxAnswerChars } from "@pulsebridge/domain"
import { MealComparison as MealComparisonSchema } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { MealComparisons } from "../insights/MealComparisons.js"
import { formatNote, lines, num, plural, rangeWords, table, text } from "./Compact.js"

export const CompareMealsOutput = Schema.Struct({
  ...MealComparisonSchema.fields,
  groupsLeftOut: Schema.Int.annotations({
    description: "Groups left out at the end (the smallest) to keep the answer within its size bound; 0 when " +
      "every group is in it. A shorter range, or a larger minGroupSize, brings fewer groups"
  })
})
type Encoded = typeof CompareMealsOutput.Encoded

/** `encoded` within `maxChars` characters of JSON: the groups that fit, from the first. */
export const boundGroups = (maxChars: number) => (encoded: Encoded): Encoded => {
  if (JSON.stringify(encoded).length <= maxChars) return encoded
  const groups = encoded.groups
  // The envelope without groups, with the longest count it may carry; a group costs its JSON and a comma.
  let used = JSON.stringify({ ...encoded, groups: [], groupsLeftOut: groups.length }).length
  let kept = 0
  while (kept < groups.length) {
    const size = JSON.stringify(groups[kept]).length + 1
    if (used + size > maxChars) break
    used += size
    kept++
  }
  return { ...encoded, groups: groups.slice(0, kept), groupsLeftOut: groups.length - kept }
}

type Stat = { readonly mean: number; readonly sd: number; readonly min: number; readonly max: number } | null

/** `42 ±9 (30-55)`: mean, standard deviation and range, each rounded to `digits`. */
const spread = (stat: Stat, digits = 0): string =>
  stat === null ?
    "-" :
    `${num(stat.mean, digits)} ±${num(stat.sd, digits)} (${num(stat.min, digits)}..${num(stat.max, digits)})`

/**
 * The compact text: what was compared, then one line per group (n, and each figure as mean ±SD (lowest..highest)),
 * then the meals of every group, one line each. The structured content keeps every figure.
 */
export const renderCompareMeals = (answer: Encoded): string =>
  lines(
    `Meals compared, ${rangeWords(answer.from, answer.to)}: ${answer.entries} meals, drinks and coffees, ` +
      `${answer.completeResponses} with a complete glucose response; ${plural(answer.groups.length, "group")} of ` +
      `at least ${answer.minGroupSize} (${answer.inGroups} meals in their figures)` +
      (answer.groupsLeftOut > 0 ? `; ${answer.groupsLeftOut} smaller groups left out for size` : "") + ".",
    answer.groups.length === 0 ? "" : [
      `Figures are mean ±SD (lowest..highest) over a group's meals, in mg/dL and minutes; iAUC over 2 h in ` +
      `mg/dL·min; per 10 g of carbohydrate only where every meal's carbs are known. A meal whose baseline still ` +
      `moved more than ${answer.movingBaselineMgDlPerMin} mg/dL a minute is listed but left out of the figures.`,
      table([
        { header: "group", cell: (g) => text(g.label, 60) },
        { header: "n", cell: (g) => String(g.n) },
        { header: "moving baseline", cell: (g) => String(g.movingBaselineMeals) },
        { header: "rise", cell: (g) => spread(g.riseMgDl) },
        { header: "change 1h", cell: (g) => spread(g.change1hMgDl) },
        { header: "change 2h", cell: (g) => spread(g.change2hMgDl) },
        { header: `min above ${answer.aboveMgDl}`, cell: (g) => spread(g.minutesAbove140) },
        { header: "iAUC 2h", cell: (g) => spread(g.iauc2hMgDlMin) },
        { header: "carbs g", cell: (g) => spread(g.carbsGrams) },
        { header: "rise per 10 g", cell: (g) => spread(g.risePer10gCarbs, 1) }
      ], answer.groups),
      "Meals:",
      table([
        { header: "group", cell: (m) => text(m.group, 60) },
        { header: "date", cell: (m) => m.meal.journalDate },
        { header: "title", cell: (m) => text(m.meal.title, 60) },
        { header: "carbs g", cell: (m) => num(m.meal.carbsGrams) },
        { header: "baseline", cell: (m) => num(m.meal.baselineMgDl) },
        { header: "rise", cell: (m) => num(m.meal.riseMgDl) },
        { header: "change 1h", cell: (m) => num(m.meal.change1hMgDl) },
        { header: "change 2h", cell: (m) => num(m.meal.change2hMgDl) },
        { header: `min above ${answer.aboveMgDl}`, cell: (m) => num(m.meal.minutesAbove140) },
        { header: "in figures", cell: (m) => (m.meal.inStatistics ? "yes" : "no (moving baseline)") }
      ], answer.groups.flatMap((g) => g.meals.map((meal) => ({ group: g.label, meal }))))
    ]
  )

/** The tool's definition for `Tools.ts`'s `define`, over the service in context. */
export const compareMealsTool = Effect.map(MealComparisons, (comparisons) => ({
  name: "compare_meals",
  title: "Repeated meals compared",
  description: "The user's meals, drinks and coffees grouped by what was eaten (item names, or the title), and " +
    "for each group with at least `minGroupSize` meals (default 2) the glucose responses compared: n, and the " +
    "mean, standard deviation, lowest and highest of the rise, incremental area over 2 h, change at 1 h and 2 h, " +
    "minutes above 140 mg/dL, time to peak, and per 10 g of carbohydrate where every meal's carbs are known; " +
    "each meal listed, a meal whose baseline was still moving marked and left out of the figures. Takes `from` " +
    `and \`to\` (YYYY-MM-DD, inclusive, journal dates), at most ${MaxRangeDays} days, and optionally ` +
    "`minGroupSize` (2-50)." + formatNote,
  input: McpCompareMealsInput,
  output: CompareMealsOutput,
  run: (user: typeof CurrentUser.Service, input: typeof McpCompareMealsInput.Type) =>
    Effect.map(
      comparisons.range(user.userId, input),
      (comparison: MealComparison) => ({ ...comparison, groupsLeftOut: 0 })
    ),
  bound: boundGroups(McpMaxAnswerChars),
  render: renderCompareMeals
}))
