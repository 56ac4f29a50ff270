/**
 * The throttle of the portal's unauthenticated attempts (logins and setup links). An attempt is counted
 * as a failure before it is checked, in one transaction that holds its keys' rows: concurrent attempts
 * on a key are counted one after the other, so a burst of guesses is checked no more often than the
 * same guesses one by one. A success forgets the count again.
 *
 * The rules:
 * - the client address (any email; and its setup attempts apart): from the third failure on, the next
 *   attempt from that address waits 1 s, 2 s, 4 s ... up to 15 minutes. Only the failing address waits.
 * - the email (from any address): from the third failure on, the next attempt for it waits 1 s, 2 s,
 *   4 s, then 5 s at most. This slows guesses spread over many addresses, while a stranger can never
 *   keep the operator out for longer than a few seconds.
 * A counter untouched for 24 hours starts again from zero.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { addressKey, hashKey } from "../../access/RateLimit.js"
import { traced } from "../../platform/Traced.js"
import { LoginFailuresRepo } from "./LoginFailuresRepo.js"

export interface ThrottleRule {
  readonly key: string
  /** Failures before the waits start. */
  readonly freeFailures: number
  readonly firstDelay: Duration.Duration
  readonly maxDelay: Duration.Duration
}

/** A counter untouched this long starts again from zero. */
export const forgetAfter = Duration.hours(24)

/** The wait after a key's `failures` failures, or none while they are few. */
export const delayOf = (rule: Omit<ThrottleRule, "key">, failures: number): Duration.Duration | undefined => {
  if (failures < rule.freeFailures) return undefined
  const ms = Duration.toMillis(rule.firstDelay) * 2 ** Math.min(failures - rule.freeFailures, 30)
  return Duration.millis(Math.min(ms, Duration.toMillis(rule.maxDelay)))
}

/** The failing address's hard wait: 1 s, 2 s, 4 s ... 15 minutes. */
export const addressPolicy = {
  freeFailures: 3,
  firstDelay: Duration.seconds(1),
  maxDelay: Duration.minutes(15)
} as const

/** The email's soft wait: 1 s, 2 s, 4 s, then 5 s at most, whoever fails it. */
export const emailPolicy = {
  freeFailures: 3,
  firstDelay: Duration.seconds(1),
  maxDelay: Duration.seconds(5)
} as const

/** The keys of a login attempt: its address's and its email's. */
export const loginRules = (email: string, address: string): ReadonlyArray<ThrottleRule> => [
  { key: hashKey("failed", `login-address:${addressKey(address)}`), ...addressPolicy },
  { key: hashKey("failed", `login-email:${email.trim().toLowerCase()}`), ...emailPolicy }
]

/** The key of a setup-link attempt: its address's. */
export const setupRules = (address: string): ReadonlyArray<ThrottleRule> => [
  { key: hashKey("failed", `setup-address:${addressKey(address)}`), ...addressPolicy }
]

/** The attempt must wait: one of its keys is held back for `retryAfterSeconds` more. */
export class AttemptThrottled extends Data.TaggedError("AttemptThrottled")<{ readonly retryAfterSeconds: number }> {}

export class Throttle extends Effect.Service<Throttle>()("@pulsebridge/server/Throttle", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* LoginFailuresRepo

    return {
      /**
       * Counts the attempt as a failure of each rule's key, unless one of them is waiting: then the attempt is
       * refused and counts nothing (a stranger's waiting cannot add to the counts of the operator's address).
       */
      admit: traced("Throttle.admit")(function*(rules: ReadonlyArray<ThrottleRule>, at: Date) {
        const waitSeconds = yield* Effect.gen(function*() {
          const rows = yield* repo.lock([...new Set(rules.map((rule) => rule.key))], at)
          const waitUntil = rows.reduce(
            (
              latest,
              row
            ) => (row.blockedUntil !== null && row.blockedUntil > at ? Math.max(latest, +row.blockedUntil) : latest),
            0
          )
          if (waitUntil > 0) return Math.max(1, Math.ceil((waitUntil - at.getTime()) / 1000))
          const forgetBefore = at.getTime() - Duration.toMillis(forgetAfter)
          for (const rule of rules) {
            const row = rows.find((row) => row.key === rule.key)!
            const failures = (row.lastFailedAt.getTime() < forgetBefore ? 0 : row.failures) + 1
            const delay = delayOf(rule, failures)
            yield* repo.save({
              key: rule.key,
              failures,
              lastFailedAt: at,
              blockedUntil: delay === undefined ? null : new Date(at.getTime() + Duration.toMillis(delay))
            })
          }
          return 0
        }).pipe(sql.withTransaction, Effect.orDie)
        if (waitSeconds > 0) return yield* new AttemptThrottled({ retryAfterSeconds: waitSeconds })
      }),

      /** The attempt succeeded: its keys start again from zero. Counters idle for a day are dropped meanwhile. */
      forgive: traced("Throttle.forgive")(function*(rules: ReadonlyArray<ThrottleRule>, at: Date) {
        yield* repo.reset(rules.map((rule) => rule.key))
        // Now and then is enough to keep the table small: a success is rare.
        yield* repo.prune(new Date(at.getTime() - Duration.toMillis(forgetAfter)), at)
      })
    } as const
  }),
  dependencies: [LoginFailuresRepo.Default]
}) {}
