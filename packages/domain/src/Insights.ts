/**
 * Insights drawn from several kinds of a user's data. The meal responses: the glucose response to each
 * meal, drink and coffee of a range of journal dates, with the entry's title and nutrients. The meal
 * comparisons: those responses grouped by what was eaten (`MealComparison.ts`).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import { DateRange, JournalEntryId, LocalDate, Timestamp, UserId } from "./Common.js"
import { BadRequest, Forbidden } from "./Errors.js"
import { GlucoseResponse } from "./GlucoseResponse.js"
import { EntryKind, Nutrients } from "./Journal.js"
import { MealComparison, MealComparisonMaxEntries, MealComparisonQuery } from "./MealComparison.js"

export class MealResponse extends Schema.Class<MealResponse>("MealResponse")({
  entryId: JournalEntryId,
  entryKind: EntryKind,
  title: Schema.String,
  consumedAtUtc: Timestamp,
  journalDate: LocalDate,
  timezone: Schema.String,
  nutrients: Nutrients,
  glucoseResponse: GlucoseResponse
}, { description: "A journal entry and the glucose response to it" }) {}

export class InsightsGroup extends HttpApiGroup.make("insights")
  .add(
    HttpApiEndpoint.get("mealResponses", "/api/v1/users/:userId/insights/meal-responses")
      .setPath(Schema.Struct({ userId: UserId }))
      .setUrlParams(DateRange)
      .addSuccess(Schema.Array(MealResponse))
      .annotate(OpenApi.Summary, "Glucose responses to the meals, drinks and coffees of a range of journal dates")
      .annotate(
        OpenApi.Description,
        "`from`/`to` are journal dates, inclusive, at most 366 days. Each Meal, Drink or Coffee entry whose time " +
          "lies within the user's glucose readings (a reading from 30 minutes before to 3 hours after it, or a " +
          "glucose connection whose data may still arrive), sorted by journal date then time. Computed from the " +
          "readings at each read, so data that lands late is taken into account: a response is `Pending` until " +
          "the 3 hours after the entry are read. Water entries and entries without glucose data around them are " +
          "left out."
      )
  )
  .add(
    HttpApiEndpoint.get("mealComparisons", "/api/v1/users/:userId/meal-comparisons")
      .setPath(Schema.Struct({ userId: UserId }))
      .setUrlParams(MealComparisonQuery)
      .addSuccess(MealComparison)
      .annotate(OpenApi.Summary, "Repeated meals compared: glucose responses grouped by what was eaten")
      .annotate(
        OpenApi.Description,
        "`from`/`to` are journal dates, inclusive, at most 366 days. The Meal, Drink and Coffee entries of the " +
          "range are grouped by what was eaten (the entry's item names, or its title without items, normalised); " +
          "each group with at least `minGroupSize` meals (default 2) whose glucose response is Complete and whose " +
          "baseline was steady is answered with n, and for each figure (rise, incremental area over 2 hours, " +
          "change at 1 and 2 hours, minutes above 140 mg/dL, time to peak, and per 10 g of carbohydrate where " +
          "every meal's carbohydrate is known) the mean, sample standard deviation, lowest and highest. A meal " +
          "whose baseline still moved more than 1 mg/dL a minute is listed, marked, and left out of the figures. " +
          `A range holding more than ${MealComparisonMaxEntries} meals, drinks and coffees is a 400: narrow it. ` +
          "Computed from the readings at each read; the answer carries a weak `ETag` (a digest of the answer: " +
          "304 on `If-None-Match` while it is unchanged) and is compressed when large."
      )
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(UserTokenAuth)
  .annotate(OpenApi.Title, "Insights")
  .annotate(OpenApi.Description, "What the user's data says together, with a user token")
{}
