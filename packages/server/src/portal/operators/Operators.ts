/**
 * Operators: the people who may log in to the portal, each an `admin` or a `viewer`. Created by an admin in
 * the portal or by the CLI, either with a password or with a one-time setup link (valid 24 hours; only its
 * token's hash is stored) on which they choose one; listed; given another role; disabled, which ends their
 * sessions at once, and enabled again; their password reset (a new setup link, their sessions ended). The
 * last active admin can be neither demoted nor disabled. Every change is audited in its transaction.
 *
 * A setup attempt is cheap until its token is known good: the token's hash is looked up first, and only
 * then is the password hashed. Failed attempts are audited and throttled per client address.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { OperatorRole } from "@pulsebridge/portal/api"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { hashSecret } from "../../access/CredentialHash.js"
import { newId } from "../../platform/Ids.js"
import { traced } from "../../platform/Traced.js"
import type { Actor } from "./Audit.js"
import { Audit, byActor } from "./Audit.js"
import type { OperatorRow } from "./OperatorsRepo.js"
import { OperatorsRepo } from "./OperatorsRepo.js"
import { Passwords } from "./Passwords.js"
import { setupRules, Throttle } from "./Throttle.js"

export { EmailTaken, type OperatorRow } from "./OperatorsRepo.js"

export const setupLinkValidity = Duration.hours(24)

const newSetupToken = () => crypto.randomBytes(32).toString("base64url")

/** An operator named by its email (the CLI) or its id (the portal). */
export type OperatorRef = { readonly email: string } | { readonly id: string }

export class OperatorNotFound extends Data.TaggedError("OperatorNotFound")<{ readonly ref: OperatorRef }> {
  override get message() {
    return "email" in this.ref
      ? `no operator with the email ${this.ref.email}`
      : `no operator with the id ${this.ref.id}`
  }
}

/** The change would leave no active admin. */
export class LastAdmin extends Data.TaggedError("LastAdmin")<{ readonly email: string }> {
  override get message() {
    return `${this.email} is the last active admin: make another operator an admin first`
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

    const insert = traced("Operators.insert")(
      function*(
        email: string,
        passwordHash: string | null,
        setupToken: string | null,
        role: OperatorRole,
        actor: Actor
      ) {
        const at = yield* now
        const operator = yield* repo.insert({
          id: newId(),
          email: email.trim(),
          passwordHash,
          setupTokenHash: setupToken === null ? null : hashSecret(setupToken),
          setupExpiresAt: setupToken === null ? null : new Date(at.getTime() + Duration.toMillis(setupLinkValidity)),
          role,
          createdAt: at
        })
        yield* audit.record(byActor(actor, {
          action: "operator.create",
          targetType: "operator",
          targetId: operator.id,
          detail: { email: operator.email, role, setupLink: setupToken !== null }
        }))
        return { operator, setupToken }
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    const find = (ref: OperatorRef) =>
      Effect.flatMap(
        "email" in ref
          ? Effect.map(repo.findByEmail(ref.email.trim()), Option.map(({ passwordHash: _, ...row }) => row))
          : repo.findById(ref.id),
        Option.match({ onNone: () => Effect.fail(new OperatorNotFound({ ref })), onSome: Effect.succeed })
      )

    /** Fails when `operator` is the only active admin (the admins' rows locked until the transaction ends). */
    const notLastAdmin = (operator: OperatorRow) =>
      Effect.gen(function*() {
        const admins = yield* repo.lockActiveAdmins
        if (admins.length === 1 && admins[0] === operator.id) return yield* new LastAdmin({ email: operator.email })
      })

    /** A change of one operator in one transaction, audited with `detail`. */
    const change = <A extends { readonly operator: OperatorRow }, E>(
      name: string,
      action: string,
      apply: (operator: OperatorRow) => Effect.Effect<A, E>,
      detail: (before: OperatorRow, done: A) => Record<string, unknown>
    ) =>
      Effect.fn(name)(
        function*(ref: OperatorRef, actor: Actor) {
          const before = yield* find(ref)
          const done = yield* apply(before)
          yield* audit.record(byActor(actor, {
            action,
            targetType: "operator",
            targetId: before.id,
            detail: { email: before.email, ...detail(before, done) }
          }))
          return done
        },
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die)
      )

    const updated = (id: string, set: Record<string, unknown>) => Effect.map(repo.update(id, set), Option.getOrThrow)

    /** A failed setup attempt, in the audit log with its address (never its token). */
    const setupFailed = (reason: string, address: string) =>
      audit.record({ operator: null, action: "operator.setup.failed", detail: { reason }, address })

    return {
      /**
       * Creates an operator with a password, or without one and with a setup token (answered once,
       * for the setup link).
       */
      create: traced("Operators.create")(
        function*(email: string, password: Redacted.Redacted | undefined, actor: Actor, role: OperatorRole = "admin") {
          // Hashed before the transaction: no connection is held while scrypt runs.
          const passwordHash = password === undefined ? null : yield* passwords.hash(Redacted.value(password))
          const setupToken = password === undefined ? newSetupToken() : null
          return yield* insert(email, passwordHash, setupToken, role, actor)
        }
      ),

      list: repo.list.pipe(Effect.withSpan("Operators.list")),

      /** Disables an operator and ends its sessions; never the last active admin. */
      disable: change(
        "Operators.disable",
        "operator.disable",
        (operator) =>
          Effect.gen(function*() {
            yield* notLastAdmin(operator)
            const row = yield* updated(operator.id, { status: "Disabled" })
            return { operator: row, sessionsEnded: yield* repo.deleteSessionsOf(operator.id) }
          }),
        (_, done) => ({ sessionsEnded: done.sessionsEnded })
      ),

      /** Lets a disabled operator log in again (with the password it had). */
      enable: change(
        "Operators.enable",
        "operator.enable",
        (operator) => Effect.map(updated(operator.id, { status: "Active" }), (row) => ({ operator: row })),
        () => ({})
      ),

      /** Gives an operator another role; the last active admin stays one. */
      setRole: (ref: OperatorRef, role: OperatorRole, actor: Actor) =>
        change(
          "Operators.setRole",
          "operator.role",
          (operator) =>
            Effect.gen(function*() {
              if (role !== "admin") yield* notLastAdmin(operator)
              return { operator: yield* updated(operator.id, { role }) }
            }),
          (before) => ({ from: before.role, to: role })
        )(ref, actor),

      /** Turns the operator's second factor off (its recovery codes too): it logs in with its password alone. */
      resetSecondFactor: change(
        "Operators.resetSecondFactor",
        "operator.secondFactor.reset",
        (operator) =>
          Effect.gen(function*() {
            yield* repo.deleteRecoveryCodes(operator.id)
            const row = yield* updated(operator.id, {
              totpSecretSealed: null,
              totpPendingSealed: null,
              totpEnabledAt: null,
              totpLastStep: null
            })
            return { operator: row }
          }),
        () => ({})
      ),

      /**
       * Forgets the operator's password and answers a new one-time setup link (valid 24 hours) on which it
       * chooses another; its sessions end at once.
       */
      resetPassword: change(
        "Operators.resetPassword",
        "operator.password.reset",
        (operator) =>
          Effect.gen(function*() {
            const at = yield* now
            const setupToken = newSetupToken()
            const row = yield* updated(operator.id, {
              passwordHash: null,
              setupTokenHash: hashSecret(setupToken),
              setupExpiresAt: new Date(at.getTime() + Duration.toMillis(setupLinkValidity))
            })
            return { operator: row, setupToken, sessionsEnded: yield* repo.deleteSessionsOf(operator.id) }
          }),
        (_, done) => ({ sessionsEnded: done.sessionsEnded })
      ),

      /**
       * Sets the password with the setup link's token; the token is spent. The token is checked before the
       * password is hashed, and every attempt from the address counts until one succeeds.
       */
      completeSetup: traced("Operators.completeSetup")(
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
