/**
 * Operators' second factor: TOTP (RFC 6238) with SHA-1, 6 digits and 30-second steps, what authenticator apps
 * expect of an `otpauth://` URI; a code of the step before or after is accepted too, for clocks a little apart.
 * The secret is sealed with `SECRET_KEY` as provider secrets are. An enrolment takes effect only once a code of its
 * secret is confirmed, and answers ten recovery codes, each good once, stored as hashes. No code is accepted twice:
 * each use records its time step, and a code of that step or an earlier one is refused after it.
 *
 * An operator-wide setting requires it: while on, `PortalAuth` lets an operator without it do nothing but set it
 * up, and it cannot be turned off.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import * as OTPAuth from "otpauth"
import { hashSecret } from "../../access/CredentialHash.js"
import { SecretBox } from "../../platform/SecretBox.js"
import { traced } from "../../platform/Traced.js"
import type { AccountHolder } from "./Account.js"
import { AccountThrottled } from "./Account.js"
import type { Actor } from "./Audit.js"
import { Audit, byActor } from "./Audit.js"
import { SecondFactorRepo } from "./SecondFactorRepo.js"
import { loginRules, Throttle } from "./Throttle.js"

export const totpSettings = { issuer: "PulseBridge", algorithm: "SHA1", digits: 6, period: 30, window: 1 } as const

export const recoveryCodeCount = 10

const totpFor = (secretBase32: string, label: string) =>
  new OTPAuth.TOTP({
    issuer: totpSettings.issuer,
    label,
    algorithm: totpSettings.algorithm,
    digits: totpSettings.digits,
    period: totpSettings.period,
    secret: OTPAuth.Secret.fromBase32(secretBase32)
  })

/** The time step of the code `code` of the secret at `ms` (within a step either side), or undefined. */
export const stepOfCode = (secretBase32: string, code: string, ms: number): number | undefined => {
  if (!/^\d{6}$/.test(code)) return undefined
  const delta = totpFor(secretBase32, "").validate({ token: code, timestamp: ms, window: totpSettings.window })
  return delta === null ? undefined : Math.floor(ms / 1000 / totpSettings.period) + delta
}

/** A recovery code as typed, without spaces or dashes and in lower case. */
export const normaliseRecoveryCode = (code: string) => code.replace(/[\s-]/g, "").toLowerCase()

const alphabet = "abcdefghjkmnpqrstuvwxyz23456789"

/**
 * Ten new recovery codes, `xxxx-xxxx-xxxx-xxxx` from 31 letters and digits that cannot be mistaken for one another:
 * about 79 bits each, so that their stored SHA-256 hashes cannot be searched back to them.
 */
export const newRecoveryCodes = () =>
  Array.from({ length: recoveryCodeCount }, () => {
    const chars = Array.from({ length: 16 }, () => alphabet[crypto.randomInt(alphabet.length)]).join("")
    return chars.match(/.{4}/g)!.join("-")
  })

export class SecondFactorOn extends Data.TaggedError("SecondFactorOn")<{}> {
  override get message() {
    return "The second factor is on already; turn it off first to set up another"
  }
}

export class NoEnrolment extends Data.TaggedError("NoEnrolment")<{}> {
  override get message() {
    return "Begin setting up the second factor first"
  }
}

export class WrongCode extends Data.TaggedError("WrongCode")<{}> {
  override get message() {
    return "The code is wrong or was used already"
  }
}

export class SecondFactorRequired extends Data.TaggedError("SecondFactorRequired")<{}> {
  override get message() {
    return "Every operator must have a second factor: it cannot be turned off while an admin requires it"
  }
}

export class SecondFactor extends Effect.Service<SecondFactor>()("@pulsebridge/server/SecondFactor", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* SecondFactorRepo
    const throttle = yield* Throttle
    const audit = yield* Audit
    const box = yield* SecretBox
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    const open = (sealed: string) => Effect.map(Effect.orDie(box.open(sealed)), Redacted.value)

    /** A wrong code counts as a failed login of the operator's email and the address. */
    const admit = (holder: AccountHolder, address: string, at: Date) =>
      throttle.admit(loginRules(holder.email, address), at).pipe(
        Effect.catchTag(
          "AttemptThrottled",
          (refused) => Effect.fail(new AccountThrottled({ retryAfterSeconds: refused.retryAfterSeconds }))
        )
      )

    /**
     * Whether `code` is a current TOTP code of the operator not used before, or one of its unused recovery codes
     * (then spent); which it was.
     */
    const verify = traced("SecondFactor.verify")(function*(operatorId: string, code: string, at: Date) {
      const typed = normaliseRecoveryCode(code)
      if (/^\d{6}$/.test(typed)) {
        const sealed = (yield* repo.totpOf(operatorId)).pipe(Option.flatMapNullable((row) => row.totpSecretSealed))
        if (Option.isNone(sealed)) return Option.none()
        const step = stepOfCode(yield* open(sealed.value), typed, at.getTime())
        if (step === undefined || !(yield* repo.claimStep(operatorId, step))) return Option.none()
        return Option.some("totp" as const)
      }
      return (yield* repo.spendRecoveryCode(operatorId, hashSecret(typed), at))
        ? Option.some("recovery code" as const)
        : Option.none()
    })

    const who = (holder: AccountHolder) => ({ id: holder.operatorId, email: holder.email })

    return {
      verify,

      required: repo.secondFactorRequired,

      /** Turns the operator-wide requirement on or off. */
      setRequired: traced("SecondFactor.setRequired")(
        function*(required: boolean, actor: Actor) {
          yield* repo.setSecondFactorRequired(required, yield* now)
          yield* audit.record(byActor(actor, { action: "settings.update", detail: { secondFactorRequired: required } }))
          return required
        },
        sql.withTransaction,
        Effect.orDie
      ),

      /** A new secret for the operator, pending until a code confirms it: as text, as a URI and as a QR code. */
      begin: traced("SecondFactor.begin")(function*(holder: AccountHolder) {
        const current = yield* repo.totpOf(holder.operatorId)
        if (Option.isSome(current) && current.value.totpSecretSealed !== null) return yield* new SecondFactorOn()
        const secret = new OTPAuth.Secret({ size: 20 }).base32
        yield* repo.setPending(holder.operatorId, box.seal(secret))
        const otpauthUri = totpFor(secret, holder.email).toString()
        // The QR code library is loaded on the first enrolment, not by every process that opens the data services.
        const qrSvg = yield* Effect.promise(() =>
          import("qrcode").then(({ default: QRCode }) =>
            QRCode.toString(otpauthUri, { type: "svg", errorCorrectionLevel: "M", margin: 2 })
          )
        )
        return { secret, otpauthUri, qrSvg }
      }),

      /** The pending secret takes effect when `code` is one of its codes; ten new recovery codes, answered once. */
      confirm: traced("SecondFactor.confirm")(function*(holder: AccountHolder, code: string, address: string) {
        const at = yield* now
        yield* admit(holder, address, at)
        const pending = (yield* repo.totpOf(holder.operatorId)).pipe(
          Option.flatMapNullable((row) => row.totpPendingSealed)
        )
        if (Option.isNone(pending)) return yield* new NoEnrolment()
        const step = stepOfCode(yield* open(pending.value), normaliseRecoveryCode(code), at.getTime())
        if (step === undefined) return yield* new WrongCode()
        const codes = newRecoveryCodes()
        yield* Effect.gen(function*() {
          yield* throttle.forgive(loginRules(holder.email, address), at)
          yield* repo.enable(holder.operatorId, pending.value, step, at)
          yield* repo.replaceRecoveryCodes(holder.operatorId, codes.map((c) => hashSecret(normaliseRecoveryCode(c))))
          yield* audit.record({
            operator: who(holder),
            action: "operator.secondFactor.enable",
            targetType: "operator",
            targetId: holder.operatorId,
            address
          })
        }).pipe(sql.withTransaction, Effect.orDie)
        return codes
      }),

      /** Turns the operator's second factor off, with a current code or a recovery code. */
      disable: traced("SecondFactor.disable")(function*(holder: AccountHolder, code: string, address: string) {
        if (yield* repo.secondFactorRequired) return yield* new SecondFactorRequired()
        const at = yield* now
        yield* admit(holder, address, at)
        if (Option.isNone(yield* verify(holder.operatorId, code, at))) return yield* new WrongCode()
        yield* Effect.gen(function*() {
          yield* throttle.forgive(loginRules(holder.email, address), at)
          yield* repo.disable(holder.operatorId)
          yield* repo.replaceRecoveryCodes(holder.operatorId, [])
          yield* audit.record({
            operator: who(holder),
            action: "operator.secondFactor.disable",
            targetType: "operator",
            targetId: holder.operatorId,
            address
          })
        }).pipe(sql.withTransaction, Effect.orDie)
      })
    } as const
  }),
  dependencies: [SecondFactorRepo.Default, Throttle.Default, Audit.Default]
}) {}
