/**
 * The API-key check of the app-scoped endpoints (1-6): the key's app and permissions become
 * `CurrentApp`; a user token, a missing or revoked key is a 401, a missing permission a 403.
 */
import { HttpServerRequest } from "@effect/platform"
import type { Permission } from "@pulsebridge/domain"
import { ApiKeyAuth, CurrentApp, Forbidden, Unauthorized } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { memoised, prefetchedCredential, presentedCredential } from "../http/Credentials.js"
import { ApiKeyPrefix, isWellFormed, UserTokenPrefix } from "../platform/CredentialHash.js"
import { Apps } from "./Apps.js"

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
      const app = isWellFormed(credential, ApiKeyPrefix)
        ? yield* apps.authenticate(credential, prefetchedCredential(request, "key", credential))
        : Option.none()
      if (Option.isNone(app)) return yield* new Unauthorized({ message: "Invalid or revoked API key" })
      return app.value
    }))
    return ApiKeyAuth.of({ apiKeyBearer: () => check, apiKeyHeader: () => check })
  })
)

/** Fails with 403 unless the API key carries `permission`. */
export const requirePermission = (permission: Permission) =>
  Effect.flatMap(CurrentApp, (app) =>
    app.permissions.includes(permission)
      ? Effect.succeed(app)
      : Effect.fail(new Forbidden({ message: `This API key lacks the permission ${permission}` })))
