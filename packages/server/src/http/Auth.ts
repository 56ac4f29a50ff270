/**
 * The two credential checks. Each reads `Authorization: Bearer` first and the legacy header
 * second; both declared schemes resolve through the same check, memoised per request so a
 * failed bearer attempt does not look the credential up twice.
 */
import { HttpServerRequest } from "@effect/platform"
import type { Permission } from "@pulsebridge/domain"
import { ApiKeyAuth, CurrentApp, CurrentUser, Forbidden, Unauthorized, UserTokenAuth } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Apps } from "../Apps.js"
import { ApiKeyPrefix, isWellFormed, UserTokenPrefix } from "../platform/CredentialHash.js"
import { Users } from "../Users.js"

/** The presented credential: the bearer token, else the legacy header's value. */
export const presentedCredential = (
  headers: Readonly<Record<string, string | undefined>>,
  legacyHeader: string
): string | undefined => {
  const authorization = headers["authorization"]
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (match !== null) return match[1]
  }
  const legacy = headers[legacyHeader]?.trim()
  return legacy === undefined || legacy === "" ? undefined : legacy
}

const memoised = <A>(check: Effect.Effect<A, Unauthorized, HttpServerRequest.HttpServerRequest>) => {
  const results = new WeakMap<object, Exit.Exit<A, Unauthorized>>()
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const key = request.source as object
    const hit = results.get(key)
    if (hit !== undefined) return hit
    return Effect.exit(check).pipe(
      Effect.tap((exit) => Effect.sync(() => results.set(key, exit))),
      Effect.flatten
    )
  })
}

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const apps = yield* Apps
    const check = memoised(Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const credential = presentedCredential(request.headers, "x-app-api-key")
      if (credential === undefined && request.headers["x-user-token"] !== undefined) {
        return yield* new Unauthorized({
          message: "Wrong credential type: this endpoint needs an API key (pb_sk_...), not a user token"
        })
      }
      if (credential === undefined) {
        return yield* new Unauthorized({
          message: "Missing credential: send the app's API key as `Authorization: Bearer pb_sk_...`"
        })
      }
      if (credential.startsWith(UserTokenPrefix)) {
        return yield* new Unauthorized({
          message: "Wrong credential type: this endpoint needs an API key (pb_sk_...), not a user token"
        })
      }
      const app = isWellFormed(credential, ApiKeyPrefix) ? yield* apps.authenticate(credential) : Option.none()
      if (Option.isNone(app)) return yield* new Unauthorized({ message: "Invalid or revoked API key" })
      return app.value
    }))
    return ApiKeyAuth.of({ apiKeyBearer: () => check, apiKeyHeader: () => check })
  })
)

export const UserTokenAuthLive = Layer.effect(
  UserTokenAuth,
  Effect.gen(function*() {
    const users = yield* Users
    const check = memoised(Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const credential = presentedCredential(request.headers, "x-user-token")
      if (credential === undefined && request.headers["x-app-api-key"] !== undefined) {
        return yield* new Unauthorized({
          message: "Wrong credential type: this endpoint needs a user token (pb_ut_...), not an API key"
        })
      }
      if (credential === undefined) {
        return yield* new Unauthorized({
          message: "Missing credential: send the user's token as `Authorization: Bearer pb_ut_...`"
        })
      }
      if (credential.startsWith(ApiKeyPrefix)) {
        return yield* new Unauthorized({
          message: "Wrong credential type: this endpoint needs a user token (pb_ut_...), not an API key"
        })
      }
      const user = isWellFormed(credential, UserTokenPrefix) ? yield* users.authenticate(credential) : Option.none()
      if (Option.isNone(user)) {
        return yield* new Unauthorized({ message: "Invalid or revoked user token, or the user was deleted" })
      }
      return user.value
    }))
    return UserTokenAuth.of({ userTokenBearer: () => check, userTokenHeader: () => check })
  })
)

/** Fails with 403 unless the API key carries `permission`. */
export const requirePermission = (permission: Permission) =>
  Effect.flatMap(CurrentApp, (app) =>
    app.permissions.includes(permission)
      ? Effect.succeed(app)
      : Effect.fail(new Forbidden({ message: `This API key lacks the permission ${permission}` })))

/** Fails with 403 unless the user token belongs to the user of the path. */
export const requireSelf = (userId: string) =>
  Effect.flatMap(CurrentUser, (user) =>
    user.userId === userId
      ? Effect.succeed(user)
      : Effect.fail(new Forbidden({ message: "This user token may only access its own user" })))
