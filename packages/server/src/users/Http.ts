/**
 * Handlers of the users group (endpoints 1-6).
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api, UserWithToken } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ApiKeyAuthLive, requirePermission } from "../apps/ApiKeyAuth.js"
import { SyncQueue } from "../sync/SyncQueue.js"
import { Users } from "./Users.js"

const encodeExisting = HttpServerResponse.schemaJson(UserWithToken)

export const UsersHttpLive = HttpApiBuilder.group(Api, "users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    const syncQueue = yield* SyncQueue
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const app = yield* requirePermission("users:write")
          const { created, token, user } = yield* users.create(app.appId, payload)
          const body = new UserWithToken({ ...user, token }, true)
          // Both outcomes share one schema, so the 200 is answered here rather than by the encoder.
          return created ? body : yield* Effect.orDie(encodeExisting(body, { status: 200 }))
        }))
      .handle("find", ({ urlParams }) =>
        Effect.flatMap(requirePermission("users:read"), (app) =>
          users.findByExternalId(app.appId, urlParams.external_user_id)))
      .handle("get", ({ path }) =>
        Effect.flatMap(requirePermission("users:read"), (app) =>
          users.get(app.appId, path.id)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(requirePermission("users:write"), (app) =>
          users.update(app.appId, path.id, payload)))
      .handle("delete", ({ path }) =>
        Effect.gen(function*() {
          const app = yield* requirePermission("users:write")
          yield* users.softDelete(app.appId, path.id)
          // Each connection's sync also checks the user before every window; this records why it stopped.
          yield* syncQueue.stopUser(path.id)
        }))
      .handle("rotateToken", ({ path }) =>
        Effect.flatMap(requirePermission("users:write"), (app) =>
          users.rotateToken(app.appId, path.id)).pipe(
            Effect.map((token) => ({ token }))
          ))
  })).pipe(Layer.provide(ApiKeyAuthLive))
