/**
 * The portal's session endpoints: login (sets the cookie, answers the CSRF token), the one-time setup
 * of a password, the current session, and logout (ends the session and clears the cookie).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { BadRequest, TooManyRequests, Unauthorized } from "@pulsebridge/domain"
import {
  CurrentOperator,
  Operator,
  PortalSession,
  SecondFactorChallenge,
  sessionCookieName,
  SessionState
} from "@pulsebridge/portal/api"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ServerBases } from "../../platform/ServerBases.js"
import { ServerConfig } from "../../platform/ServerConfig.js"
import { ServedApi } from "../ServedApi.js"
import { requestAddress } from "./Audit.js"
import { Operators } from "./Operators.js"
import type { OperatorRow } from "./OperatorsRepo.js"
import { SecondFactor } from "./SecondFactor.js"
import { Sessions, sessionSettings } from "./Sessions.js"

const cookieOptions = {
  httpOnly: true,
  secure: true,
  sameSite: "strict",
  path: "/portal"
} as const

export const toOperator = (row: OperatorRow) => new Operator(row)

/**
 * A 429 answered here rather than failed: the error body is the contract's, plus the `Retry-After` header. The
 * login page counts down from `retryAfterSeconds`.
 */
const tooManyRequests = (error: { readonly message: string; readonly retryAfterSeconds: number }) =>
  Effect.succeed(HttpServerResponse.unsafeJson(
    new TooManyRequests({ message: error.message, retryAfterSeconds: error.retryAfterSeconds }),
    { status: 429, headers: { "retry-after": String(error.retryAfterSeconds) } }
  ))

export const SessionHttpLive = HttpApiBuilder.group(ServedApi, "portalSession", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const operators = yield* Operators
    const config = yield* ServerConfig
    const bases = yield* ServerBases
    const secondFactor = yield* SecondFactor
    const sessionOf = (operator: OperatorRow, csrfToken: string) =>
      Effect.map(secondFactor.required, (secondFactorRequired) =>
        new PortalSession({
          operator: toOperator(operator),
          csrfToken,
          secondFactorRequired,
          sandbox: config.sandbox,
          publicUrl: bases.publicBase
        }))
    /** The session's cookie set on the answer, and the session. */
    const opened = (session: { token: string; csrfToken: string; operator: OperatorRow }) =>
      Effect.gen(function*() {
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.orDie(HttpServerResponse.setCookie(response, sessionCookieName, session.token, {
            ...cookieOptions,
            maxAge: sessionSettings.absoluteTimeout
          }))
        )
        return yield* sessionOf(session.operator, session.csrfToken)
      })
    return handlers
      .handle("login", ({ payload }) =>
        Effect.gen(function*() {
          const address = yield* requestAddress
          const done = yield* sessions.login(payload.email, Redacted.make(payload.password), address).pipe(
            Effect.catchTags({
              LoginRefused: (error) => Effect.fail(new Unauthorized({ message: error.message })),
              LoginThrottled: tooManyRequests,
              PasswordHashingBusy: tooManyRequests
            })
          )
          if (HttpServerResponse.isServerResponse(done)) return done
          if (done._tag === "Challenge") {
            return new SecondFactorChallenge({ challenge: done.challenge, expiresAt: done.expiresAt })
          }
          return yield* opened(done)
        }))
      .handle("loginSecondFactor", ({ payload }) =>
        Effect.gen(function*() {
          const address = yield* requestAddress
          const done = yield* sessions.completeLogin(payload.challenge, payload.code, address).pipe(
            Effect.catchTags({
              ChallengeInvalid: (error) => Effect.fail(new Unauthorized({ message: error.message })),
              WrongSecondFactor: (error) => Effect.fail(new Unauthorized({ message: error.message })),
              LoginThrottled: tooManyRequests
            })
          )
          if (HttpServerResponse.isServerResponse(done)) return done
          return yield* opened(done)
        }))
      .handle("setup", ({ payload }) =>
        Effect.gen(function*() {
          const address = yield* requestAddress
          const done = yield* operators.completeSetup(payload.token, Redacted.make(payload.password), address).pipe(
            Effect.catchTags({
              SetupTokenInvalid: (error) => Effect.fail(new BadRequest({ message: error.message })),
              SetupThrottled: tooManyRequests,
              PasswordHashingBusy: tooManyRequests
            })
          )
          if (HttpServerResponse.isServerResponse(done)) return done
        }))
      .handle("session", () =>
        Effect.gen(function*() {
          const current = yield* CurrentOperator
          const described = yield* sessions.describe(current.sessionId, current.operatorId).pipe(
            Effect.catchTag("SessionInvalid", (error) => Effect.fail(new Unauthorized({ message: error.message })))
          )
          return yield* sessionOf(described.operator, described.csrfToken)
        }))
      .handle("current", () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const token = request.cookies[sessionCookieName]
          if (token === undefined || token === "") return new SessionState({ session: null })
          const unauthorized = (error: { readonly message: string }) =>
            Effect.fail(new Unauthorized({ message: error.message }))
          const session = yield* sessions.authenticate(token).pipe(Effect.catchTag("SessionInvalid", unauthorized))
          const described = yield* sessions.describe(session.id, session.operatorId).pipe(
            Effect.catchTag("SessionInvalid", unauthorized)
          )
          return new SessionState({ session: yield* sessionOf(described.operator, described.csrfToken) })
        }))
      .handle("logout", () =>
        Effect.gen(function*() {
          const current = yield* CurrentOperator
          yield* sessions.logout(current, yield* requestAddress)
          yield* HttpApp.appendPreResponseHandler((_request, response) =>
            Effect.orDie(HttpServerResponse.setCookie(response, sessionCookieName, "", {
              ...cookieOptions,
              maxAge: Duration.zero,
              expires: new Date(0)
            }))
          )
        }))
  }))
