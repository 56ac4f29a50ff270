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

const exampleUser = "5f0c2a8e-3b1d-4c6e-9a7f-2d4b6c8e0a1f"
const exampleConnection = "8d3e1f2a-6b4c-4d5e-8f9a-0b1c2d3e4f5a"

/** One example event of each type, as an endpoint receives it (the OpenAPI description and the docs show them). */
export const webhookEventExamples: { readonly [T in WebhookEventType]: WebhookEventData<T> } = {
  "connection.created": {
    userId: exampleUser,
    connectionId: exampleConnection,
    provider: "Fitbit",
    status: "Active",
    syncState: "Backfilling",
    reason: null
  } as unknown as WebhookEventData<"connection.created">,
  "connection.updated": {
    userId: exampleUser,
    connectionId: exampleConnection,
    provider: "Fitbit",
    status: "Reauthorize",
    syncState: "Stopped",
    reason: "the provider revoked the authorization"
  } as unknown as WebhookEventData<"connection.updated">,
  "connection.deleted": {
    userId: exampleUser,
    connectionId: exampleConnection,
    provider: "Fitbit"
  } as unknown as WebhookEventData<"connection.deleted">,
  "sync.backfill.completed": {
    userId: exampleUser,
    connectionId: exampleConnection,
    provider: "Fitbit",
    from: "2026-10-04",
    to: "2026-11-02",
    counts: { dailyActivity: 30, sleep: 29 },
    quarantined: 0
  } as unknown as WebhookEventData<"sync.backfill.completed">,
  "data.updated": {
    userId: exampleUser,
    connectionId: exampleConnection,
    provider: "Fitbit",
    dataType: "dailyActivity",
    from: "2026-11-01",
    to: "2026-11-02"
  } as unknown as WebhookEventData<"data.updated">,
  "journal.analysis.completed": {
    userId: exampleUser,
    entryId: "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"
  } as unknown as WebhookEventData<"journal.analysis.completed">,
  "journal.analysis.failed": {
    userId: exampleUser,
    entryId: "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d",
    reason: "the photo shows no food"
  } as unknown as WebhookEventData<"journal.analysis.failed">,
  "scores.updated": { userId: exampleUser, dates: ["2026-11-01", "2026-11-02"] } as unknown as WebhookEventData<
    "scores.updated"
  >,
  "user.deleted": { userId: exampleUser, externalUserId: "user-42" } as unknown as WebhookEventData<"user.deleted">,
  "user.erased": { userId: exampleUser } as unknown as WebhookEventData<"user.erased">,
  "webhook.test": {
    endpointId: "0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b",
    message: "This is a test event from PulseBridge"
  }
}

/** The whole body of an example event of type `type`. */
export const exampleWebhookEvent = (type: WebhookEventType) => ({
  type,
  id: "evt_0f8e7d6c5b4a39281706f5e4d3c2b1a0",
  timestamp: "2026-11-02T08:15:30.000Z",
  data: webhookEventExamples[type]
})
