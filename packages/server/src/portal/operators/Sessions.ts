/**
 * Operators' sessions: the login with its growing delay after failures, the check of a session
 * cookie on every portal request, and the logout. The cookie holds a random token of which only the
 * hash is stored; the session's CSRF token is stored sealed (the pages ask for it again after a
 * reload). A session ends after `idleTimeout` without a request or `absoluteTimeout` after the login,
 * whichever comes first, and at once when its operator is disabled.
 *
 * A login attempt is counted as a failure of its address and of its email before its password is
 * checked (`Throttle`: the address waits up to 15 minutes, the email a few seconds); an attempt while
 * either waits is refused before the password is looked at, and a success forgets both counts. An
 * unknown email is checked against a dummy hash, so the answer takes as long and reads the same as for
 * a wrong password. The check itself waits its turn among the process's password hashes (`Passwords`).
 *
 * An operator with a second factor gets no session for its password: the login answers a challenge, a random
 * token of which the server keeps the hash for five minutes, and the second step trades it with a TOTP code or a
 * recovery code for the session. Each code attempt is admitted and counted by the same throttle as a password;
 * five wrong codes end the challenge.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { hashSecret } from "../../access/CredentialHash.js"
import { newId } from "../../platform/Ids.js"
import { SecretBox } from "../../platform/SecretBox.js"
import { traced } from "../../platform/Traced.js"
import { Audit } from "./Audit.js"
import type { OperatorRow } from "./OperatorsRepo.js"
import { OperatorsRepo } from "./OperatorsRepo.js"
import { dummyHash, Passwords, sameToken } from "./Passwords.js"
import { SecondFactor } from "./SecondFactor.js"
import { SecondFactorRepo } from "./SecondFactorRepo.js"
import { addressPolicy, delayOf, loginRules, Throttle } from "./Throttle.js"

export const sessionSettings = {
  idleTimeout: Duration.hours(12),
  absoluteTimeout: Duration.days(7),
  /** How stale `last_seen_at` may get before a request writes it again. */
  touchEvery: Duration.minutes(1),
  /** How long the login's second step may wait for its code. */
  challengeValidity: Duration.minutes(5),
  /** Wrong codes that end a challenge. */
  challengeFailures: 5
} as const

/** The challenge is unknown, used, past its five minutes or spent its wrong codes. */
export class ChallengeInvalid extends Data.TaggedError("ChallengeInvalid")<{}> {
  override get message() {
    return "This login has expired; log in again"
  }
}

export class WrongSecondFactor extends Data.TaggedError("WrongSecondFactor")<{}> {
  override get message() {
    return "The code is wrong or was used already"
  }
}

/** The one answer to a wrong email, a wrong password or a disabled operator. */
export class LoginRefused extends Data.TaggedError("LoginRefused")<{}> {
  override get message() {
    return "Wrong email or password"
  }
}

export class LoginThrottled extends Data.TaggedError("LoginThrottled")<{ readonly retryAfterSeconds: number }> {
  override get message() {
    return `Too many failed logins; try again in ${this.retryAfterSeconds} s`
  }
}

/** No session for this cookie, or it expired, or its operator is disabled. */
export class SessionInvalid extends Data.TaggedError("SessionInvalid")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

const newToken = () => crypto.randomBytes(32).toString("base64url")

/** The failing address's wait after `failures` failures, or none while they are few. */
export const delayAfter = (failures: number): Duration.Duration | undefined => delayOf(addressPolicy, failures)

export class Sessions extends Effect.Service<Sessions>()("@pulsebridge/server/Sessions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* OperatorsRepo
    const throttle = yield* Throttle
    const passwords = yield* Passwords
    const audit = yield* Audit
    const box = yield* SecretBox
    const secondFactor = yield* SecondFactor
    const factors = yield* SecondFactorRepo
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** Opens a session for the operator: the cookie's token and the CSRF token; its counts forgiven. */
    const open = (
      operator: OperatorRow,
      address: string,
      at: Date,
      rules: ReturnType<typeof loginRules>,
      detail: Record<string, unknown>
    ) =>
      Effect.gen(function*() {
        const token = newToken()
        const csrfToken = newToken()
        yield* Effect.gen(function*() {
          yield* throttle.forgive(rules, at)
          // Now and then is enough to keep the table small: a login is rare.
          yield* repo.deleteExpiredSessions(
            at,
            new Date(at.getTime() - Duration.toMillis(sessionSettings.idleTimeout))
          )
          yield* factors.deleteExpiredChallenges(at)
          yield* repo.insertSession({
            id: newId(),
            tokenHash: hashSecret(token),
            operatorId: operator.id,
            csrfTokenSealed: box.seal(csrfToken),
            now: at,
            expiresAt: new Date(at.getTime() + Duration.toMillis(sessionSettings.absoluteTimeout))
          })
          yield* repo.recordLogin(operator.id, at)
          yield* audit.record({
            operator: { id: operator.id, email: operator.email },
            action: "login",
            targetType: "operator",
            targetId: operator.id,
            detail,
            address
          })
        }).pipe(sql.withTransaction, Effect.orDie)
        const operatorNow = yield* repo.findById(operator.id)
        return { _tag: "Session" as const, token, csrfToken, operator: Option.getOrThrow(operatorNow) }
      })

    const failed = (email: string, address: string, reason: string) =>
      audit.record({ operator: null, action: "login.failed", detail: { email, reason }, address })

    return {
      /** Checks the email and password and opens a session: the cookie's token and the CSRF token. */
      login: traced("Sessions.login")(function*(email: string, password: Redacted.Redacted, address: string) {
        const at = yield* now
        const rules = loginRules(email, address)
        yield* passwords.checkRoom
        yield* throttle.admit(rules, at).pipe(
          Effect.catchTag("AttemptThrottled", (refused) =>
            Effect.zipRight(
              failed(email, address, "throttled"),
              Effect.fail(new LoginThrottled({ retryAfterSeconds: refused.retryAfterSeconds }))
            ))
        )
        const found = yield* repo.findByEmail(email.trim())
        const operator = Option.getOrUndefined(found)
        const hash = operator?.passwordHash ?? (yield* dummyHash)
        const matches = yield* passwords.verify(Redacted.value(password), hash)
        if (operator === undefined || operator.passwordHash === null || !matches || operator.status !== "Active") {
          const reason = operator === undefined
            ? "unknown email"
            : operator.passwordHash === null
            ? "no password set"
            : !matches
            ? "wrong password"
            : "operator disabled"
          // Counted already, when the attempt was admitted.
          yield* failed(email, address, reason)
          return yield* new LoginRefused()
        }
        if (operator.secondFactor) {
          // The password was right; the counts stay until the code is too.
          const challenge = newToken()
          const expiresAt = new Date(at.getTime() + Duration.toMillis(sessionSettings.challengeValidity))
          yield* factors.insertChallenge({
            id: newId(),
            tokenHash: hashSecret(challenge),
            operatorId: operator.id,
            expiresAt
          })
          return { _tag: "Challenge" as const, challenge, expiresAt }
        }
        return yield* open(operator, address, at, rules, {})
      }),

      /** The login's second step: a TOTP code or a recovery code for the challenge opens the session. */
      completeLogin: traced("Sessions.completeLogin")(function*(challenge: string, code: string, address: string) {
        const at = yield* now
        const found = yield* factors.findChallenge(hashSecret(challenge))
        if (Option.isNone(found) || found.value.expiresAt <= at) return yield* new ChallengeInvalid()
        const pending = found.value
        const rules = loginRules(pending.email, address)
        yield* throttle.admit(rules, at).pipe(
          Effect.catchTag("AttemptThrottled", (refused) =>
            Effect.zipRight(
              failed(pending.email, address, "throttled"),
              Effect.fail(new LoginThrottled({ retryAfterSeconds: refused.retryAfterSeconds }))
            ))
        )
        const operator = Option.getOrUndefined(yield* repo.findById(pending.operatorId))
        if (operator === undefined || operator.status !== "Active") {
          yield* factors.deleteChallenge(pending.id)
          return yield* new ChallengeInvalid()
        }
        const kind = yield* secondFactor.verify(operator.id, code, at)
        if (Option.isNone(kind)) {
          const failures = yield* factors.failChallenge(pending.id)
          if (failures >= sessionSettings.challengeFailures) yield* factors.deleteChallenge(pending.id)
          yield* failed(pending.email, address, "wrong second factor")
          return yield* new WrongSecondFactor()
        }
        // Used once: of two requests with one challenge, only one opens a session.
        if (!(yield* factors.deleteChallenge(pending.id))) return yield* new ChallengeInvalid()
        return yield* open(operator, address, at, rules, { secondFactor: kind.value })
      }),

      /** The session of a cookie's token, if it is live; last seen is written at most once a minute. */
      authenticate: traced("Sessions.authenticate")(function*(token: string) {
        if (token === "" || token.length > 200) return yield* new SessionInvalid({ reason: "Not logged in" })
        const found = yield* repo.findSession(hashSecret(token))
        if (Option.isNone(found)) return yield* new SessionInvalid({ reason: "Not logged in, or the session ended" })
        const session = found.value
        const at = yield* now
        const idleUntil = session.lastSeenAt.getTime() + Duration.toMillis(sessionSettings.idleTimeout)
        if (session.expiresAt <= at || idleUntil <= at.getTime()) {
          yield* repo.deleteSession(session.id)
          return yield* new SessionInvalid({ reason: "The session expired; log in again" })
        }
        if (session.status !== "Active") {
          return yield* new SessionInvalid({ reason: "The operator is disabled" })
        }
        if (at.getTime() - session.lastSeenAt.getTime() >= Duration.toMillis(sessionSettings.touchEvery)) {
          yield* repo.touchSession(session.id, at)
        }
        return session
      }),

      /** Whether `presented` is the session's CSRF token (constant time). */
      checkCsrf: traced("Sessions.checkCsrf")(function*(csrfTokenSealed: string, presented: string) {
        const csrf = yield* Effect.orDie(box.open(csrfTokenSealed))
        return sameToken(Redacted.value(csrf), presented)
      }),

      /** What the pages need of a live session: its operator and CSRF token. */
      describe: traced("Sessions.describe")(function*(sessionId: string, operatorId: string) {
        const sealed = yield* repo.csrfOf(sessionId)
        const operator = yield* repo.findById(operatorId)
        if (Option.isNone(sealed) || Option.isNone(operator)) {
          return yield* new SessionInvalid({ reason: "The session ended" })
        }
        const csrf = yield* Effect.orDie(box.open(sealed.value))
        return { operator: operator.value, csrfToken: Redacted.value(csrf) }
      }),

      logout: traced("Sessions.logout")(
        function*(session: { sessionId: string; operatorId: string; email: string }, address: string) {
          yield* Effect.gen(function*() {
            yield* repo.deleteSession(session.sessionId)
            yield* audit.record({
              operator: { id: session.operatorId, email: session.email },
              action: "logout",
              targetType: "operator",
              targetId: session.operatorId,
              address
            })
          }).pipe(sql.withTransaction, Effect.orDie)
        }
      )
    } as const
  }),
  dependencies: [
    OperatorsRepo.Default,
    Throttle.Default,
    Passwords.Default,
    Audit.Default,
    SecondFactor.Default,
    SecondFactorRepo.Default
  ]
}) {}
