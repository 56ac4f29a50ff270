/**
 * The embedded database's autovacuum (`EmbeddedMaintenance`): a table whose rows changed past autovacuum's
 * thresholds is analyzed (its statistics then exist, so the planner sees its size), one with enough dead rows is
 * vacuumed, and a table under both thresholds is left alone. The round itself runs on either database; the server
 * runs it only on the embedded one.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { TestDatabaseLive } from "@pulsebridge/testing/TestDatabase"
import * as Effect from "effect/Effect"
import { maintainOnce, needsAnalyze, needsVacuum } from "../../src/platform/EmbeddedMaintenance.js"

layer(TestDatabaseLive, { excludeTestServices: true })("embedded database maintenance", (it) => {
  it.effect("autovacuum's thresholds: 50 rows and a tenth (analyze) or a fifth (vacuum) of the table", () =>
    Effect.sync(() => {
      expect(needsAnalyze({ name: "t", changedSinceAnalyze: 50, live: 0, dead: 0 })).toBe(false)
      expect(needsAnalyze({ name: "t", changedSinceAnalyze: 51, live: 0, dead: 0 })).toBe(true)
      expect(needsAnalyze({ name: "t", changedSinceAnalyze: 150, live: 1000, dead: 0 })).toBe(false)
      expect(needsAnalyze({ name: "t", changedSinceAnalyze: 151, live: 1000, dead: 0 })).toBe(true)
      expect(needsVacuum({ name: "t", changedSinceAnalyze: 0, live: 1000, dead: 250 })).toBe(false)
      expect(needsVacuum({ name: "t", changedSinceAnalyze: 0, live: 1000, dead: 251 })).toBe(true)
    }))

  it.effect("a round analyzes a table that changed, vacuums one with dead rows, and leaves a quiet one", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // PostgreSQL's own autovacuum kept off these tables, so that only the round under test touches them.
      yield* sql`create table maintenance_grown (id int primary key, v text) with (autovacuum_enabled = false)`
      yield* sql`create table maintenance_dead (id int primary key, v text) with (autovacuum_enabled = false)`
      yield* sql`create table maintenance_quiet (id int primary key, v text) with (autovacuum_enabled = false)`
      yield* sql`insert into maintenance_dead select i, 'x' from generate_series(1, 1000) i`
      yield* sql`insert into maintenance_quiet select i, 'x' from generate_series(1, 10) i`
      yield* sql`analyze maintenance_dead`
      yield* sql`analyze maintenance_quiet`
      yield* sql`insert into maintenance_grown select i, 'x' || i from generate_series(1, 5000) i`
      yield* sql`delete from maintenance_dead where id <= 600`
      // The counters reach the statistics views when the session reports them (forced here, else within a second).
      yield* sql`select pg_stat_force_next_flush()`
      yield* sql`select 1`
      const done = yield* maintainOnce
      expect(done).toContain("analyze maintenance_grown")
      expect(done).toContain("vacuum maintenance_dead")
      expect(done.some((d) => d.endsWith(" maintenance_quiet"))).toBe(false)
      const [grown] = yield* sql<{ reltuples: number }>`
        select reltuples::float8 as reltuples from pg_class where relname = 'maintenance_grown'
      `
      expect(grown!.reltuples).toBe(5000)
      yield* sql`select pg_stat_force_next_flush()`
      yield* sql`select 1`
      const [dead] = yield* sql<{ dead: string }>`
        select n_dead_tup::text as dead from pg_stat_user_tables where relname = 'maintenance_dead'
      `
      expect(Number(dead!.dead)).toBe(0)
      // A second round finds nothing more to do on these tables.
      const again = yield* maintainOnce
      expect(again.filter((d) => d.includes("maintenance_"))).toEqual([])
    }))
})
