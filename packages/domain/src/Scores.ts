/**
 * Health scores (endpoints 21-22) of the authenticated user.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import { DateRange, LocalDate } from "./Common.js"
import { BadRequest } from "./Errors.js"

const score = Schema.NullOr(Schema.Number)

export class DailyScore extends Schema.Class<DailyScore>("DailyScore")({
  date: LocalDate,
  sleepScore: score,
  activityScore: score,
  recoveryScore: score,
  overallScore: score,
  components: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "The factor breakdown of each score"
  })
}) {}

export class WeeklyScore extends Schema.Class<WeeklyScore>("WeeklyScore")({
  weekStartDate: LocalDate,
  sleepScore: score,
  activityScore: score,
  recoveryScore: score,
  overallScore: score,
  daysWithData: Schema.Int
}) {}

export class ScoresGroup extends HttpApiGroup.make("scores")
  .add(
    HttpApiEndpoint.get("daily", "/api/v1/scores/daily")
      .setUrlParams(DateRange)
      .addSuccess(Schema.Array(DailyScore))
      .annotate(OpenApi.Summary, "Daily scores, most recent first")
  )
  .add(
    HttpApiEndpoint.get("weekly", "/api/v1/scores/weekly")
      .setUrlParams(DateRange)
      .addSuccess(Schema.Array(WeeklyScore))
      .annotate(OpenApi.Summary, "Weekly scores over ISO weeks, most recent first")
  )
  .addError(BadRequest)
  .middleware(UserTokenAuth)
  .annotate(OpenApi.Title, "Scores")
  .annotate(OpenApi.Description, "Daily and weekly health scores of the authenticated user")
{}
