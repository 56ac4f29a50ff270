/**
 * Each connection's sync state (`sync_state`): its read, the plan of a backfill, the state the
 * engine sets (and a soft delete or an erasure, for every connection of a user), the move of a
 * backfill's cursor (in the record store's transaction, see `RecordStore.storeBackfillWindow`),
 * why a sync must stay stopped, and the events of a state change: a state that changes (never one
 * that stays: a backfill's windows are all `Backfilling`) writes `connection.updated` in the same
 * transaction.
 *
 * Locking: every write transaction first holds its connection (`select ... for key share`,
 * `holdConnection`) and writes nothing when the connection is gone (its user's erasure removed it
 * while a read was under way; the erasure locks its connections before any row, so the two wait for
 * each other in one order only); then it locks the state row (`lockState`, `for update`), so that
 * writes of one state run one after the other and each compares the state it leaves with the one
 * it found.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { UserId } from "@pulsebridge/domain"
import { ConnectionId } from "@pulsebridge/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ConnectionEvents } from "../connections/ConnectionEvents.js"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"

export const SyncStateName = Schema.Literal("Pending", "Backfilling", "Idle", "RateLimited", "Error", "Stopped")
export type SyncStateName = typeof SyncStateName.Type

export const SyncStateRow = Schema.Struct({
  connectionId: ConnectionId,
  state: SyncStateName,
  rateLimitedUntil: Schema.NullOr(Schema.DateFromSelf),
  lastSyncedAt: Schema.NullOr(Schema.DateFromSelf),
  lastError: Schema.NullOr(Schema.String),
  backfillFrom: Schema.NullOr(Schema.String),
  backfillTo: Schema.NullOr(Schema.String),
  backfillCursor: Schema.NullOr(Schema.String)
})
export type SyncStateRow = typeof SyncStateRow.Type

export const LockedState = Schema.Struct({ state: SyncStateName, backfillQuarantined: Schema.Number })
export type LockedState = typeof LockedState.Type

export class SyncStateRepo extends Effect.Service<SyncStateRepo>()("@pulsebridge/server/SyncStateRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* ConnectionEvents
    const connections = yield* ConnectionsRepo

    /**
     * Holds the connection against its deletion until the transaction ends: false when it is
     * already gone (its user was erased while a read was under way), and the write is skipped.
     */
    const holdConnection = (connectionId: string) =>
      sql`select 1 from connections where id = ${connectionId} for key share`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    /** The connection's sync state row, locked until the transaction ends; undefined before its first. */
    const lockState = (connectionId: string) =>
      sql`
        select state, backfill_quarantined from sync_state where connection_id = ${connectionId} for update
      `.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(LockedState))),
        Effect.map((rows) => rows[0])
      )

    /** `connection.updated` when the state the listing shows changed (no row shows `Pending`). */
    const emitIfChanged = (
      connectionId: string,
      before: LockedState | undefined,
      after: SyncStateName | undefined
    ) => after !== undefined && after !== (before?.state ?? "Pending") ? events.updated(connectionId) : Effect.void

    const findState = SqlSchema.findOne({
      Request: Schema.String,
      Result: SyncStateRow,
      execute: (connectionId) =>
        sql`
          select connection_id, state, rate_limited_until, last_synced_at, last_error,
            backfill_from::text as backfill_from, backfill_to::text as backfill_to,
            backfill_cursor::text as backfill_cursor
          from sync_state where connection_id = ${connectionId}
        `
    })

    /** The connection's sync state, or undefined before its first message. */
    const state = (connectionId: string) =>
      findState(connectionId).pipe(Effect.map(Option.getOrUndefined), Effect.orDie)

    /** Plans a backfill of `from`..`to` (newest first), replacing any earlier plan. */
    const planBackfill = (connectionId: string, from: string, to: string) =>
      Effect.gen(function*() {
        if (!(yield* holdConnection(connectionId))) return
        const before = yield* lockState(connectionId)
        yield* sql`
          insert into sync_state (connection_id, state, backfill_from, backfill_to, backfill_cursor)
          values (${connectionId}, 'Backfilling', ${from}, ${to}, ${to})
          on conflict (connection_id) do update set
            state = 'Backfilling', backfill_from = excluded.backfill_from, backfill_to = excluded.backfill_to,
            backfill_cursor = excluded.backfill_cursor, last_error = null,
            backfill_quarantined = 0, updated_at = now()
        `
        yield* emitIfChanged(connectionId, before, "Backfilling")
      }).pipe(sql.withTransaction, Effect.orDie)

    /**
     * Why the connection's sync must stay stopped (its user or the connection itself is no longer
     * Active, in the words the engine uses), or null: a sync that was under way then (a soft delete,
     * a lost grant) must not move its state back from `Stopped` when it ends.
     */
    const haltReason = (connectionId: string) =>
      sql`(
        select case when c.status <> 'Active' then 'connection is ' || c.status else 'user is inactive' end
        from connections c join users u on u.id = c.user_id
        where c.id = ${connectionId} and (c.status <> 'Active' or u.status <> 'Active')
      )`

    /**
     * Moves a backfill's cursor once its window is stored, in the caller's transaction (which holds
     * the connection and locked the row): `Idle` after the last window, and the records the backfill
     * quarantined so far. Says the state after, with the backfill's range.
     */
    const advanceBackfill = (connectionId: string, nextCursor: string | null, quarantined: number) =>
      Effect.map(
        // A window that was under way when the user or connection stopped keeps its records and
        // cursor, but does not bring the sync state back from `Stopped`.
        sql<
          { readonly state: SyncStateName; readonly backfillFrom: string | null; readonly backfillTo: string | null }
        >`
          update sync_state set backfill_cursor = ${nextCursor},
            state = case when halt.reason is not null then 'Stopped'
              else ${nextCursor === null ? "Idle" : "Backfilling"} end,
            rate_limited_until = null,
            last_error = halt.reason,
            last_synced_at = ${nextCursor === null ? sql.literal("now()") : sql.literal("sync_state.last_synced_at")},
            backfill_quarantined = ${quarantined},
            updated_at = now()
          from (select ${haltReason(connectionId)} as reason) halt
          where connection_id = ${connectionId}
          returning state, backfill_from::text as backfill_from, backfill_to::text as backfill_to
        `,
        (rows) => rows.at(0)
      )

    const setState = (
      connectionId: string,
      update: {
        readonly state: SyncStateName
        readonly rateLimitedUntil?: Date | null
        readonly lastError?: string | null
        readonly synced?: boolean
      }
    ) =>
      Effect.gen(function*() {
        if (!(yield* holdConnection(connectionId))) return
        const now = yield* Clock.currentTimeMillis
        const before = yield* lockState(connectionId)
        const [after] = yield* sql<{ readonly state: SyncStateName }>`
          with halt as (select ${haltReason(connectionId)} as reason)
          insert into sync_state (connection_id, state, rate_limited_until, last_error, last_synced_at)
          values (${connectionId}, ${update.state}, ${update.rateLimitedUntil ?? null}, ${update.lastError ?? null},
            ${update.synced === true ? new Date(now) : null})
          on conflict (connection_id) do update set
            state = case when (select reason from halt) is not null then 'Stopped' else excluded.state end,
            rate_limited_until = excluded.rate_limited_until,
            last_error = case when excluded.state <> 'Stopped'
              then coalesce((select reason from halt), excluded.last_error) else excluded.last_error end,
            last_synced_at = coalesce(excluded.last_synced_at, sync_state.last_synced_at),
            updated_at = now()
          returning state
        `
        yield* emitIfChanged(connectionId, before, after?.state)
      }).pipe(sql.withTransaction, Effect.orDie)

    /**
     * Every Active connection of the user shows `Stopped` ("user is inactive"), each in a transaction of its own:
     * what a soft delete or an erasure writes before its answer. The syncs need no message: each checks the user
     * before every provider read, and one under way cannot move the state back from `Stopped` (`haltReason`).
     */
    const stopUser = (userId: UserId) =>
      Effect.flatMap(
        connections.activeIdsOfUser(userId),
        Effect.forEach((id) => setState(id, { state: "Stopped", lastError: "user is inactive" }), { discard: true })
      )

    return {
      state,
      planBackfill,
      setState,
      stopUser,
      holdConnection,
      lockState,
      advanceBackfill,
      emitIfChanged
    } as const
  }),
  dependencies: [ConnectionEvents.Default, ConnectionsRepo.Default]
}) {}
