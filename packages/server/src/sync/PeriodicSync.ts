/**
 * The periodic sync: a `ClusterCron` (one run per schedule tick across the deployment) that sends
 * every active connection of an active user a `SyncWindow`.
 */
import * as ClusterCron from "@effect/cluster/ClusterCron"
import * as Cron from "effect/Cron"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"
import { ServerConfig } from "../platform/ServerConfig.js"
import { SyncQueue } from "./SyncQueue.js"

/** The periodic sync: every active connection of an active user gets a `SyncWindow`. */
export const PeriodicSyncLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  return ClusterCron.make({
    name: "PeriodicSync",
    cron: Cron.unsafeParse(config.syncCron),
    execute: Effect.gen(function*() {
      const connections = yield* ConnectionsRepo
      const queue = yield* SyncQueue
      const syncable = yield* connections.syncable
      yield* Effect.logInfo("Periodic sync").pipe(Effect.annotateLogs({ connections: syncable.length }))
      for (const connection of syncable) {
        yield* queue.syncWindow(connection.id)
      }
    })
  })
}))
