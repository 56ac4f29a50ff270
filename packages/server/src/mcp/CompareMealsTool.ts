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
    "`minGroupSize` (2-50).",
  input: McpCompareMealsInput,
  output: CompareMealsOutput,
  run: (user: typeof CurrentUser.Service, input: typeof McpCompareMealsInput.Type) =>
    Effect.map(
      comparisons.range(user.userId, input),
      (comparison: MealComparison) => ({ ...comparison, groupsLeftOut: 0 })
    ),
  bound: boundGroups(McpMaxAnswerChars)
}))
