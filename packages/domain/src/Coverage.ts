/**
 * Data coverage: for each day of a range, which of the user's data types are in (daily activity,
 * daily load, sleep, recovery, workouts, body measurements, glucose, journal), from which provider, whether complete, partial,
 * missing or still pending, and for each score of the day the reason it is null when it is.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import { checkDateRange, ConnectionId, LocalDate, Provider, TimeZone, UserId } from "./Common.js"
import { BadRequest, Forbidden } from "./Errors.js"
import { ScoreFactorKey } from "./Scores.js"

/** The longest coverage range, in days: a quarter, the span an app looks back over to explain gaps. */
export const MaxCoverageDays = 92

export const CoverageRange = Schema.Struct({
  from: LocalDate.annotations({ description: "First day, inclusive (YYYY-MM-DD)" }),
  to: LocalDate.annotations({
    description: `Last day, inclusive (YYYY-MM-DD): at most ${MaxCoverageDays} days after from, and not after the ` +
      "user's today"
  })
}).pipe(Schema.filter(checkDateRange(MaxCoverageDays))).annotations({
  description: `\`from\`/\`to\` inclusive, at most ${MaxCoverageDays} days`
})

export const CoverageStatus = Schema.Literal("complete", "partial", "missing", "pending").annotations({
  identifier: "CoverageStatus",
  description: "complete: the day's data is in; partial: some of it is in (the day is still running, or the " +
    "provider sent part of the day); missing: none is in and none is expected any more (or nothing connected " +
    "supplies it); pending: none is in yet, but it may still come (the day is within the provider's delay, or " +
    "the sync has not reached it)"
})
export type CoverageStatus = typeof CoverageStatus.Type

export const CoverageReason = Schema.Literal(
  "notConnected",
  "noData",
  "dayInProgress",
  "awaitingProvider",
  "syncing",
  "syncStopped",
  "incomplete",
  "analysisPending"
).annotations({
  identifier: "CoverageReason",
  description: "Why a data type is not complete. notConnected: no connection to a provider that supplies it; " +
    "noData: the provider sent nothing for the day; dayInProgress: the day is today; awaitingProvider: the day " +
    "ended less than the provider's delay ago (Dexcom 3 h, the wearables 12 h); syncing: the connection has not " +
    "read the day yet (first sync or backfill under way); syncStopped: the connection waits for " +
    "reauthorization or its user is inactive, so nothing more comes; incomplete: the provider sent part of the " +
    "day (a partial upload, readings for under 90% of the day, a record it did not score); analysisPending: a " +
    "scanned meal of the day is still being analysed"
})
export type CoverageReason = typeof CoverageReason.Type

export class CoverageSource extends Schema.Class<CoverageSource>("CoverageSource")({
  connectionId: ConnectionId,
  provider: Provider,
  status: CoverageStatus,
  reason: Schema.NullOr(CoverageReason).annotations({ description: "Null when complete" }),
  dayFraction: Schema.NullOr(Schema.Number).annotations({
    description: "The share (0-1) of the day the provider's data covers, where it says: the span of a Garmin " +
      "daily upload, the 5-minute slots of the day with a glucose reading; null otherwise"
  })
}, { description: "One connection that supplies a data type, and what it holds of the day" }) {}

export class DataTypeCoverage extends Schema.Class<DataTypeCoverage>("DataTypeCoverage")({
  status: CoverageStatus,
  reason: Schema.NullOr(CoverageReason).annotations({ description: "Null when complete" }),
  provider: Schema.NullOr(Provider).annotations({
    description: "The provider whose data the day has (the source with the best status; on a tie, the one the " +
      "scores prefer); null for the journal, which the app keeps, and when no connection supplies the type"
  }),
  connectionId: Schema.NullOr(ConnectionId).annotations({ description: "The connection of `provider`" }),
  sources: Schema.Array(CoverageSource).annotations({
    description: "Every connection (not disconnected) whose provider supplies the type; empty for the journal"
  })
}, { description: "What a day holds of one data type" }) {}

export class DayDataCoverage extends Schema.Class<DayDataCoverage>("DayDataCoverage")({
  dailyActivity: DataTypeCoverage,
  dailyLoad: DataTypeCoverage,
  sleep: DataTypeCoverage,
  recovery: DataTypeCoverage,
  workouts: DataTypeCoverage.annotations({
    description: "Workouts: complete when the day has one; a day without a workout is `missing` with `noData` " +
      "once the provider's delay has passed (not every day has a workout)"
  }),
  body: DataTypeCoverage.annotations({
    description: "Body measurements: complete when the day has one (a scale is not used every day, so `missing` " +
      "is usual)"
  }),
  glucose: DataTypeCoverage,
  journal: DataTypeCoverage
}, { description: "The day's data, by type" }) {}

export const ScoreNullReason = Schema.Literal(
  "noData",
  "awaitingData",
  "calibrating",
  "lowCoverage",
  "fewerThanTwoPillars"
).annotations({
  identifier: "ScoreNullReason",
  description: "Why a score of the day is null. noData: the day has no data of its own for it; awaitingData: " +
    "its data may still arrive (the day's sleep, recovery or daily activity is pending); calibrating: it would " +
    "have enough data, but its personal baselines need 14 valid nights first; lowCoverage: under 60% of its " +
    "weight has data; fewerThanTwoPillars: the overall score needs two of sleep, recovery and activity"
})
export type ScoreNullReason = typeof ScoreNullReason.Type

export const ScoreCoverage = Schema.Struct({
  score: Schema.NullOr(Schema.Number).annotations({ description: "The score (0-100) as the daily scores give it" }),
  nullReason: Schema.NullOr(ScoreNullReason).annotations({ description: "Null when the score is not null" }),
  factors: Schema.Array(ScoreFactorKey).annotations({
    description: "When null for calibrating or lowCoverage: the factors that did not count (calibrating or without " +
      "data); else empty"
  })
}).annotations({ identifier: "ScoreCoverage", description: "A score of the day and why it is null" })
export type ScoreCoverage = typeof ScoreCoverage.Type

export class DayScoresCoverage extends Schema.Class<DayScoresCoverage>("DayScoresCoverage")({
  sleep: ScoreCoverage,
  recovery: ScoreCoverage,
  activity: ScoreCoverage,
  overall: ScoreCoverage
}, { description: "The day's scores (as `GET /api/v1/scores/daily` computes them) and why each null one is null" }) {}

export class CoverageDay extends Schema.Class<CoverageDay>("CoverageDay")({
  date: LocalDate,
  data: DayDataCoverage,
  scores: DayScoresCoverage
}, { description: "One day's data coverage and scores" }) {}

export class Coverage extends Schema.Class<Coverage>("Coverage")({
  from: LocalDate,
  to: LocalDate,
  timezone: TimeZone.annotations({ description: "The user's time zone, in which `today` and the delays are counted" }),
  today: LocalDate.annotations({ description: "The user's today when the coverage was computed" }),
  days: Schema.Array(CoverageDay).annotations({ description: "Every day from `from` to `to`, in order" })
}, { description: "A user's data coverage over a range of days" }) {}

export class CoverageGroup extends HttpApiGroup.make("coverage")
  .add(
    HttpApiEndpoint.get("coverage", "/api/v1/users/:userId/coverage")
      .setPath(Schema.Struct({ userId: UserId }))
      .setUrlParams(CoverageRange)
      .addSuccess(Coverage)
      .annotate(OpenApi.Summary, "Which data each day holds, from which provider, and why a score is null")
      .annotate(
        OpenApi.Description,
        `\`from\`/\`to\` are local dates, inclusive, at most ${MaxCoverageDays} days, \`to\` not after the user's ` +
          "today (a 400 otherwise). For each day and data type (daily activity, daily load, sleep, recovery, " +
          "workouts, body measurements, glucose, journal): the provider that supplies it, `complete`, `partial`, `missing` or `pending` with a " +
          "reason, and each connection's own status; and for each score of the day (sleep, recovery, activity, " +
          "overall) the reason it is null when it is. Computed at each read from the stored data, the " +
          "connections' sync state and each provider's delay."
      )
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(UserTokenAuth)
  .annotate(OpenApi.Title, "Coverage")
  .annotate(OpenApi.Description, "Which of the user's data is in, and what is missing, with a user token")
{}
