/**
 * The events out of a connection's changes: `connection.created`, `connection.updated` (its
 * status or sync state changed) and `connection.deleted`. Each is written to the outbox with the
 * caller's SQL client, so called inside the transaction of the change it reports it commits with
 * it or not at all; `markReauthorize` is that transaction for the one status change several
 * features make. The event carries the connection as it stands in that transaction.
 *
 * A Disconnected connection gets no `connection.updated`: `connection.deleted` was its last word
 * (its sync stopping afterwards is not news to the app).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { ConnectionEventData } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Outbox } from "../events/Outbox.js"
import type { ChangedConnection, EventSnapshot } from "./ConnectionsRepo.js"
import { ConnectionsRepo } from "./ConnectionsRepo.js"

/** The event's data: the status, the sync state as the listing shows it, and why, when there is a why. */
const eventData = (row: EventSnapshot): typeof ConnectionEventData.Type => {
  const syncState = row.syncState ?? "Pending"
  return {
    userId: row.userId,
    connectionId: row.id,
    provider: row.provider,
    status: row.status,
    syncState,
    reason: row.status !== "Active"
      ? row.statusReason
      : syncState === "Error" || syncState === "Stopped"
      ? row.syncError
      : null
  }
}

export class ConnectionEvents extends Effect.Service<ConnectionEvents>()("@pulsebridge/server/ConnectionEvents", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ConnectionsRepo
    const outbox = yield* Outbox

    /** Writes `type` with the connection's current state; nothing for an unknown connection. */
    const emitState = (connectionId: string, type: "connection.created" | "connection.updated") =>
      Effect.gen(function*() {
        const found = yield* repo.eventSnapshot(connectionId)
        if (Option.isNone(found)) return
        const row = found.value
        if (type === "connection.updated" && row.status === "Disconnected") return
        yield* outbox.emit({ appId: row.appId, userId: row.userId, type, data: eventData(row) })
      })

    return {
      /** `connection.created`, for a connection the connect flow has just inserted. */
      created: (connectionId: string) => emitState(connectionId, "connection.created").pipe(Effect.orDie),

      /** `connection.updated`, for a connection whose status or sync state has just changed. */
      updated: (connectionId: string) => emitState(connectionId, "connection.updated").pipe(Effect.orDie),

      /** `connection.deleted`, for a connection the app has just disconnected. */
      deleted: (connection: ChangedConnection) =>
        outbox.emit({
          appId: connection.appId,
          userId: connection.userId,
          type: "connection.deleted",
          data: { userId: connection.userId, connectionId: connection.id, provider: connection.provider }
        }).pipe(Effect.asVoid, Effect.orDie),

      /**
       * The grant is gone: the connection needs the user (`Reauthorize`, with `reason`), and its
       * `connection.updated` is written in the same transaction. Nothing when it was not Active.
       */
      markReauthorize: (connectionId: string, reason: string) =>
        Effect.gen(function*() {
          if (yield* repo.markReauthorize(connectionId, reason)) yield* emitState(connectionId, "connection.updated")
        }).pipe(sql.withTransaction, Effect.orDie)
    } as const
  }),
  dependencies: [ConnectionsRepo.Default, Outbox.Default]
}) {}
