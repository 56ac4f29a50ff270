/**
 * Every statement on the `login_failures` table: one row per throttled key (the hash of an address, an
 * email, or an address's setup attempts), counting failed attempts and saying until when the next one
 * waits. `lock` holds the rows of an attempt's keys for the rest of its transaction, so that concurrent
 * attempts on one key are counted one after the other.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const FailureRow = Schema.Struct({
  key: Schema.String,
  failures: Schema.Int,
  lastFailedAt: Schema.DateFromSelf,
  blockedUntil: Schema.NullOr(Schema.DateFromSelf)
})
export type FailureRow = typeof FailureRow.Type

export class LoginFailuresRepo extends Effect.Service<LoginFailuresRepo>()("@pulsebridge/server/LoginFailuresRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // A missing key starts at zero failures. The no-op update locks an existing row, as a new row is locked by
    // its insert; both stay locked until the caller's transaction ends. Keys are locked in one order (sorted),
    // so two attempts that share keys never wait for each other crosswise.
    const lock = SqlSchema.findAll({
      Request: Schema.Struct({ keys: Schema.Array(Schema.String), now: Schema.DateFromSelf }),
      Result: FailureRow,
      execute: ({ keys, now }) =>
        sql`
          insert into login_failures ${
          sql.insert([...keys].sort().map((key) => ({ key, failures: 0, lastFailedAt: now, blockedUntil: null })))
        }
          on conflict (key) do update set key = excluded.key
          returning key, failures, last_failed_at, blocked_until
        `
    })

    return {
      /** The rows of `keys`, locked until the transaction ends (created at zero failures where missing). */
      lock: (keys: ReadonlyArray<string>, now: Date) => lock({ keys, now }).pipe(Effect.orDie),

      /** Writes a key's count, when it last failed, and until when its next attempt waits. */
      save: (row: FailureRow) =>
        sql`
          update login_failures
          set failures = ${row.failures}, last_failed_at = ${row.lastFailedAt}, blocked_until = ${row.blockedUntil}
          where key = ${row.key}
        `.pipe(Effect.asVoid, Effect.orDie),

      /** Forgets counters untouched since `before` whose delay has passed. */
      prune: (before: Date, now: Date) =>
        sql`
          delete from login_failures
          where last_failed_at < ${before} and (blocked_until is null or blocked_until < ${now})
        `.pipe(Effect.asVoid, Effect.orDie),

      reset: (keys: ReadonlyArray<string>) =>
        sql`delete from login_failures where ${sql.in("key", keys)}`.pipe(Effect.asVoid, Effect.orDie)
    } as const
  })
}) {}
