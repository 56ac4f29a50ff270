/**
 * The user-token check of the user-scoped endpoints: the token's user becomes `CurrentUser`; an
 * API key, a missing or revoked token, or a deleted user is a 401; another user's path a 403.
 */
import { CurrentUser, Forbidden, Unauthorized, UserTokenAuth } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Authentication } from "./Authentication.js"
import { ApiKeyPrefix, isWellFormed, McpTokenPrefix, mcpTokenRefused, UserTokenPrefix } from "./CredentialHash.js"
import { currentCaller } from "./Credentials.js"

const wrongType = "Wrong credential type: this endpoint needs a user token (pb_ut_...), not an API key"

/**
 * The check itself, once per request however many declared schemes or callers ask for it: the
 * upload route runs it before reading the form, the API's security middleware reuses its result.
 */
export class UserTokenCheck extends Effect.Service<UserTokenCheck>()("@pulsebridge/server/UserTokenCheck", {
  effect: Effect.gen(function*() {
    const authentication = yield* Authentication
    const check = Effect.flatMap(currentCaller, (caller) =>
      caller.checkOnce(
        "token",
        Effect.gen(function*() {
          const credential = caller.forUserToken
          if (credential === undefined && caller.headers["x-app-api-key"] !== undefined) {
            return yield* new Unauthorized({ message: wrongType })
          }
          if (credential === undefined) {
            return yield* new Unauthorized({
              message: "Missing credential: send the user's token as `Authorization: Bearer pb_ut_...`"
            })
          }
          if (credential.startsWith(ApiKeyPrefix)) return yield* new Unauthorized({ message: wrongType })
          if (credential.startsWith(McpTokenPrefix)) return yield* new Unauthorized({ message: mcpTokenRefused })
          const user = isWellFormed(credential, UserTokenPrefix)
            ? yield* authentication.userToken(credential, {
              hash: caller.hashOf(credential),
              prefetched: caller.foundFor("token", credential)
            })
            : Option.none()
          if (Option.isNone(user)) {
            return yield* new Unauthorized({ message: "Invalid or revoked user token, or the user was deleted" })
          }
          return user.value
        })
      ))
    return { check }
  }),
  dependencies: [Authentication.Default]
}) {}

export const UserTokenAuthLive = Layer.effect(
  UserTokenAuth,
  Effect.map(
    UserTokenCheck,
    ({ check }) => UserTokenAuth.of({ userTokenBearer: () => check, userTokenHeader: () => check })
  )
).pipe(Layer.provide(UserTokenCheck.Default))

/** Fails with 403 unless the user token belongs to the user of the path. */
export const requireSelf = (userId: string) =>
  Effect.flatMap(CurrentUser, (user) =>
    user.userId === userId
      ? Effect.succeed(user)
      : Effect.fail(new Forbidden({ message: "This user token may only access its own user" })))
