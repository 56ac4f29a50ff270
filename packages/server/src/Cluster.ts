/**
 * Durable background work: `@effect/cluster` in this one process (a single runner that owns every
 * shard) with messages and replies persisted in the app's own database. A persisted message that
 * has no reply yet is delivered again after a restart, so work survives a kill.
 *
 * Runner bookkeeping is kept in memory: the embedded database is served over one connection, and
 * SQL runner storage would hold a connection of its own for its locks.
 */
import type { MessageStorage } from "@effect/cluster"
import { RunnerHealth, Runners, RunnerStorage, Sharding, ShardingConfig } from "@effect/cluster"
import { SqlMessageStorage } from "@effect/cluster"
import type { SqlClient } from "@effect/sql"
import * as Layer from "effect/Layer"

export const ClusterLive: Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage,
  never,
  SqlClient.SqlClient
> = Sharding.layer.pipe(
  Layer.provideMerge(Runners.layerNoop),
  Layer.provideMerge(Layer.orDie(SqlMessageStorage.layer)),
  Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
  Layer.provide(ShardingConfig.layer({
    // Configured here, not from the environment: HOST and PORT there are the HTTP server's.
    entityMessagePollInterval: "5 seconds",
    entityMaxIdleTime: "1 minute"
  }))
)
