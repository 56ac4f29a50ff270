/** The portal's account group: the signed-in operator changes its own password and second factor. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { BadRequest, Conflict, TooManyRequests } from "@pulsebridge/domain"
import { CurrentOperator, RecoveryCodes, TotpEnrolment } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ServedApi } from "../ServedApi.js"
import { Account } from "./Account.js"
import { requestAddress } from "./Audit.js"
import { SecondFactor } from "./SecondFactor.js"

const conflict = (error: { readonly message: string }) => Effect.fail(new Conflict({ message: error.message }))
const badRequest = (error: { readonly message: string }) => Effect.fail(new BadRequest({ message: error.message }))

/** A 429 with `Retry-After`, as the login answers it. */
const tooManyRequests = (error: { readonly message: string; readonly retryAfterSeconds: number }) =>
  Effect.succeed(HttpServerResponse.unsafeJson(
    new TooManyRequests({ message: error.message, retryAfterSeconds: error.retryAfterSeconds }),
    { status: 429, headers: { "retry-after": String(error.retryAfterSeconds) } }
  ))

export const AccountHttpLive = HttpApiBuilder.group(ServedApi, "portalAccount", (handlers) =>
  Effect.gen(function*() {
    const account = yield* Account
    const secondFactor = yield* SecondFactor
    return handlers
      .handle("beginSecondFactor", () =>
        Effect.flatMap(CurrentOperator, secondFactor.begin).pipe(
          Effect.map((enrolment) => new TotpEnrolment(enrolment)),
          Effect.catchTags({ SecondFactorOn: conflict })
        ))
      .handle("confirmSecondFactor", ({ payload }) =>
        Effect.gen(function*() {
          const done = yield* secondFactor.confirm(yield* CurrentOperator, payload.code, yield* requestAddress).pipe(
            Effect.catchTags({ NoEnrolment: badRequest, WrongCode: badRequest, AccountThrottled: tooManyRequests })
          )
          return HttpServerResponse.isServerResponse(done) ? done : new RecoveryCodes({ recoveryCodes: done })
        }))
      .handle("disableSecondFactor", ({ payload }) =>
        Effect.gen(function*() {
          const done = yield* secondFactor.disable(yield* CurrentOperator, payload.code, yield* requestAddress).pipe(
            Effect.catchTags({
              WrongCode: badRequest,
              SecondFactorRequired: conflict,
              AccountThrottled: tooManyRequests
            })
          )
          if (HttpServerResponse.isServerResponse(done)) return done
        }))
      .handle("changePassword", ({ payload }) =>
        Effect.gen(function*() {
          const holder = yield* CurrentOperator
          const done = yield* account.changePassword(
            holder,
            Redacted.make(payload.currentPassword),
            Redacted.make(payload.newPassword),
            yield* requestAddress
          ).pipe(Effect.catchTags({
            WrongPassword: badRequest,
            AccountThrottled: tooManyRequests,
            PasswordHashingBusy: tooManyRequests
          }))
          if (HttpServerResponse.isServerResponse(done)) return done
        }))
  }))
