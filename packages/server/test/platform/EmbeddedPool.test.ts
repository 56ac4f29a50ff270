/**
 * The embedded database's pool serves waiting single statements before waiting transactions, and serves a
 * transaction after a bounded number of statements passed it. The pool's one connection is a stand-in client (the
 * order of turns is the pool's alone), checked out the way `@effect/sql-pg` does: a statement with a callback of two
 * parameters, a transaction with one of three.
 */
import { describe, expect, it } from "@effect/vitest"
import { EventEmitter } from "node:events"
import type * as Pg from "pg"
import { EmbeddedPool, passesBeforeTransaction } from "../../src/platform/EmbeddedPool.js"

class StandInClient extends EventEmitter {
  readonly _queryable = true
  connect(callback: (err?: Error) => void) {
    setImmediate(() => callback())
  }
  end(callback?: () => void) {
    setImmediate(() => callback?.())
  }
}

const makePool = () => new EmbeddedPool({ max: 1, connectionTimeoutMillis: 10_000, Client: StandInClient as never })

/** Checks out the connection as the transaction `name` and resolves with its release once it is served. */
const transaction = (pool: EmbeddedPool, order: Array<string>, name: string) =>
  new Promise<() => void>((resolve) => {
    pool.connect((_err, _client, release) => {
      order.push(name)
      resolve(release!)
    })
  })

/** Checks out the connection as the single statement `name` and releases it at once. */
const statement = (pool: EmbeddedPool, order: Array<string>, name: string) =>
  new Promise<void>((resolve) => {
    pool.connect((_err: Error | undefined, client?: Pg.PoolClient) => {
      order.push(name)
      client!.release()
      resolve()
    })
  })

/** Lets the pool hand its connection over after a release. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe("the embedded database's pool", () => {
  it("serves a waiting statement before the transactions that came in ahead of it", async () => {
    const pool = makePool()
    const order: Array<string> = []
    const holder = await transaction(pool, order, "holder")
    const first = transaction(pool, order, "first transaction")
    const second = transaction(pool, order, "second transaction")
    const reads = [statement(pool, order, "read a"), statement(pool, order, "read b")]
    holder()
    await Promise.all(reads)
    ;(await first)()
    ;(await second)()
    await settle()
    expect(order).toEqual(["holder", "read a", "read b", "first transaction", "second transaction"])
    await pool.end()
  })

  it("serves a transaction once enough statements passed it", async () => {
    const pool = makePool()
    const order: Array<string> = []
    const holder = await transaction(pool, order, "holder")
    const waiting = transaction(pool, order, "transaction")
    const reads = Array.from({ length: passesBeforeTransaction + 4 }, (_, i) => statement(pool, order, `read ${i}`))
    holder()
    ;(await waiting)()
    await Promise.all(reads)
    expect(order.indexOf("transaction")).toBe(passesBeforeTransaction + 1)
    expect(order.slice(passesBeforeTransaction + 2)).toEqual(
      Array.from({ length: 4 }, (_, i) => `read ${passesBeforeTransaction + i}`)
    )
    await pool.end()
  })

  it("keeps the order of statements among themselves and of transactions among themselves", async () => {
    const pool = makePool()
    const order: Array<string> = []
    const holder = await transaction(pool, order, "holder")
    const t1 = transaction(pool, order, "t1")
    const r1 = statement(pool, order, "r1")
    const t2 = transaction(pool, order, "t2")
    const r2 = statement(pool, order, "r2")
    holder()
    await Promise.all([r1, r2])
    ;(await t1)()
    ;(await t2)()
    await settle()
    expect(order).toEqual(["holder", "r1", "r2", "t1", "t2"])
    await pool.end()
  })
})
