/**
 * The API-key check of the app-scoped endpoints (1-6 and the webhook endpoints): the key's app and
 * permissions become `CurrentApp`; a user token, a missing or revoked key is a 401, a missing permission
 * a 403. The check runs once per request (`Caller`).
 */
import { ApiKeyAuth, CurrentApp, Forbidden, Unauthorized } from "@pulsebridge/domain"
import type { Permission } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Authentication } from "./Authentication.js"
import { ApiKeyPrefix, isWellFormed, McpTokenPrefix, mcpTokenRefused, UserTokenPrefix } from "./CredentialHash.js"
import { currentCaller } from "./Credentials.js"

const wrongType = "Wrong credential type: this endpoint needs an API key (pb_sk_...), not a user token"

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const authentication = yield* Authentication
    const check = Effect.flatMap(currentCaller, (caller) =>
      caller.checkOnce(
        "key",
        Effect.gen(function*() {
          const credential = caller.forApiKey
          if (credential === undefined && caller.headers["x-user-token"] !== undefined) {
            return yield* new Unauthorized({ message: wrongType })
          }
          if (credential === undefined) {
            return yield* new Unauthorized({
              message: "Missing credential: send the app's API key as `Authorization: Bearer pb_sk_...`"
            })
          }
          if (credential.startsWith(UserTokenPrefix)) return yield* new Unauthorized({ message: wrongType })
          if (credential.startsWith(McpTokenPrefix)) return yield* new Unauthorized({ message: mcpTokenRefused })
          const app = isWellFormed(credential, ApiKeyPrefix)
            ? yield* authentication.apiKey(credential, {
              hash: caller.hashOf(credential),
              prefetched: caller.foundFor("key", credential)
            })
            : Option.none()
          if (Option.isNone(app)) return yield* new Unauthorized({ message: "Invalid or revoked API key" })
          return app.value
        })
      ))
    return ApiKeyAuth.of({ apiKeyBearer: () => check, apiKeyHeader: () => check })
  })
).pipe(Layer.provide(Authentication.Default))

/** Fails with 403 unless the API key carries `permission`. */
export const requirePermission = (permission: Permission) =>
  Effect.flatMap(CurrentApp, (app) =>
    app.permissions.includes(permission)
      ? Effect.succeed(app)
      : Effect.fail(new Forbidden({ message: `This API key lacks the permission ${permission}` })))
