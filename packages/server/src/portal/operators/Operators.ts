/**
 * Operators: the people who may log in to the portal. Created by the CLI either with a password or
 * with a one-time setup link (valid 24 hours; only its token's hash is stored) on which they choose
 * one; listed; disabled, which ends their sessions at once. Every change is audited in its transaction.
 *
 * A setup attempt is cheap until its token is known good: the token's hash is looked up first, and only
 * then is the password hashed. Failed attempts are audited and throttled per client address.
 */
import { SqlClient } from "@effect/sql"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { hashSecret } from "../../access/CredentialHash.js"
import { newId } from "../../platform/Ids.js"
import type { Actor } from "./Audit.js"
import { Audit, byActor } from "./Audit.js"
import { OperatorsRepo } from "./OperatorsRepo.js"
import { Passwords } from "./Passwords.js"
import { setupRules, Throttle } from "./Throttle.js"

export { EmailTaken, type OperatorRow } from "./OperatorsRepo.js"

export const setupLinkValidity = Duration.hours(24)

export class OperatorNotFound extends Data.TaggedError("OperatorNotFound")<{ readonly email: string }> {
  override get message() {
    return `no operator with the email ${this.email}`
  }
}

/** The setup token is unknown, spent or past its 24 hours. */
export class SetupTokenInvalid extends Data.TaggedError("SetupTokenInvalid")<{}> {
  override get message() {
    return "This setup link is not valid (unknown, used already, or older than 24 hours); ask for a new one"
  }
}

/** Too many failed setup attempts from this address: wait `retryAfterSeconds`. */
export class SetupThrottled extends Data.TaggedError("SetupThrottled")<{ readonly retryAfterSeconds: number }> {
  override get message() {
    return `Too many failed attempts; try again in ${this.retryAfterSeconds} s`
  }
}

export class Operators extends Effect.Service<Operators>()("@pulsebridge/server/Operators", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* OperatorsRepo
    const audit = yield* Audit
    const passwords = yield* Passwords
    const throttle = yield* Throttle
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const insert = Effect.fn("Operators.insert")(
      function*(email: string, passwordHash: string | null, setupToken: string | null, actor: Actor) {
        const at = yield* now
        const operator = yield* repo.insert({
          id: newId(),
          email: email.trim(),
          passwordHash,
          setupTokenHash: setupToken === null ? null : hashSecret(setupToken),
          setupExpiresAt: setupToken === null ? null : new Date(at.getTime() + Duration.toMillis(setupLinkValidity)),
          createdAt: at
        })
        yield* audit.record(byActor(actor, {
          action: "operator.create",
          targetType: "operator",
          targetId: operator.id,
          detail: { email: operator.email, setupLink: setupToken !== null }
        }))
        return { operator, setupToken }
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    /** A failed setup attempt, in the audit log with its address (never its token). */
    const setupFailed = (reason: string, address: string) =>
      audit.record({ operator: null, action: "operator.setup.failed", detail: { reason }, address })

    return {
      /**
       * Creates an operator with a password, or without one and with a setup token (answered once,
       * for the setup link).
       */
      create: Effect.fn("Operators.create")(
        function*(email: string, password: Redacted.Redacted | undefined, actor: Actor) {
          // Hashed before the transaction: no connection is held while scrypt runs.
          const passwordHash = password === undefined ? null : yield* passwords.hash(Redacted.value(password))
          const setupToken = password === undefined ? crypto.randomBytes(32).toString("base64url") : null
          return yield* insert(email, passwordHash, setupToken, actor)
        }
      ),

      list: repo.list.pipe(Effect.withSpan("Operators.list")),

      /** Disables an operator and ends its sessions. */
      disable: Effect.fn("Operators.disable")(
        function*(email: string, actor: Actor) {
          const updated = yield* repo.setStatus(email.trim(), "Disabled")
          if (Option.isNone(updated)) return yield* new OperatorNotFound({ email })
          const sessionsEnded = yield* repo.deleteSessionsOf(updated.value.id)
          yield* audit.record(byActor(actor, {
            action: "operator.disable",
            targetType: "operator",
            targetId: updated.value.id,
            detail: { email: updated.value.email, sessionsEnded }
          }))
          return { operator: updated.value, sessionsEnded }
        },
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die)
      ),

      /**
       * Sets the password with the setup link's token; the token is spent. The token is checked before the
       * password is hashed, and every attempt from the address counts until one succeeds.
       */
      completeSetup: Effect.fn("Operators.completeSetup")(
        function*(token: string, password: Redacted.Redacted, address: string) {
          const at = yield* now
          const rules = setupRules(address)
          yield* throttle.admit(rules, at).pipe(
            Effect.catchTag("AttemptThrottled", (refused) =>
              Effect.zipRight(
                setupFailed("throttled", address),
                Effect.fail(new SetupThrottled({ retryAfterSeconds: refused.retryAfterSeconds }))
              ))
          )
          const tokenHash = hashSecret(token)
          if (Option.isNone(yield* repo.findBySetupToken(tokenHash, at))) {
            yield* setupFailed("invalid token", address)
            return yield* new SetupTokenInvalid()
          }
          const passwordHash = yield* passwords.hash(Redacted.value(password))
          return yield* Effect.gen(function*() {
            // Spent meanwhile by a concurrent setup with the same token: only one sets the password.
            const done = yield* repo.completeSetup(tokenHash, passwordHash, at)
            if (Option.isNone(done)) return yield* new SetupTokenInvalid()
            yield* throttle.forgive(rules, at)
            yield* audit.record({
              operator: { id: done.value.id, email: done.value.email },
              action: "operator.setup",
              targetType: "operator",
              targetId: done.value.id,
              address
            })
            return done.value
          }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
        }
      )
    } as const
  }),
  dependencies: [OperatorsRepo.Default, Audit.Default, Passwords.Default, Throttle.Default]
}) {}
