/**
 * Operators: the people who may log in to the portal. Created by the CLI either with a password or
 * with a one-time setup link (valid 24 hours; only its token's hash is stored) on which they choose
 * one; listed; disabled, which ends their sessions at once. Every change is audited in its transaction.
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
import type { AuditEntry } from "./Audit.js"
import { Audit } from "./Audit.js"
import { OperatorsRepo } from "./OperatorsRepo.js"
import { hashPassword } from "./Passwords.js"

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

/** Who makes a change: an operator in the portal, or the CLI (`operator: null`, `detail.via = "cli"`). */
export type Actor = Pick<AuditEntry, "operator" | "address"> & { readonly via?: "cli" | undefined }

const auditDetail = (actor: Actor, detail: Record<string, unknown> = {}) =>
  actor.via === undefined ? detail : { ...detail, via: actor.via }

export class Operators extends Effect.Service<Operators>()("@pulsebridge/server/Operators", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* OperatorsRepo
    const audit = yield* Audit

    return {
      /**
       * Creates an operator with a password, or without one and with a setup token (answered once,
       * for the setup link).
       */
      create: Effect.fn("Operators.create")(
        function*(email: string, password: Redacted.Redacted | undefined, actor: Actor) {
          const at = new Date(yield* Clock.currentTimeMillis)
          const passwordHash = password === undefined ? null : yield* hashPassword(Redacted.value(password))
          const setupToken = password === undefined ? crypto.randomBytes(32).toString("base64url") : null
          const operator = yield* repo.insert({
            id: newId(),
            email: email.trim(),
            passwordHash,
            setupTokenHash: setupToken === null ? null : hashSecret(setupToken),
            setupExpiresAt: setupToken === null ? null : new Date(at.getTime() + Duration.toMillis(setupLinkValidity)),
            createdAt: at
          })
          yield* audit.record({
            ...actor,
            action: "operator.create",
            targetType: "operator",
            targetId: operator.id,
            detail: auditDetail(actor, { email: operator.email, setupLink: setupToken !== null })
          })
          return { operator, setupToken }
        },
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die)
      ),

      list: repo.list.pipe(Effect.withSpan("Operators.list")),

      /** Disables an operator and ends its sessions. */
      disable: Effect.fn("Operators.disable")(
        function*(email: string, actor: Actor) {
          const updated = yield* repo.setStatus(email.trim(), "Disabled")
          if (Option.isNone(updated)) return yield* new OperatorNotFound({ email })
          const sessionsEnded = yield* repo.deleteSessionsOf(updated.value.id)
          yield* audit.record({
            ...actor,
            action: "operator.disable",
            targetType: "operator",
            targetId: updated.value.id,
            detail: auditDetail(actor, { email: updated.value.email, sessionsEnded })
          })
          return { operator: updated.value, sessionsEnded }
        },
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die)
      ),

      /** Sets the password with the setup link's token; the token is spent. */
      completeSetup: Effect.fn("Operators.completeSetup")(
        function*(token: string, password: Redacted.Redacted, address: string) {
          const at = new Date(yield* Clock.currentTimeMillis)
          const passwordHash = yield* hashPassword(Redacted.value(password))
          const done = yield* repo.completeSetup(hashSecret(token), passwordHash, at)
          if (Option.isNone(done)) return yield* new SetupTokenInvalid()
          yield* audit.record({
            operator: { id: done.value.id, email: done.value.email },
            action: "operator.setup",
            targetType: "operator",
            targetId: done.value.id,
            address
          })
          return done.value
        },
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die)
      )
    } as const
  }),
  dependencies: [OperatorsRepo.Default, Audit.Default]
}) {}
