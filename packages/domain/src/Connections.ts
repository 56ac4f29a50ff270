/**
 * Connections (endpoints 7-15): the hosted connect flow, the user's provider connections,
 * and the canonical health data read from them.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { UserTokenAuth } from "./Auth.js"
import {
  ConnectionId,
  ContractString,
  LocalDate,
  PagedProviderDateRange,
  Provider,
  Timestamp,
  UrlString,
  UserId
} from "./Common.js"
import { BadRequest, Conflict, Forbidden, NotFound, ProviderUnavailable } from "./Errors.js"

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

export class SyncProgress extends Schema.Class<SyncProgress>("SyncProgress")({
  windowsDone: Schema.Int.pipe(Schema.nonNegative()).annotations({
    description: "Windows of the backfill already stored (each window is the provider's request span, e.g. 28 " +
      "days for Dexcom), newest first"
  }),
  windowsTotal: Schema.Int.pipe(Schema.nonNegative()).annotations({
    description: "Windows the backfill reads in all"
  }),
  oldestDateReached: Schema.NullOr(LocalDate).annotations({
    description: "The oldest day stored so far by this backfill; null before its first window is stored"
  })
}, {
  description: "How far the backfill under way has come. Windows are read newest first, so the days from " +
    "`oldestDateReached` to the end of the range are in"
}) {}

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
  }),
  syncProgress: Schema.NullOr(SyncProgress).annotations({
    description: "While a backfill runs (the one at connect, or one asked for with POST .../sync and a range): " +
      "windows done and total and the oldest day reached; null when no backfill runs"
  })
}) {}

export class ResyncRange extends Schema.Class<ResyncRange>("ResyncRange")({
  from: LocalDate.annotations({ description: "First day to read again, inclusive (YYYY-MM-DD)" }),
  to: LocalDate.annotations({ description: "Last day to read again, inclusive (YYYY-MM-DD); not after today" })
}, {
  description: "Days to read again from the provider, in the user's time zone. `from` must not be after `to`, " +
    "`to` not after the user's today, and `from` within the provider's history limit counted back from today " +
    "(Garmin 30 days, the others 365)"
}) {}

/**
 * `{}`: no range, as no body. A typed client sends an empty object where it has nothing to say; any key makes it
 * a range to check (a misspelt `from` is refused, not read as no range).
 */
const EmptyObject = Schema.Unknown.pipe(
  Schema.filter(
    (body) => typeof body === "object" && body !== null && !Array.isArray(body) && Object.keys(body).length === 0,
    { message: () => "Expected no body, {} or {from, to}" }
  )
).annotations({
  jsonSchema: { type: "object", maxProperties: 0 },
  description: "An empty object: the recent days, as without a body"
})

/** The body of a re-sync: none, `null` or `{}` for the recent days (decoded as null); a `ResyncRange` for a backfill. */
export const ResyncPayload = Schema.transform(
  Schema.Union(ResyncRange, Schema.Null, EmptyObject),
  Schema.NullOr(Schema.typeSchema(ResyncRange)),
  {
    strict: true,
    decode: (body) => (body instanceof ResyncRange ? body : null),
    // no range is sent as `{}`: the server refuses a JSON body that is not an object, `null` included
    encode: (range) => range ?? {}
  }
)

export class ResyncAccepted extends Schema.Class<ResyncAccepted>("ResyncAccepted")({
  connectionId: ConnectionId,
  kind: Schema.Literal("Recent", "Backfill").annotations({
    description: "`Recent`: the recent window the periodic sync reads; `Backfill`: the asked range, read as a " +
      "durable backfill (see the connection's `syncProgress`)"
  }),
  from: LocalDate.annotations({ description: "First day that will be read" }),
  to: LocalDate.annotations({ description: "Last day that will be read" })
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
  windowKind: Schema.String.annotations({
    description: "`PhysiologicalCycle` for WHOOP cycles, dated by the day the member wakes into: the local date " +
      "(at the cycle's time zone offset) of the end of the sleep that opens the cycle, else of its start + 12 h"
  }),
  windowStartUtc: Timestamp,
  windowEndUtc: Schema.NullOr(Timestamp).annotations({
    description: "End of the window. null only for the running WHOOP cycle (the one the member is in now): " +
      "it is served while it runs, with its running strain, and gets its end once the next sleep begins. " +
      "A cycle WHOOP has not scored yet (PENDING_SCORE) or cannot score (UNSCORABLE) is not served until it is scored."
  }),
  loadScore: Schema.Number.annotations({
    description: "The load on `loadScoreScale` (WHOOP strain 0-21; for the running cycle, the strain so far)"
  }),
  loadScoreScale: Schema.String.annotations({ description: "Names the scale, e.g. `WhoopStrain0To21`" }),
  energyKilocalories: Schema.Number.annotations({ description: "kcal (WHOOP kilojoules / 4.184)" }),
  averageHeartRate: Schema.Number.annotations({ description: "bpm" }),
  maxHeartRate: Schema.Number.annotations({ description: "bpm" }),
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
  date: LocalDate.annotations({
    description: "The device's own day: the date of `displayTime` on the device's wall clock"
  }),
  systemTime: Timestamp,
  displayTime: Timestamp.annotations({
    description: "The time the device showed, as a UTC instant (its wall clock at its UTC offset; for a " +
      "receiver, whose records carry no offset, the offset is inferred from its clock and the system time)"
  }),
  value: Schema.NullOr(Schema.Number).annotations({
    description: "Glucose in `unit`, as the provider reports it; null when the sensor gave none. Dexcom " +
      "reports readings below 40 mg/dL as 39 with `status` `Low` and above 400 mg/dL as 401 with `status` `High`"
  }),
  trend: Schema.NullOr(Schema.String),
  trendRate: Schema.NullOr(Schema.Number),
  unit: Schema.String,
  rateUnit: Schema.String,
  status: Schema.NullOr(Schema.String).annotations({
    description: "The provider's status of the reading (Dexcom: `Low`, `High`, `Ok`, `Unknown` or null); " +
      "`Low`/`High` mark a value at the sensor's bound, not a measurement"
  }),
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

/** What the three paged range reads (endpoints 10, 12, 14) share, for their OpenAPI descriptions. */
const rangeReadNotes =
  "Answers carry a weak `ETag`; a request whose `If-None-Match` names it gets 304 with no body while " +
  "the range's data is unchanged. Large answers are streamed, and compressed (`br` or `gzip`) when " +
  "`Accept-Encoding` asks for it. With `limit`, the answer is one page and a `Link: <...>; rel=\"next\"` header " +
  "gives the next page's URL until the last page; a page holds the same items in the same order as the whole " +
  "answer, each exactly once."

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
    HttpApiEndpoint.post("resync", "/api/v1/users/:userId/connections/:connectionId/sync")
      .setPath(connectionPath)
      .setPayload(ResyncPayload)
      .addSuccess(ResyncAccepted, { status: 202 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Sync a connection again")
      .annotate(
        OpenApi.Description,
        "Without a body (or with `{}`): reads the recent days again, as the periodic sync does. With " +
          "`{from, to}`: reads that range again as a durable backfill, newest window first, resumed after a " +
          "restart; the connection shows its `syncProgress` until it ends. Work already queued for the " +
          "connection runs first. 404 for a connection of another user, an unknown one or a `Disconnected` " +
          "one; 409 when the connection is `Reauthorize` (the message gives `statusReason`); 400 for a range " +
          "that breaks a rule, and then nothing is read."
      )
  )
  .add(
    HttpApiEndpoint.get("activity", "/api/v1/users/:userId/connections/activity")
      .setPath(userPath)
      .setUrlParams(PagedProviderDateRange)
      .addSuccess(Schema.Array(DailyActivitySummary))
      .annotate(OpenApi.Summary, "Daily activity summaries over a date range")
      .annotate(
        OpenApi.Description,
        `\`from\`/\`to\` inclusive, at most 366 days; sorted by date then provider. ${rangeReadNotes}`
      )
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
      .setUrlParams(PagedProviderDateRange)
      .addSuccess(Schema.Array(DailyLoadSummary))
      .annotate(OpenApi.Summary, "Daily load records over a date range")
      .annotate(
        OpenApi.Description,
        `\`from\`/\`to\` inclusive, at most 366 days; sorted by date, provider, connection and window start. ${rangeReadNotes}`
      )
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
      .setUrlParams(PagedProviderDateRange)
      .addSuccess(GlucoseData)
      .annotate(OpenApi.Summary, "Glucose readings, events and calibrations over a date range")
      .annotate(
        OpenApi.Description,
        "`from`/`to` inclusive, at most 366 days; each array sorted by date, provider, connection and system time. " +
          `${rangeReadNotes} A page is filled with readings first, then events, then calibrations, and keeps all ` +
          "three arrays (those it does not reach are empty)."
      )
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
