/**
 * The embedded database's autovacuum. PGlite runs PostgreSQL as a single session, without the autovacuum launcher,
 * so nothing would ever gather its tables' statistics or vacuum them: the planner would plan a year of readings
 * with the estimates of an empty table (a page of 100 readings read and sorted the whole range instead of taking
 * 100 rows of the index) and dead row versions would pile up. Every minute this reads the tables' counters, as
 * autovacuum does, and with autovacuum's default thresholds analyzes a table once more than 50 rows and a tenth of
 * it changed since its last analysis, and vacuums it once more than 50 rows and a fifth of it are dead. Each
 * statement runs alone (a vacuum may not run in a transaction); the embedded pool serves it between transactions
 * like any single statement. PostgreSQL keeps its own autovacuum, so this runs only on the embedded database.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import { ServerConfig } from "./ServerConfig.js"

/** How often the counters are read. */
export const maintenanceEvery = Duration.minutes(1)

interface TableCounters {
  readonly name: string
  readonly changedSinceAnalyze: number
  readonly live: number
  readonly dead: number
}

/** Autovacuum's default thresholds: 50 rows, and a tenth (analyze) or a fifth (vacuum) of the table. */
export const needsAnalyze = (t: TableCounters) => t.changedSinceAnalyze > 50 + 0.1 * t.live
export const needsVacuum = (t: TableCounters) => t.dead > 50 + 0.2 * t.live

/** One round: the tables past a threshold analyzed or vacuumed (a vacuum also analyzes); what it did. */
export const maintainOnce = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string; changed: string; live: string; dead: string }>`
    select relname as name, n_mod_since_analyze::text as changed, n_live_tup::text as live,
      n_dead_tup::text as dead
    from pg_stat_user_tables where schemaname = 'public'
  `
  const done: Array<string> = []
  for (const row of tables) {
    const table: TableCounters = {
      name: row.name,
      changedSinceAnalyze: Number(row.changed),
      live: Number(row.live),
      dead: Number(row.dead)
    }
    const quoted = `"${table.name.replace(/"/g, "\"\"")}"`
    if (needsVacuum(table)) {
      yield* sql.unsafe(`vacuum (analyze) ${quoted}`)
      done.push(`vacuum ${table.name}`)
    } else if (needsAnalyze(table)) {
      yield* sql.unsafe(`analyze ${quoted}`)
      done.push(`analyze ${table.name}`)
    }
  }
  return done
})

/** On the embedded database, `maintainOnce` every minute for the server's life; a failed round is logged. */
export const EmbeddedMaintenanceLive = Layer.scopedDiscard(Effect.gen(function*() {
  const config = yield* ServerConfig
  if (Option.isSome(config.databaseUrl)) return
  const sql = yield* SqlClient.SqlClient
  const round = maintainOnce.pipe(
    Effect.tap((done) => done.length === 0 ? Effect.void : Effect.logDebug(`embedded database: ${done.join(", ")}`)),
    Effect.catchAllCause((cause) => Effect.logWarning("Embedded database maintenance failed", cause)),
    Effect.provideService(SqlClient.SqlClient, sql)
  )
  yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(maintenanceEvery)).pipe(Effect.delay(maintenanceEvery)))
}))
