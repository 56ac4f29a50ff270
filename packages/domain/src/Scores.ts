/**
 * Health scores (endpoints 21-22) of the authenticated user, and the factor breakdown each
 * daily score carries in `components`.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import { DateRange, LocalDate, Provider } from "./Common.js"
import { BadRequest } from "./Errors.js"
import { dailyScoreExample } from "./ScoresExample.js"

/**
 * The range of the weekly scores: its ISO weeks run Monday to Sunday, so `to` must fall in a week
 * that ends by 9999-12-31, the last day a calendar date can carry (9999-12-31 is a Friday).
 */
export const LastWeeklyDate = "9999-12-26"

const WeeklyRange = DateRange.pipe(
  Schema.filter((r) =>
    r.to <= LastWeeklyDate || `\`to\` must be on or before ${LastWeeklyDate}: the week of a later day runs past ` +
      "9999-12-31"
  )
).annotations({
  description: "`from`/`to` inclusive, at most 366 days; `to` at most 9999-12-26 (the last ISO week that ends by " +
    "9999-12-31)"
})

const score = Schema.NullOr(Schema.Number).annotations({
  description: "0-100, or null when there is not enough data for it"
})

export const ScoreFactorKey = Schema.Literal(
  "duration",
  "efficiency",
  "continuity",
  "latency",
  "deepSleep",
  "remSleep",
  "regularity",
  "timing",
  "caffeine",
  "lateMeal",
  "hrv",
  "restingHeartRate",
  "lastNightSleep",
  "sleepDebt",
  "respiratoryRate",
  "skinTemperature",
  "spo2",
  "trainingLoad",
  "steps",
  "activeMinutes",
  "sedentaryTime",
  "hourlyMovement",
  "trainingBalance",
  "activeCalories"
).annotations({
  identifier: "ScoreFactorKey",
  description: "Which measurement a factor scores. The sleep score's `caffeine` (mg still active at sleep onset) " +
    "and `lateMeal` (hours from the last meal to sleep onset) are read from the journal and appear only when it " +
    "has entries for them in the 24 h before the night's main sleep"
})
export type ScoreFactorKey = typeof ScoreFactorKey.Type

export const ScoreFactorState = Schema.Literal("scored", "unavailable", "calibrating").annotations({
  identifier: "ScoreFactorState",
  description: "scored: counts in the score; unavailable: no data for it, its weight goes to the other " +
    "factors; calibrating: measured, but the personal baseline needs 14 valid nights first"
})
export type ScoreFactorState = typeof ScoreFactorState.Type

export const ScoreReference = Schema.Struct({
  kind: Schema.Literal("target", "range", "baseline").annotations({
    description: "target: a fixed goal; range: a fixed healthy range; baseline: the user's own 60-day normal"
  }),
  value: Schema.optional(Schema.Number).annotations({ description: "The goal, or the baseline mean" }),
  low: Schema.optional(Schema.Number).annotations({ description: "Lower end of the range or of the normal band" }),
  high: Schema.optional(Schema.Number).annotations({ description: "Upper end of the range or of the normal band" }),
  days: Schema.optional(Schema.Int).annotations({ description: "Baseline: valid nights (or days) it was built from" })
}).annotations({ identifier: "ScoreReference", description: "What a factor's value is compared with" })
export type ScoreReference = typeof ScoreReference.Type

export const ScoreFactor = Schema.Struct({
  key: ScoreFactorKey,
  value: Schema.NullOr(Schema.Number).annotations({ description: "The measured value, in `unit`" }),
  unit: Schema.String,
  reference: Schema.NullOr(ScoreReference),
  subScore: Schema.NullOr(Schema.Number).annotations({ description: "0-100 from the factor's curve" }),
  weight: Schema.Number.annotations({ description: "Nominal weight within its score" }),
  effectiveWeight: Schema.Number.annotations({
    description: "Weight after the unavailable and calibrating factors were dropped (0 for those). The sleep " +
      "score's `caffeine` and `lateMeal` only take points off: their effective weight is their weight, and the " +
      "other factors are not renormalised for them"
  }),
  pointsLost: Schema.Number.annotations({
    description: "effectiveWeight x (100 - subScore): how many points of the score this factor cost"
  }),
  state: ScoreFactorState,
  source: Schema.NullOr(Provider).annotations({
    description: "The provider whose data was used; null for a factor read from the journal"
  })
}).annotations({ identifier: "ScoreFactor", description: "One measurement's contribution to a score" })
export type ScoreFactor = typeof ScoreFactor.Type

export const ScoreFlag = Schema.Literal("possibleIllnessSignal", "hrvUnusuallyHigh").annotations({
  identifier: "ScoreFlag",
  description: "possibleIllnessSignal: skin temperature +1.0 °C and respiratory rate +2 br/min over baseline, " +
    "recovery capped at 33; hrvUnusuallyHigh: HRV more than 2 SD over baseline, not rewarded further"
})
export type ScoreFlag = typeof ScoreFlag.Type

export const PillarBreakdown = Schema.Struct({
  score,
  coverage: Schema.Number.annotations({ description: "Share (0-1) of the factor weight that was scored" }),
  calibrating: Schema.Boolean.annotations({ description: "True while a baseline factor is still calibrating" }),
  flags: Schema.Array(ScoreFlag),
  factors: Schema.Array(ScoreFactor)
}).annotations({
  identifier: "PillarBreakdown",
  description: "A pillar score (sleep, recovery or activity) and its factors; null under 60% coverage"
})
export type PillarBreakdown = typeof PillarBreakdown.Type

export const PillarKey = Schema.Literal("sleep", "recovery", "activity").annotations({ identifier: "PillarKey" })
export type PillarKey = typeof PillarKey.Type

export const PillarContribution = Schema.Struct({
  key: PillarKey,
  score,
  weight: Schema.Number.annotations({ description: "Nominal weight in the overall score" }),
  effectiveWeight: Schema.Number.annotations({ description: "Weight over the available pillars (0 when null)" }),
  pointsLost: Schema.Number.annotations({ description: "effectiveWeight x (100 - score)" })
}).annotations({ identifier: "PillarContribution", description: "One pillar's part in the overall score" })
export type PillarContribution = typeof PillarContribution.Type

export const OverallBreakdown = Schema.Struct({
  score,
  pillars: Schema.Array(PillarContribution)
}).annotations({
  identifier: "OverallBreakdown",
  description: "Sleep 0.35, recovery 0.35, activity 0.30 over the available pillars; null with fewer than 2"
})
export type OverallBreakdown = typeof OverallBreakdown.Type

export const ScoreComponents = Schema.Struct({
  sleep: PillarBreakdown,
  activity: PillarBreakdown,
  recovery: PillarBreakdown,
  overall: OverallBreakdown,
  algorithmVersion: Schema.String
}).annotations({ identifier: "ScoreComponents", description: "The factor breakdown of each score" })
export type ScoreComponents = typeof ScoreComponents.Type

export class DailyScore extends Schema.Class<DailyScore>("DailyScore")({
  date: LocalDate,
  sleepScore: score,
  activityScore: score,
  recoveryScore: score,
  overallScore: score,
  components: ScoreComponents
}, { description: "The scores of one local day" }) {}

/** The daily-scores response with a worked example for the API reference. */
const DailyScores = Schema.Array(DailyScore).annotations({ examples: [[new DailyScore(dailyScoreExample)]] })

export class WeeklyScore extends Schema.Class<WeeklyScore>("WeeklyScore")({
  weekStartDate: LocalDate.annotations({ description: "The Monday of the ISO week" }),
  sleepScore: score,
  activityScore: score,
  recoveryScore: score,
  overallScore: score,
  daysWithData: Schema.Int.annotations({ description: "Days of the week with at least one score" })
}, { description: "Means of the daily scores of one ISO week; a pillar needs 4 of 7 days" }) {}

export class ScoresGroup extends HttpApiGroup.make("scores")
  .add(
    HttpApiEndpoint.get("daily", "/api/v1/scores/daily")
      .setUrlParams(DateRange)
      .addSuccess(DailyScores)
      .annotate(OpenApi.Summary, "Daily scores, most recent first")
  )
  .add(
    HttpApiEndpoint.get("weekly", "/api/v1/scores/weekly")
      .setUrlParams(WeeklyRange)
      .addSuccess(Schema.Array(WeeklyScore))
      .annotate(OpenApi.Summary, "Weekly scores over ISO weeks, most recent first")
      .annotate(
        OpenApi.Description,
        "`from`/`to` inclusive, at most 366 days. `to` may be at most 9999-12-26: the ISO week of a later day runs " +
          "past 9999-12-31, the last calendar date (400)."
      )
  )
  .addError(BadRequest)
  .middleware(UserTokenAuth)
  .annotate(OpenApi.Title, "Scores")
  .annotate(OpenApi.Description, "Daily and weekly health scores of the authenticated user")
{}
