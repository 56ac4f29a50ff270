/**
 * Connections (endpoints 7-15): the hosted connect flow, the user's provider connections,
 * and the canonical health data read from them.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import {
  ConnectionId,
  ContractString,
  LocalDate,
  Provider,
  ProviderDateRange,
  Timestamp,
  UrlString,
  UserId
} from "./Common.js"
import { BadRequest, Forbidden, NotFound, ProviderUnavailable } from "./Errors.js"

export const ConnectionStatus = Schema.Literal("Active", "Reauthorize", "Disconnected").annotations({
  identifier: "ConnectionStatus",
  description: "`Active`; `Reauthorize` when the grant can no longer be used (refused refresh, access " +
    "withdrawn or revoked at the provider, a retired provider API; see `statusReason`): the user must connect " +
    "again; `Disconnected` after DELETE"
})

export const SyncState = Schema.Literal("Pending", "Backfilling", "Idle", "RateLimited", "Error", "Stopped")
  .annotations({
    identifier: "SyncState",
    description: "`Pending` until the first sync starts; `Backfilling` while history is read; `Idle` between " +
      "syncs; `RateLimited` while waiting for the provider's rate limit (see `rateLimitedUntil`), after which " +
      "the sync resumes; `Error` when the last sync failed (retried by the next periodic sync); `Stopped` when " +
      "the connection or user is no longer active"
  })

export class Connection extends Schema.Class<Connection>("Connection")({
  id: ConnectionId,
  userId: UserId,
  provider: Provider,
  providerUserId: Schema.String,
  status: ConnectionStatus,
  scopes: Schema.String.annotations({ description: "OAuth scopes granted, space separated" }),
  tokenExpiresAt: Schema.NullOr(Timestamp).annotations({
    description: "Expiry of the provider access token; null for OAuth 1.0a tokens, which do not expire"
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastSyncedAt: Schema.NullOr(Timestamp).annotations({
    description: "When the last sync of this connection finished; null before the first one"
  }),
  syncState: SyncState,
  rateLimitedUntil: Schema.NullOr(Timestamp).annotations({
    description: "While `syncState` is `RateLimited`: when the provider allows calls again"
  }),
  syncError: Schema.NullOr(Schema.String).annotations({
    description: "The last sync failure (`Error`) or why sync stopped (`Stopped`); null otherwise"
  }),
  statusReason: Schema.NullOr(Schema.String).annotations({
    description: "Why the connection is not `Active`, in words an app can show its user (e.g. the provider " +
      "revoked access, or retired the API the connection was made with); null while `Active`"
  }),
  quarantinedRecords: Schema.Int.pipe(Schema.nonNegative()).annotations({
    description: "Provider records that could not be read (malformed at the provider) and are held aside with " +
      "their raw JSON for the operator; they never block the other records. Drops when the provider sends them " +
      "again in a readable form"
  })
}) {}

/** The longest `scopes` accepted when a connect session is created. */
export const MaxScopesLength = 1024

export class CreateConnectSessionPayload
  extends Schema.Class<CreateConnectSessionPayload>("CreateConnectSessionPayload")({
    provider: Provider,
    redirectUrl: UrlString("Absolute URL the end user returns to; https, or http only for localhost"),
    scopes: Schema.optional(
      Schema.NullOr(ContractString({ maxLength: MaxScopesLength }, "OAuth scopes, space separated")).annotations({
        description: "null means the defaults"
      })
    )
  })
{}

export class ConnectSession extends Schema.Class<ConnectSession>("ConnectSession")({
  id: Schema.UUID,
  authorizationUrl: Schema.String,
  expiresAt: Timestamp
}) {}

export const AuthType = Schema.Literal("OAuth2", "OAuth1").annotations({ identifier: "AuthType" })

export const DataType = Schema.Literal(
  "DailyActivity",
  "Sleep",
  "ActivitySession",
  "Recovery",
  "ActivityLoadDaily",
  "ProfileSnapshot",
  "BodyMeasurementSnapshot",
  "GlucoseReading",
  "GlucoseEvent",
  "GlucoseCalibration"
).annotations({ identifier: "DataType" })

export class ProviderInfo extends Schema.Class<ProviderInfo>("ProviderInfo")({
  name: Provider,
  slug: Schema.String,
  authType: AuthType,
  logoUrl: Schema.NullOr(Schema.String),
  supportedDataTypes: Schema.Array(DataType)
}) {}

export class ProviderListingEntry extends Schema.Class<ProviderListingEntry>("ProviderListingEntry")({
  provider: ProviderInfo,
  connection: Schema.NullOr(Connection)
}) {}

export class DailyActivitySummary extends Schema.Class<DailyActivitySummary>("DailyActivitySummary")({
  connectionId: ConnectionId,
  provider: Provider,
  date: LocalDate,
  steps: Schema.Number,
  caloriesOut: Schema.Number.annotations({ description: "kcal" }),
  distanceMeters: Schema.Number,
  lightActiveMinutes: Schema.Number,
  moderateActiveMinutes: Schema.Number,
  vigorousActiveMinutes: Schema.Number,
  sedentaryMinutes: Schema.Number,
  floorsClimbed: Schema.Number
}) {}

export class DailyActivity extends Schema.Class<DailyActivity>("DailyActivity")({
  steps: Schema.Number,
  caloriesOut: Schema.Number.annotations({ description: "kcal" }),
  distance: Schema.Number.annotations({ description: "kilometres" }),
  fairlyActiveMinutes: Schema.Number,
  veryActiveMinutes: Schema.Number,
  rawJson: Schema.String.annotations({ description: "The provider's JSON for the day" })
}) {}

const dailyLoadFields = {
  date: LocalDate,
  windowKind: Schema.String.annotations({ description: "`PhysiologicalCycle` for WHOOP cycles" }),
  windowStartUtc: Timestamp,
  windowEndUtc: Schema.NullOr(Timestamp).annotations({ description: "null while the cycle is in progress" }),
  loadScore: Schema.NullOr(Schema.Number),
  loadScoreScale: Schema.String.annotations({ description: "Names the scale, e.g. `WhoopStrain0To21`" }),
  energyKilocalories: Schema.NullOr(Schema.Number),
  averageHeartRate: Schema.NullOr(Schema.Number),
  maxHeartRate: Schema.NullOr(Schema.Number),
  distanceMeters: Schema.NullOr(Schema.Number),
  steps: Schema.NullOr(Schema.Number),
  zoneDurationsJson: Schema.String.annotations({ description: "JSON text of time in heart-rate zones" }),
  sourceConfidence: Schema.String.annotations({ description: "`ProviderNative` for provider-computed values" })
}

export class DailyLoadRecord extends Schema.Class<DailyLoadRecord>("DailyLoadRecord")(dailyLoadFields) {}

export class DailyLoadSummary extends Schema.Class<DailyLoadSummary>("DailyLoadSummary")({
  connectionId: ConnectionId,
  provider: Provider,
  ...dailyLoadFields
}) {}

export class GlucoseReading extends Schema.Class<GlucoseReading>("GlucoseReading")({
  connectionId: ConnectionId,
  provider: Provider,
  date: LocalDate,
  systemTime: Timestamp,
  displayTime: Timestamp,
  value: Schema.NullOr(Schema.Number),
  trend: Schema.NullOr(Schema.String),
  trendRate: Schema.NullOr(Schema.Number),
  unit: Schema.String,
  rateUnit: Schema.String,
  status: Schema.NullOr(Schema.String),
  transmitterId: Schema.NullOr(Schema.String),
  recordId: Schema.String
}) {}

export class GlucoseEvent extends Schema.Class<GlucoseEvent>("GlucoseEvent")({
  connectionId: ConnectionId,
  provider: Provider,
  date: LocalDate,
  systemTime: Timestamp,
  displayTime: Timestamp,
  eventType: Schema.String,
  eventSubType: Schema.NullOr(Schema.String),
  value: Schema.NullOr(Schema.Number),
  unit: Schema.NullOr(Schema.String),
  eventId: Schema.String
}) {}

export class GlucoseCalibration extends Schema.Class<GlucoseCalibration>("GlucoseCalibration")({
  connectionId: ConnectionId,
  provider: Provider,
  date: LocalDate,
  systemTime: Timestamp,
  displayTime: Timestamp,
  value: Schema.Number,
  unit: Schema.String
}) {}

export class GlucoseData extends Schema.Class<GlucoseData>("GlucoseData")({
  readings: Schema.Array(GlucoseReading),
  events: Schema.Array(GlucoseEvent),
  calibrations: Schema.Array(GlucoseCalibration)
}) {}

const userPath = Schema.Struct({ userId: UserId })
const connectionPath = Schema.Struct({ userId: UserId, connectionId: ConnectionId })
const connectionDatePath = Schema.Struct({ userId: UserId, connectionId: ConnectionId, date: LocalDate })

export class ConnectionsGroup extends HttpApiGroup.make("connections")
  .add(
    HttpApiEndpoint.post("createSession", "/api/v1/users/:userId/connections/sessions")
      .setPath(userPath)
      .setPayload(CreateConnectSessionPayload)
      .addSuccess(ConnectSession)
      .addError(ProviderUnavailable)
      .annotate(OpenApi.Summary, "Start the hosted connect flow")
      .annotate(
        OpenApi.Description,
        "Returns the provider's authorization URL; the session expires after 15 minutes and its state works " +
          "once. `redirectUrl` must be absolute, https (http only for localhost), and start with one of the " +
          "app's allowed prefixes when it has any. 400 when the app has no credentials for the provider."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/users/:userId/connections")
      .setPath(userPath)
      .addSuccess(Schema.Array(Connection))
      .annotate(OpenApi.Summary, "List the user's active connections")
  )
  .add(
    HttpApiEndpoint.del("delete", "/api/v1/users/:userId/connections/:connectionId")
      .setPath(connectionPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Disconnect a provider")
      .annotate(OpenApi.Description, "Revokes the provider token, stops sync and keeps the data.")
  )
  .add(
    HttpApiEndpoint.get("activity", "/api/v1/users/:userId/connections/activity")
      .setPath(userPath)
      .setUrlParams(ProviderDateRange)
      .addSuccess(Schema.Array(DailyActivitySummary))
      .annotate(OpenApi.Summary, "Daily activity summaries over a date range")
      .annotate(OpenApi.Description, "`from`/`to` inclusive, at most 366 days; sorted by date then provider.")
  )
  .add(
    HttpApiEndpoint.get("activityByDate", "/api/v1/users/:userId/connections/:connectionId/activity/:date")
      .setPath(connectionDatePath)
      .addSuccess(DailyActivity)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Daily activity of one connection and day")
      .annotate(OpenApi.Description, "404 for providers without daily activity summaries (WHOOP, Dexcom).")
  )
  .add(
    HttpApiEndpoint.get("activityLoad", "/api/v1/users/:userId/connections/activity-load")
      .setPath(userPath)
      .setUrlParams(ProviderDateRange)
      .addSuccess(Schema.Array(DailyLoadSummary))
      .annotate(OpenApi.Summary, "Daily load records over a date range")
  )
  .add(
    HttpApiEndpoint.get(
      "activityLoadByDate",
      "/api/v1/users/:userId/connections/:connectionId/activity-load/:date"
    )
      .setPath(connectionDatePath)
      .addSuccess(DailyLoadRecord)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Daily load record of one connection and day")
  )
  .add(
    HttpApiEndpoint.get("glucose", "/api/v1/users/:userId/connections/glucose")
      .setPath(userPath)
      .setUrlParams(ProviderDateRange)
      .addSuccess(GlucoseData)
      .annotate(OpenApi.Summary, "Glucose readings, events and calibrations over a date range")
  )
  .add(
    HttpApiEndpoint.get("providers", "/api/v1/users/:userId/connections/providers")
      .setPath(userPath)
      .addSuccess(Schema.Array(ProviderListingEntry))
      .annotate(OpenApi.Summary, "The available providers, each with the user's connection or null")
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(UserTokenAuth)
  .annotate(OpenApi.Title, "Connections")
  .annotate(OpenApi.Description, "Provider connections and canonical health data, with a user token")
{}
