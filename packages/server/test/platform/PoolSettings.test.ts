/**
 * The database pool's settings: `DATABASE_POOL_SIZE` bounds the connections a process opens to PostgreSQL
 * (seen in `pulsebridge_db_pool_max` and in the sessions the pool opens under load); `SYNC_STORE_CONCURRENCY`
 * (default half the pool, 1 on the embedded database) and `SYNC_CONCURRENCY` (default 16) are read as given.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Redacted from "effect/Redacted"
import { pgClientFromUrl } from "../../src/platform/Database.js"
import { observePools, poolMax } from "../../src/platform/DatabasePool.js"
import { serverConfig } from "../../src/platform/ServerConfig.js"

const read = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(serverConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("database pool settings", () => {
  it.effect("DATABASE_POOL_SIZE and SYNC_STORE_CONCURRENCY: defaults, values and refusals", () =>
    Effect.gen(function*() {
      const defaults = yield* read({})
      expect(defaults._tag).toBe("Right")
      if (defaults._tag === "Right") {
        expect(defaults.right.databasePoolSize).toBe(10)
        expect(defaults.right.syncStoreConcurrency).toBe(1)
        expect(defaults.right.syncConcurrency).toBe(16)
      }
      const set = yield* read({ DATABASE_POOL_SIZE: "24", SYNC_STORE_CONCURRENCY: "3", SYNC_CONCURRENCY: "40" })
      expect(set._tag).toBe("Right")
      if (set._tag === "Right") {
        expect(set.right.databasePoolSize).toBe(24)
        expect(set.right.syncStoreConcurrency).toBe(3)
        expect(set.right.syncConcurrency).toBe(40)
      }
      for (const env of [{ DATABASE_POOL_SIZE: "1" }, { DATABASE_POOL_SIZE: "many" }]) {
        const refused = yield* read(env)
        expect(refused._tag).toBe("Left")
        if (refused._tag === "Left") expect(String(refused.left)).toMatch(/DATABASE_POOL_SIZE/)
      }
      for (const name of ["SYNC_STORE_CONCURRENCY", "SYNC_CONCURRENCY"]) {
        const zero = yield* read({ [name]: "0" })
        expect(zero._tag).toBe("Left")
        if (zero._tag === "Left") expect(String(zero.left)).toMatch(new RegExp(name))
      }
    }))

  it.live.skipIf(process.env["DATABASE_URL"] === undefined)(
    "a pool of 3 reports 3 as its maximum and runs twelve waiting statements on exactly 3 sessions",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* observePools
        expect((yield* Metric.value(poolMax)).value).toBe(3)
        // Twelve statements at once, each holding its session a moment: they share three backends.
        const backends = yield* Effect.forEach(
          Array.from({ length: 12 }, (_, i) => i),
          () =>
            sql<{ readonly pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)::text`.pipe(
              Effect.map((rows) => rows[0]!.pid)
            ),
          { concurrency: "unbounded" }
        )
        expect(new Set(backends).size).toBe(3)
      }).pipe(Effect.provide(pgClientFromUrl(Redacted.make(process.env["DATABASE_URL"]!), 10_000, 3)))
  )
})
