/**
 * An operator's own account: changing its password (the current one required; a wrong one counts against the
 * address and the email as a failed login does; its other sessions end), and its second factor (`SecondFactor`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { traced } from "../../platform/Traced.js"
import { Audit } from "./Audit.js"
import { OperatorsRepo } from "./OperatorsRepo.js"
import { Passwords } from "./Passwords.js"
import { loginRules, Throttle } from "./Throttle.js"

/** The operator a change of its own account is made by: its session's. */
export interface AccountHolder {
  readonly operatorId: string
  readonly email: string
  readonly sessionId: string
}

export class WrongPassword extends Data.TaggedError("WrongPassword")<{}> {
  override get message() {
    return "The current password is wrong"
  }
}

export class AccountThrottled extends Data.TaggedError("AccountThrottled")<{ readonly retryAfterSeconds: number }> {
  override get message() {
    return `Too many failed attempts; try again in ${this.retryAfterSeconds} s`
  }
}

export class Account extends Effect.Service<Account>()("@pulsebridge/server/Account", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* OperatorsRepo
    const passwords = yield* Passwords
    const throttle = yield* Throttle
    const audit = yield* Audit
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    return {
      /** Sets a new password after checking the current one; the operator's other sessions end. */
      changePassword: traced("Account.changePassword")(
        function*(holder: AccountHolder, current: Redacted.Redacted, next: Redacted.Redacted, address: string) {
          const at = yield* now
          const rules = loginRules(holder.email, address)
          const who = { id: holder.operatorId, email: holder.email }
          yield* passwords.checkRoom
          yield* throttle.admit(rules, at).pipe(
            Effect.catchTag(
              "AttemptThrottled",
              (refused) => Effect.fail(new AccountThrottled({ retryAfterSeconds: refused.retryAfterSeconds }))
            )
          )
          const operator = Option.getOrUndefined(yield* repo.findByIdWithHash(holder.operatorId))
          const matches = operator?.passwordHash == null
            ? false
            : yield* passwords.verify(Redacted.value(current), operator.passwordHash)
          if (!matches) {
            yield* audit.record({
              operator: who,
              action: "operator.password.change.failed",
              targetType: "operator",
              targetId: holder.operatorId,
              address
            })
            return yield* new WrongPassword()
          }
          const passwordHash = yield* passwords.hash(Redacted.value(next))
          yield* Effect.gen(function*() {
            yield* throttle.forgive(rules, at)
            yield* repo.update(holder.operatorId, { passwordHash })
            const sessionsEnded = yield* repo.deleteOtherSessionsOf(holder.operatorId, holder.sessionId)
            yield* audit.record({
              operator: who,
              action: "operator.password.change",
              targetType: "operator",
              targetId: holder.operatorId,
              detail: { sessionsEnded },
              address
            })
          }).pipe(sql.withTransaction, Effect.orDie)
        }
      )
    } as const
  }),
  dependencies: [OperatorsRepo.Default, Passwords.Default, Throttle.Default, Audit.Default]
}) {}
