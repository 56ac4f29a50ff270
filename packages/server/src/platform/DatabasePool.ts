/**
 * The database pool's gauges: connections in use and idle, requests waiting for one, and the pool's
 * size, read when `/metrics` is scraped from every pool this process opened (the pools register
 * here for their lifetime). With the embedded database the pool has one connection: PGlite has one
 * session, so `waiting` is the queue in front of it.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type * as Pg from "pg"

const pools = new Set<Pg.Pool>()

export const poolConnections = Metric.gauge("pulsebridge_db_pool_connections", {
  description: "Connections of the database pool, by state (in_use, idle)"
})

export const poolWaiting = Metric.gauge("pulsebridge_db_pool_waiting", {
  description: "Queries waiting for a connection of the database pool"
})

export const poolMax = Metric.gauge("pulsebridge_db_pool_max", {
  description: "The most connections the database pool opens"
})

/** Registers `pool` for the gauges until the scope closes. */
export const trackPool = (pool: Pg.Pool) =>
  Effect.acquireRelease(Effect.sync(() => pools.add(pool)), () => Effect.sync(() => pools.delete(pool)))

/** Sets the pool gauges from the live pools. */
export const observePools = Effect.suspend(() => {
  let total = 0
  let idle = 0
  let waiting = 0
  let max = 0
  for (const pool of pools) {
    total += pool.totalCount
    idle += pool.idleCount
    waiting += pool.waitingCount
    max += pool.options.max ?? 10
  }
  return Effect.all([
    Metric.set(Metric.tagged(poolConnections, "state", "in_use"), total - idle),
    Metric.set(Metric.tagged(poolConnections, "state", "idle"), idle),
    Metric.set(poolWaiting, waiting),
    Metric.set(poolMax, max)
  ], { discard: true })
})
