/**
 * Events out: what PulseBridge tells an app's webhook endpoints. Every event is
 * `{type, id, timestamp, data}`; `id` is stable (the same on every delivery attempt and every
 * endpoint, sent as the `webhook-id` header), `timestamp` is when the change happened. `data`
 * names what changed, never the health data itself: the app reads that through the API.
 */
import * as Schema from "effect/Schema"
import { ConnectionId, JournalEntryId, LocalDate, Provider, UserId } from "./Common.js"
import { ConnectionStatus, SyncState } from "./Connections.js"

export const WebhookEventType = Schema.Literal(
  "connection.created",
  "connection.updated",
  "connection.deleted",
  "sync.backfill.completed",
  "data.updated",
  "journal.analysis.completed",
  "journal.analysis.failed",
  "scores.updated",
  "user.deleted",
  "user.erased",
  "webhook.test"
).annotations({ identifier: "WebhookEventType", description: "The type of a webhook event" })
export type WebhookEventType = typeof WebhookEventType.Type
export const allWebhookEventTypes: ReadonlyArray<WebhookEventType> = WebhookEventType.literals

/** A connection's state, as `connection.created` and `connection.updated` carry it. */
export const ConnectionEventData = Schema.Struct({
  userId: UserId,
  connectionId: ConnectionId,
  provider: Provider,
  status: ConnectionStatus,
  syncState: SyncState,
  /** Why the connection needs the user (`Reauthorize`) or why sync stopped or failed; else null. */
  reason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ConnectionEventData" })

export const ConnectionDeletedData = Schema.Struct({
  userId: UserId,
  connectionId: ConnectionId,
  provider: Provider
}).annotations({ identifier: "ConnectionDeletedData" })

export const BackfillCompletedData = Schema.Struct({
  userId: UserId,
  connectionId: ConnectionId,
  provider: Provider,
  from: LocalDate,
  to: LocalDate,
  /**
   * The records of each data type (e.g. `dailyActivity`, `glucoseReadings`) the connection holds
   * dated `from`..`to` once the backfill is done: what the API returns for the range. Types with
   * none are left out.
   */
  counts: Schema.Record({ key: Schema.String, value: Schema.Int }),
  /** Records the backfill could not read and set aside (see the connection's `quarantinedRecords`). */
  quarantined: Schema.Int
}).annotations({ identifier: "BackfillCompletedData" })

export const DataUpdatedData = Schema.Struct({
  userId: UserId,
  connectionId: ConnectionId,
  provider: Provider,
  /**
   * `dailyActivity`, `dailyLoad`, `sleep`, `recovery`, `workouts`, `profiles`, `bodyMeasurements`,
   * `glucoseReadings`, `glucoseEvents` or `glucoseCalibrations`.
   */
  dataType: Schema.String,
  /** The first and last day of the records stored, changed or deleted, in the user's calendar. */
  from: LocalDate,
  to: LocalDate
}).annotations({ identifier: "DataUpdatedData" })

export const AnalysisCompletedData = Schema.Struct({
  userId: UserId,
  entryId: JournalEntryId
}).annotations({ identifier: "AnalysisCompletedData" })

export const AnalysisFailedData = Schema.Struct({
  userId: UserId,
  entryId: JournalEntryId,
  reason: Schema.String
}).annotations({ identifier: "AnalysisFailedData" })

export const ScoresUpdatedData = Schema.Struct({
  userId: UserId,
  /** The days whose scores may have changed, in the user's calendar, ascending. */
  dates: Schema.Array(LocalDate)
}).annotations({ identifier: "ScoresUpdatedData" })

export const UserDeletedData = Schema.Struct({
  userId: UserId,
  externalUserId: Schema.String
}).annotations({ identifier: "UserDeletedData" })

/** Only the id: nothing else of an erased user is kept anywhere. */
export const UserErasedData = Schema.Struct({ userId: UserId }).annotations({ identifier: "UserErasedData" })

export const WebhookTestData = Schema.Struct({
  endpointId: Schema.String,
  message: Schema.String
}).annotations({ identifier: "WebhookTestData" })

/** The data schema of each event type. */
export const webhookEventData = {
  "connection.created": ConnectionEventData,
  "connection.updated": ConnectionEventData,
  "connection.deleted": ConnectionDeletedData,
  "sync.backfill.completed": BackfillCompletedData,
  "data.updated": DataUpdatedData,
  "journal.analysis.completed": AnalysisCompletedData,
  "journal.analysis.failed": AnalysisFailedData,
  "scores.updated": ScoresUpdatedData,
  "user.deleted": UserDeletedData,
  "user.erased": UserErasedData,
  "webhook.test": WebhookTestData
} as const satisfies Record<WebhookEventType, Schema.Schema.AnyNoContext>

/** The data an event of type `T` carries. */
export type WebhookEventData<T extends WebhookEventType> = Schema.Schema.Type<(typeof webhookEventData)[T]>

/** The body of every webhook request. */
export const WebhookEvent = Schema.Struct({
  type: WebhookEventType,
  id: Schema.String.annotations({ description: "Stable event id (`evt_...`), also the `webhook-id` header" }),
  timestamp: Schema.String.annotations({ description: "When the change happened (ISO 8601, UTC)" }),
  data: Schema.Object
}).annotations({ identifier: "WebhookEvent" })
export type WebhookEvent = typeof WebhookEvent.Type
