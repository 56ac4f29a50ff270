/**
 * Meals compared: a user's meals grouped by what was eaten, and each group's glucose responses as n, mean and
 * spread, so that a repeated meal is judged by several responses rather than one (a single response is noisy).
 * Served by the meal-comparisons range read (`Insights.ts`) and the MCP tool `compare_meals`; the method is
 * described in `docs/insights.md`.
 */
import * as Schema from "effect/Schema"
import { checkDateRange, JournalEntryId, LocalDate, MaxRangeDays, Timestamp } from "./Common.js"
import { GlucoseResponseFlag } from "./GlucoseResponse.js"
import { EntryKind } from "./Journal.js"
import { mcpFormatField } from "./Mcp.js"

/** The most meals, drinks and coffees one comparison considers: a range holding more is refused. */
export const MealComparisonMaxEntries = 2000
/** The default and the bounds of the smallest group answered. */
export const MealComparisonMinGroupSize = { default: 2, min: 2, max: 50 } as const
/** The level whose time above is counted, mg/dL. */
export const MealComparisonAboveMgDl = 140
/** A baseline whose readings still moved faster than this (either way), mg/dL per minute, is a moving baseline. */
export const MovingBaselineMgDlPerMin = 1
/** The fewest grams of carbohydrate a meal's per-carbohydrate figures are worked out for. */
export const MinCarbsGramsPerCarbFigures = 10

const groupSizeText = `at least ${MealComparisonMinGroupSize.min} and at most ${MealComparisonMinGroupSize.max}`

const minGroupSizeDescription = `The fewest meals (in the statistics) a group must have to be answered: a whole ` +
  `number, ${groupSizeText}; default ${MealComparisonMinGroupSize.default}`

/** The query of the REST read: the date range and optionally the smallest group. */
export const MealComparisonQuery = Schema.Struct({
  from: LocalDate.annotations({ description: "First journal date, inclusive (YYYY-MM-DD)" }),
  to: LocalDate.annotations({ description: `Last journal date, inclusive (YYYY-MM-DD); at most ${MaxRangeDays} days` }),
  minGroupSize: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[0-9]{1,2}$/, { message: () => `expected a whole number, ${groupSizeText}` }),
      Schema.compose(Schema.NumberFromString),
      Schema.compose(Schema.Int),
      Schema.between(MealComparisonMinGroupSize.min, MealComparisonMinGroupSize.max, {
        message: () => `expected a whole number, ${groupSizeText}`
      })
    ).annotations({ description: minGroupSizeDescription })
  )
}).pipe(Schema.filter(checkDateRange(MaxRangeDays)))

const dayInput = (description: string) =>
  LocalDate.annotations({ description, jsonSchema: { type: "string", format: "date", description } })

/**
 * The input of the MCP tool `compare_meals`: the same as the REST read's query, `minGroupSize` a number, and the
 * `format` every tool takes.
 */
export const McpCompareMealsInput = Schema.Struct({
  ...mcpFormatField,
  from: dayInput("First journal date, inclusive (YYYY-MM-DD)"),
  to: dayInput(`Last journal date, inclusive (YYYY-MM-DD); the range may cover at most ${MaxRangeDays} days`),
  minGroupSize: Schema.optional(
    Schema.Int.pipe(
      Schema.between(MealComparisonMinGroupSize.min, MealComparisonMinGroupSize.max, {
        message: () => `expected a whole number, ${groupSizeText}`
      })
    ).annotations({
      description: minGroupSizeDescription,
      // Plain, without the refinement's definitions: what an assistant reads.
      jsonSchema: {
        type: "integer",
        minimum: MealComparisonMinGroupSize.min,
        maximum: MealComparisonMinGroupSize.max,
        description: minGroupSizeDescription
      }
    })
  )
}).pipe(Schema.filter(checkDateRange(MaxRangeDays)))

export class MealComparisonStat extends Schema.Class<MealComparisonStat>("MealComparisonStat")({
  mean: Schema.Number,
  sd: Schema.Number.annotations({ description: "Sample standard deviation (divided by n - 1)" }),
  min: Schema.Number,
  max: Schema.Number
}, {
  description: "A figure over the meals of a group's statistics: mean, sample standard deviation, lowest and " +
    "highest. mg/dL and per-carbohydrate figures to one decimal, areas and minutes whole"
}) {}

const figure = (description: string) => Schema.Number.annotations({ description })
const perCarb = (description: string) => Schema.NullOr(Schema.Number).annotations({ description })

export class ComparedMeal extends Schema.Class<ComparedMeal>("ComparedMeal")({
  entryId: JournalEntryId,
  entryKind: EntryKind,
  title: Schema.String,
  consumedAtUtc: Timestamp,
  journalDate: LocalDate,
  carbsGrams: Schema.NullOr(Schema.Number).annotations({ description: "The entry's carbohydrate; null when unknown" }),
  inStatistics: Schema.Boolean.annotations({
    description: "false for a meal with a moving baseline: listed, but left out of the group's n and figures"
  }),
  movingBaseline: Schema.Boolean.annotations({
    description: `The baseline's readings still moved more than ${MovingBaselineMgDlPerMin} mg/dL a minute`
  }),
  baselineMgDl: figure("Mean of the readings of the 30 minutes before the entry"),
  baselineSlopeMgDlPerMin: figure("Least-squares slope of the baseline's readings, mg/dL per minute"),
  riseMgDl: figure("Peak within 3 hours minus baseline"),
  iauc2hMgDlMin: figure("Incremental area under the curve over 2 hours, mg/dL x min"),
  change1hMgDl: figure("Glucose 60 minutes after the entry minus the baseline"),
  change2hMgDl: figure("Glucose 120 minutes after the entry minus the baseline"),
  minutesAbove140: figure(`Minutes above ${MealComparisonAboveMgDl} mg/dL within 3 hours after the entry`),
  timeToPeakMinutes: figure("From the entry to the peak"),
  risePer10gCarbs: perCarb(
    `Rise per 10 g of carbohydrate; null below ${MinCarbsGramsPerCarbFigures} g or unknown carbohydrate`
  ),
  iaucPer10gCarbs: perCarb(
    `Incremental area per 10 g of carbohydrate; null below ${MinCarbsGramsPerCarbFigures} g or unknown carbohydrate`
  ),
  flags: Schema.Array(GlucoseResponseFlag).annotations({ description: "The flags of the meal's glucose response" })
}, { description: "One meal of a group, with the figures of its glucose response (mg/dL, minutes)" }) {}

const stat = (description: string) => MealComparisonStat.annotations({ description })
const carbStat = (description: string) => Schema.NullOr(MealComparisonStat).annotations({ description })

export class MealGroup extends Schema.Class<MealGroup>("MealGroup")({
  key: Schema.String.annotations({
    description: "What was eaten, normalised: the entry's item names (or, without items, its title) in lower " +
      "case, without accents or punctuation, sorted and joined with ' + '"
  }),
  label: Schema.String.annotations({ description: "The title of the group's latest meal" }),
  n: Schema.Int.annotations({ description: "Meals in the statistics" }),
  movingBaselineMeals: Schema.Int.annotations({ description: "Meals listed but left out for a moving baseline" }),
  carbsKnown: Schema.Int.annotations({ description: "Meals of the statistics whose carbohydrate is known" }),
  riseMgDl: stat("Peak minus baseline"),
  iauc2hMgDlMin: stat("Incremental area under the curve over 2 hours, mg/dL x min"),
  change1hMgDl: stat("Glucose at 1 hour minus the baseline"),
  change2hMgDl: stat("Glucose at 2 hours minus the baseline"),
  minutesAbove140: stat(`Minutes above ${MealComparisonAboveMgDl} mg/dL within 3 hours`),
  timeToPeakMinutes: stat("From the entry to the peak"),
  carbsGrams: carbStat("The meals' carbohydrate; null unless every meal of the statistics has it"),
  risePer10gCarbs: carbStat(
    `Rise per 10 g of carbohydrate; null unless every meal of the statistics has at least ` +
      `${MinCarbsGramsPerCarbFigures} g`
  ),
  iaucPer10gCarbs: carbStat(
    `Incremental area per 10 g of carbohydrate; null unless every meal of the statistics has at least ` +
      `${MinCarbsGramsPerCarbFigures} g`
  ),
  meals: Schema.Array(ComparedMeal).annotations({ description: "The group's meals with a response, oldest first" })
}, { description: "Meals of the same food and their glucose responses compared" }) {}

export class MealComparison extends Schema.Class<MealComparison>("MealComparison")({
  from: LocalDate,
  to: LocalDate,
  minGroupSize: Schema.Int,
  unit: Schema.Literal("mg/dL"),
  aboveMgDl: Schema.Number.annotations({ description: "The level of `minutesAbove140`" }),
  movingBaselineMgDlPerMin: Schema.Number.annotations({
    description: "A baseline whose slope is steeper than this, either way, is moving"
  }),
  entries: Schema.Int.annotations({ description: "Meals, drinks and coffees of the range" }),
  completeResponses: Schema.Int.annotations({ description: "Of them, those with a Complete glucose response" }),
  inGroups: Schema.Int.annotations({ description: "Meals in the statistics of the answered groups" }),
  groups: Schema.Array(MealGroup).annotations({
    description: "Groups of at least `minGroupSize` meals in their statistics, largest first, then by key"
  })
}, {
  description: "A user's meals, drinks and coffees of a range of journal dates, grouped by what was eaten, with " +
    "each group's glucose responses compared. These figures describe how glucose changed; they are not a medical " +
    "assessment"
}) {}
