/**
 * The sync on Effect Cluster: each connection is a `ConnectionSync` entity whose messages are
 * persisted in the database and processed one at a time per connection, so a connection never
 * runs two syncs at once, and a message that was not finished (a crash, a kill -9, a deploy) is
 * delivered again when a runner comes back. A process syncs a bounded number of connections at once.
 */
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SyncEngine, SyncNotification } from "./SyncEngine.js"

export const ConnectionSync = Entity.make("ConnectionSync", [
  Rpc.make("Backfill").annotate(ClusterSchema.Persisted, true),
  Rpc.make("SyncWindow", {
    payload: { from: Schema.optional(Schema.String), to: Schema.optional(Schema.String) }
  }).annotate(ClusterSchema.Persisted, true),
  Rpc.make("BackfillRange", {
    payload: { from: Schema.String, to: Schema.String }
  }).annotate(ClusterSchema.Persisted, true),
  Rpc.make("Notify", { payload: { notification: SyncNotification } }).annotate(ClusterSchema.Persisted, true),
  Rpc.make("Stop").annotate(ClusterSchema.Persisted, true)
])

/** The entity's behaviour: each message runs the engine for its connection. */
export const ConnectionSyncLive = ConnectionSync.toLayer(Effect.gen(function*() {
  const engine = yield* SyncEngine
  const address = yield* Entity.CurrentAddress
  const connectionId = address.entityId
  // Each message waits for its turn among the process's syncs (`SyncSettings.syncConcurrency`); a stop does not.
  return {
    Backfill: () => engine.inTurn(engine.backfill(connectionId)),
    SyncWindow: ({ payload }) =>
      engine.inTurn(engine.syncWindow(
        connectionId,
        payload.from !== undefined && payload.to !== undefined ? { from: payload.from, to: payload.to } : undefined
      )),
    BackfillRange: ({ payload }) =>
      engine.inTurn(engine.backfillRange(connectionId, { from: payload.from, to: payload.to })),
    Notify: ({ payload }) => engine.inTurn(engine.notify(connectionId, payload.notification)),
    Stop: () => engine.stop(connectionId)
  }
}))
