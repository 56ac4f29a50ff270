/**
 * The embedded database's pool: one connection (PGlite has one session), whose queue serves single statements
 * before transactions. A request's read is one short statement, a sync's window or an event's outbox rows are a
 * transaction of many; in plain arrival order a read that comes in behind a few transactions waits for all of
 * them. Here it waits for the one that holds the session at most, and a transaction is passed over a bounded
 * number of times, so a stream of reads cannot starve the writes.
 *
 * Which checkout is which is told by its callback: `@effect/sql-pg` runs a single statement with a callback of two
 * parameters and reserves a connection for a transaction (or a stream) with one of three, which takes `release`.
 * Reordering only exchanges the turns of unrelated operations: a fiber has at most one checkout waiting, and the
 * statements inside a transaction run on its own reserved connection.
 */
import * as Pg from "pg"

/** How many single statements may pass a waiting transaction before it is served. */
export const passesBeforeTransaction = 16

/** A waiting checkout of `pg-pool`, marked here: whether it is a single statement, and how often it was passed. */
interface PendingItem {
  readonly callback: (...args: Array<unknown>) => void
  statement?: boolean
  passed?: number
}

type ConnectCallback = (err: Error | undefined, client?: Pg.PoolClient, release?: () => void) => void

interface PoolInternals {
  readonly _pendingQueue: Array<PendingItem>
}

export class EmbeddedPool extends Pg.Pool {
  override connect(): Promise<Pg.PoolClient>
  override connect(callback: ConnectCallback): void
  override connect(callback?: ConnectCallback): Promise<Pg.PoolClient> | void {
    if (callback === undefined) return super.connect()
    const queue = (this as unknown as PoolInternals)._pendingQueue
    const before = queue.length
    super.connect(callback as never)
    if (queue.length !== before + 1 || callback.length >= 3) return
    const item = queue.pop()!
    item.statement = true
    // Behind the last statement already waiting, and behind any transaction that was passed over enough.
    let at = queue.length
    while (at > 0) {
      const ahead = queue[at - 1]!
      if (ahead.statement === true) break
      if ((ahead.passed ?? 0) >= passesBeforeTransaction) break
      at--
    }
    for (let i = at; i < queue.length; i++) {
      const skipped = queue[i]!
      skipped.passed = (skipped.passed ?? 0) + 1
    }
    queue.splice(at, 0, item)
  }
}
