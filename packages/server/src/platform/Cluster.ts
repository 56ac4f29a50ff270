/**
 * Effect Cluster for this process's role: `all` (default) runs one process with a `SingleRunner`;
 * `api` nodes only send messages (client-only sharding) and `worker` nodes run the entities, all
 * over one PostgreSQL through SQL message and runner storage.
 */
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ServerConfig } from "./ServerConfig.js"

/** How long an entity may still work on its message once the server stops, before it is interrupted. */
export const entityTerminationTimeout = Duration.seconds(2)

/** Sharding for this process's role. */
export const ShardingLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  // Entities get 2 s to finish their message on shutdown, then are interrupted: the default 15 s outlasts a 10 s
  // stop, and 5 s left a stop during a backfill at 7 s on a quiet machine and past 10 s on a busy one (the sync
  // kept retrying its provider calls while the server stopped). Every entity's work is resumable: an unfinished
  // persisted message is delivered again on the next start, and an interrupted transaction rolls back.
  const shardingConfig = { entityMessagePollInterval: "2 seconds", entityTerminationTimeout } as const
  switch (config.role) {
    case "all":
      // One runner owns every shard; runner storage in memory needs no lock connection, which
      // the embedded database (one connection) could not spare.
      return SingleRunner.layer({ runnerStorage: "memory", shardingConfig })
    case "api":
      return NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig })
    case "worker": {
      const port = config.runnerPort
      return NodeClusterSocket.layer({
        storage: "sql",
        shardingConfig: {
          ...shardingConfig,
          runnerAddress: Option.some(RunnerAddress.make(config.runnerHost, port)),
          runnerListenAddress: Option.some(RunnerAddress.make("0.0.0.0", port))
        }
      })
    }
  }
}))
