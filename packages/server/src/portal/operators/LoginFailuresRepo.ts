/**
 * Every statement on the `login_failures` table: one row per throttled key (the hash of an email or of
 * a client address), counting failed logins and saying until when the next attempt waits.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export class LoginFailuresRepo extends Effect.Service<LoginFailuresRepo>()("@pulsebridge/server/LoginFailuresRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const blockedUntil = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: Schema.Struct({ blockedUntil: Schema.NullOr(Schema.DateFromSelf) }),
      execute: (keys) => sql`select blocked_until from login_failures where ${sql.in("key", keys)}`
    })

    const increment = SqlSchema.single({
      Request: Schema.Struct({ key: Schema.String, now: Schema.DateFromSelf, forgetBefore: Schema.DateFromSelf }),
      Result: Schema.Struct({ failures: Schema.Int }),
      execute: ({ forgetBefore, key, now }) =>
        sql`
          insert into login_failures (key, failures, last_failed_at) values (${key}, 1, ${now})
          on conflict (key) do update set
            failures = case when login_failures.last_failed_at < ${forgetBefore} then 1
                            else login_failures.failures + 1 end,
            last_failed_at = excluded.last_failed_at
          returning failures
        `
    })

    return {
      /** The latest `blocked_until` among the keys' rows. */
      blockedUntil: (keys: ReadonlyArray<string>) =>
        blockedUntil(keys).pipe(
          Effect.map((rows) =>
            rows.reduce<Date | null>(
              (latest, row) =>
                row.blockedUntil !== null && (latest === null || row.blockedUntil > latest) ? row.blockedUntil : latest,
              null
            )
          ),
          Effect.orDie
        ),

      /** Counts one more failure (starting again after a quiet `forgetBefore`); the new count. */
      increment: (key: string, now: Date, forgetBefore: Date) =>
        increment({ key, now, forgetBefore }).pipe(Effect.map((row) => row.failures), Effect.orDie),

      block: (key: string, until: Date) =>
        sql`update login_failures set blocked_until = ${until} where key = ${key}`.pipe(Effect.asVoid, Effect.orDie),

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
