/** The users of an app and a user's page: its connections, charts, journal, export and erasure. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  BadRequest,
  BodyMeasurement,
  Conflict,
  Connection,
  ConnectionId,
  DailyActivitySummary,
  DailyLoadSummary,
  DailyScore,
  ErasureAccepted,
  ExternalUserId,
  GlucoseConnectionSummary,
  JournalEntryId,
  LocalDate,
  NotFound,
  Provider,
  Recovery,
  ResyncAccepted,
  SleepSession,
  Timestamp,
  User,
  UserId,
  Workout
} from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { AppPath } from "./Apps.js"
import { PageCursor, PageLimit } from "./Paging.js"
import { PortalAuth } from "./Session.js"

export class UserSummary extends Schema.Class<UserSummary>("UserSummary")({
  id: UserId,
  externalUserId: Schema.String,
  status: Schema.String,
  createdAt: Timestamp,
  connections: Schema.Array(Schema.Struct({ provider: Provider, status: Schema.String, syncState: Schema.String }))
}) {}

export class UserPage extends Schema.Class<UserPage>("UserPage")({
  data: Schema.Array(UserSummary),
  nextCursor: Schema.NullOr(Schema.String)
}) {}

export class UserDetail extends Schema.Class<UserDetail>("UserDetail")({
  user: User,
  connections: Schema.Array(Connection)
}) {}

/** A journal entry as the user page lists it: enough to mark it on the glucose chart and show its photo. */
export class JournalMark extends Schema.Class<JournalMark>("JournalMark")({
  id: JournalEntryId,
  kind: Schema.String,
  title: Schema.NullOr(Schema.String),
  consumedAtUtc: Timestamp,
  localDate: LocalDate,
  analysisStatus: Schema.NullOr(Schema.String),
  energyKcal: Schema.NullOr(Schema.Number),
  imageUrl: Schema.NullOr(Schema.String).annotations({ description: "The portal URL of the entry's photo" })
}) {}

/**
 * A point of the glucose chart: the mean of a connection's readings in one bucket of
 * `UserOverview.glucoseBucketMinutes` minutes (by system time), so a year stays a chartable size.
 */
export class GlucosePoint extends Schema.Class<GlucosePoint>("GlucosePoint")({
  connectionId: ConnectionId,
  provider: Provider,
  time: Timestamp.annotations({ description: "Start of the bucket" }),
  value: Schema.Number.annotations({ description: "Mean of the bucket's readings, in `unit`" }),
  unit: Schema.String,
  readings: Schema.Int.annotations({ description: "How many readings the mean is of" })
}) {}

/** The glucose target band of the user page: time in range counts the readings within it, bounds included. */
export const GlucoseTargetRange = Schema.Struct({ lowMgDl: Schema.Number, highMgDl: Schema.Number })

/**
 * Everything the user page charts, for `days` days ending today in the user's time zone, or for the days
 * `from` to `to`. Each record keeps its connection and provider: the page draws one series per provider.
 */
export class UserOverview extends Schema.Class<UserOverview>("UserOverview")({
  from: LocalDate,
  to: LocalDate,
  days: Schema.Int.annotations({ description: "Days from `from` to `to`, both included" }),
  timezone: Schema.String,
  dailyActivity: Schema.Array(DailyActivitySummary),
  dailyLoad: Schema.Array(DailyLoadSummary),
  sleep: Schema.Array(SleepSession),
  workouts: Schema.Array(Workout),
  recovery: Schema.Array(Recovery),
  body: Schema.Array(BodyMeasurement),
  glucoseBucketMinutes: Schema.Int.annotations({
    description: "5 up to 14 days (each reading of a 5-minute CGM), 15 up to 92 days, 60 beyond"
  }),
  glucose: Schema.Array(GlucosePoint),
  glucoseTarget: GlucoseTargetRange.annotations({
    description: "The target band, in mg/dL (70-180, the international consensus range)"
  }),
  glucoseSummaries: Schema.Array(GlucoseConnectionSummary).annotations({
    description: "Per connection over the range: mean, extremes and time below, in and above the target band " +
      "(as the MCP glucose tool computes them)"
  }),
  meals: Schema.Array(JournalMark),
  scores: Schema.Array(DailyScore).annotations({
    description: "With their factor breakdown, as the scores endpoint answers them"
  })
}) {}

export const OverviewDays = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 366))

/** The user page's range: `days` ending today, or `from` and `to` (both, at most 366 days); neither: 14 days. */
export const OverviewRange = Schema.Struct({
  days: Schema.optional(OverviewDays),
  from: Schema.optional(LocalDate),
  to: Schema.optional(LocalDate)
})

/** Erasure from the portal is confirmed by typing the user's external id. */
export class ErasePayload extends Schema.Class<ErasePayload>("ErasePayload")({
  confirmExternalUserId: ExternalUserId
}) {}

/** The path of one user, which the user page and the sandbox page start from. */
export const UserPath = Schema.Struct({ userId: UserId })

export class UsersGroup extends HttpApiGroup.make("portalUsers")
  .add(
    HttpApiEndpoint.get("list", "/portal/api/apps/:appId/users")
      .setPath(AppPath)
      .setUrlParams(Schema.Struct({
        search: Schema.optional(Schema.String.pipe(Schema.maxLength(255))),
        cursor: Schema.optional(PageCursor),
        limit: Schema.optional(PageLimit)
      }))
      .addSuccess(UserPage)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("get", "/portal/api/users/:userId").setPath(UserPath).addSuccess(UserDetail).addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("overview", "/portal/api/users/:userId/overview")
      .setPath(UserPath)
      .setUrlParams(OverviewRange)
      .addSuccess(UserOverview)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("journal", "/portal/api/users/:userId/journal")
      .setPath(UserPath)
      .setUrlParams(Schema.Struct({ from: Schema.optional(LocalDate), to: Schema.optional(LocalDate) }))
      .addSuccess(Schema.Struct({ data: Schema.Array(JournalMark) }))
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("photo", "/portal/api/users/:userId/journal/:entryId/photo")
      .setPath(Schema.Struct({ userId: UserId, entryId: JournalEntryId }))
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/*" }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("resync", "/portal/api/users/:userId/connections/:connectionId/sync")
      .setPath(Schema.Struct({ userId: UserId, connectionId: ConnectionId }))
      .addSuccess(ResyncAccepted, { status: 202 })
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.get("export", "/portal/api/users/:userId/export")
      .setPath(UserPath)
      .addSuccess(HttpApiSchema.Text({ contentType: "application/x-ndjson" }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("erase", "/portal/api/users/:userId/erase")
      .setPath(UserPath)
      .setPayload(ErasePayload)
      .addSuccess(ErasureAccepted, { status: 202 })
      .addError(NotFound)
      .addError(BadRequest)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
