/**
 * The sync engine on Effect Cluster. Each connection is a `ConnectionSync` entity whose
 * messages are persisted in the database and processed one at a time per connection, so a
 * connection never runs two syncs at once and a message that was not finished (a crash, a
 * kill -9, a deploy) is delivered again when a runner comes back. A `ClusterCron` sends every
 * active connection a `SyncWindow` on schedule.
 *
 * Topology by `ROLE`: `all` (default) runs one process with a `SingleRunner`; `api` nodes only
 * send messages (client-only sharding) and `worker` nodes run the entities, all over one
 * PostgreSQL through SQL message and runner storage.
 */
import { ClusterCron, ClusterSchema, Entity, RunnerAddress, SingleRunner } from "@effect/cluster"
import { NodeClusterSocket } from "@effect/platform-node"
import { Rpc } from "@effect/rpc"
import { SqlClient } from "@effect/sql"
import type { ConnectionId, UserId } from "@pulsebridge/domain"
import * as Context from "effect/Context"
import * as Cron from "effect/Cron"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ServerConfig } from "../platform/ServerConfig.js"
import type { SyncNotification as Notification } from "./SyncEngine.js"
import { ProviderDataSources, SyncEngine, SyncNotification, SyncSettings } from "./SyncEngine.js"
import { SyncStore } from "./SyncStore.js"

export const ConnectionSync = Entity.make("ConnectionSync", [
  Rpc.make("Backfill").annotate(ClusterSchema.Persisted, true),
  Rpc.make("SyncWindow", {
    payload: { from: Schema.optional(Schema.String), to: Schema.optional(Schema.String) }
  }).annotate(ClusterSchema.Persisted, true),
  Rpc.make("Notify", { payload: { notification: SyncNotification } }).annotate(ClusterSchema.Persisted, true),
  Rpc.make("Stop").annotate(ClusterSchema.Persisted, true)
])

/** Sends work to connections' sync entities. Sending returns once the message is stored. */
export class SyncQueue extends Context.Tag("@pulsebridge/server/SyncQueue")<SyncQueue, {
  /** Plans the connect-time backfill and starts it. */
  readonly backfill: (connectionId: string) => Effect.Effect<void>
  readonly syncWindow: (connectionId: string, window?: { from: string; to: string }) => Effect.Effect<void>
  readonly notify: (connectionId: string, notification: Notification) => Effect.Effect<void>
  readonly stop: (connectionId: string) => Effect.Effect<void>
  /** Stops every connection of a user (soft delete). */
  readonly stopUser: (userId: UserId) => Effect.Effect<void>
}>() {}

export const SyncQueueLive = Layer.effect(
  SyncQueue,
  Effect.gen(function*() {
    const makeClient = yield* ConnectionSync.client
    const engine = yield* SyncEngine
    const sql = yield* SqlClient.SqlClient
    const send = <A, E>(connectionId: string, what: string, effect: Effect.Effect<A, E>) =>
      effect.pipe(
        Effect.asVoid,
        Effect.tapErrorCause((cause) =>
          Effect.logError("Could not queue sync work", cause).pipe(Effect.annotateLogs({ connectionId, what }))
        ),
        Effect.orDie
      )
    return {
      backfill: (connectionId) =>
        Effect.gen(function*() {
          yield* engine.planBackfill(connectionId)
          yield* send(connectionId, "Backfill", makeClient(connectionId).Backfill(undefined, { discard: true }))
        }),
      syncWindow: (connectionId, window) =>
        send(connectionId, "SyncWindow", makeClient(connectionId).SyncWindow(window ?? {}, { discard: true })),
      notify: (connectionId, notification) =>
        send(connectionId, "Notify", makeClient(connectionId).Notify({ notification }, { discard: true })),
      stop: (connectionId) => send(connectionId, "Stop", makeClient(connectionId).Stop(undefined, { discard: true })),
      stopUser: (userId) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ readonly id: ConnectionId }>`
            select id from connections where user_id = ${userId} and status = 'Active'
          `.pipe(Effect.orDie)
          for (const row of rows) {
            yield* send(row.id, "Stop", makeClient(row.id).Stop(undefined, { discard: true }))
          }
        })
    }
  })
)

/** The entity's behaviour: each message runs the engine for its connection. */
export const ConnectionSyncLive = ConnectionSync.toLayer(Effect.gen(function*() {
  const engine = yield* SyncEngine
  const address = yield* Entity.CurrentAddress
  const connectionId = address.entityId
  return {
    Backfill: () => engine.backfill(connectionId),
    SyncWindow: ({ payload }) =>
      engine.syncWindow(
        connectionId,
        payload.from !== undefined && payload.to !== undefined ? { from: payload.from, to: payload.to } : undefined
      ),
    Notify: ({ payload }) => engine.notify(connectionId, payload.notification),
    Stop: () => engine.stop(connectionId)
  }
}))

/** The periodic sync: every active connection of an active user gets a `SyncWindow`. */
export const PeriodicSyncLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  return ClusterCron.make({
    name: "PeriodicSync",
    cron: Cron.unsafeParse(config.syncCron ?? "0 * * * *"),
    execute: Effect.gen(function*() {
      const store = yield* SyncStore
      const queue = yield* SyncQueue
      const connections = yield* store.syncable
      yield* Effect.logInfo("Periodic sync").pipe(Effect.annotateLogs({ connections: connections.length }))
      for (const connection of connections) {
        yield* queue.syncWindow(connection.id)
      }
    })
  })
}))

/** Sharding for this process's role. */
export const ShardingLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  const shardingConfig = { entityMessagePollInterval: "2 seconds" } as const
  switch (config.role) {
    case "all":
      // One runner owns every shard; runner storage in memory needs no lock connection, which
      // the embedded database (one connection) could not spare.
      return SingleRunner.layer({ runnerStorage: "memory", shardingConfig })
    case "api":
      return NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig })
    case "worker": {
      const port = config.runnerPort ?? 34431
      return NodeClusterSocket.layer({
        storage: "sql",
        shardingConfig: {
          ...shardingConfig,
          runnerAddress: Option.some(RunnerAddress.make(config.runnerHost ?? "localhost", port)),
          runnerListenAddress: Option.some(RunnerAddress.make("0.0.0.0", port))
        }
      })
    }
  }
}))

/**
 * The sync runtime: `SyncQueue` for every role, the entity and the periodic sync where this
 * process runs workers. Needs the engine's services and the `SqlClient`.
 */
export const SyncLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  const settings = Layer.succeed(SyncSettings, {
    ...SyncSettings.defaultValue(),
    backfillDays: config.backfillDays ?? 30
  })
  const workers = config.role === "api" ? Layer.empty : Layer.mergeAll(ConnectionSyncLive, PeriodicSyncLive)
  return workers.pipe(
    Layer.provideMerge(SyncQueueLive),
    Layer.provideMerge(ShardingLive),
    Layer.provideMerge(SyncEngine.Default),
    Layer.provideMerge(SyncStore.Default),
    Layer.provide(ProviderDataSources.Default),
    Layer.provide(settings)
  )
}))
