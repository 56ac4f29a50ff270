/**
 * Handlers of the users group (endpoints 1-6, erasure and export). The service's errors become the
 * contract's here: an unknown user is a 404, a deleted one a 400 on rotate-token.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, BadRequest, NotFound, UserWithToken } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ApiKeyAuthLive, requirePermission } from "../access/ApiKeyAuth.js"
import { onlyServices } from "../platform/GroupContext.js"
import { SyncQueue } from "../sync/SyncQueue.js"
import { Erasure } from "./Erasure.js"
import { UserExport } from "./Export.js"
import type { ExternalUserNotFound, UserInactive, UserNotFound, UserNotFoundForErasure } from "./Users.js"
import { Users } from "./Users.js"

const encodeExisting = HttpServerResponse.schemaJson(UserWithToken)

const notFound = (error: UserNotFound | ExternalUserNotFound | UserNotFoundForErasure) =>
  Effect.fail(new NotFound({ message: error.message }))

const badRequest = (error: UserInactive) => Effect.fail(new BadRequest({ message: error.message }))

const usersGroup = HttpApiBuilder.group(Api, "users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    const syncQueue = yield* SyncQueue
    const erasure = yield* Erasure
    const exporter = yield* UserExport
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const app = yield* requirePermission("users:write")
          const { created, stoppedSyncs, token, user } = yield* users.create(app.appId, payload)
          // A reactivated user's connections sync now rather than at the next periodic sync.
          if (stoppedSyncs) yield* syncQueue.resumeUser(user.id)
          // The user was decoded from its row and the token is freshly issued: nothing to validate again.
          const body = new UserWithToken({ ...user, token }, true)
          // Both outcomes share one schema, so the 200 is answered here rather than by the encoder.
          return created ? body : yield* Effect.orDie(encodeExisting(body, { status: 200 }))
        }))
      .handle("find", ({ urlParams }) =>
        Effect.flatMap(requirePermission("users:read"), (app) =>
          users.findByExternalId(app.appId, urlParams.external_user_id).pipe(
            Effect.catchTags({ ExternalUserNotFound: notFound })
          )))
      .handle("get", ({ path }) =>
        Effect.flatMap(requirePermission("users:read"), (app) =>
          users.get(app.appId, path.id).pipe(Effect.catchTags({ UserNotFound: notFound }))))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(requirePermission("users:write"), (app) =>
          users.update(app.appId, path.id, payload).pipe(Effect.catchTags({ UserNotFound: notFound }))))
      .handle("delete", ({ path }) =>
        Effect.flatMap(requirePermission("users:write"), (app) =>
          users.softDelete(app.appId, path.id).pipe(Effect.catchTags({ UserNotFound: notFound }))))
      .handle("rotateToken", ({ path }) =>
        Effect.flatMap(requirePermission("users:write"), (app) =>
          users.rotateToken(app.appId, path.id)).pipe(
            Effect.map((token) => ({ token })),
            Effect.catchTags({ UserNotFound: notFound, UserInactive: badRequest })
          ))
      .handle("erase", ({ path }) =>
        Effect.flatMap(requirePermission("users:write"), (app) =>
          erasure.erase(app.appId, path.id).pipe(Effect.catchTags({ UserNotFoundForErasure: notFound }))))
      .handle("export", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const app = yield* requirePermission("users:read")
          const stream = yield* exporter.stream(app.appId, path.id, { includeRaw: urlParams.includeRaw === "true" })
            .pipe(Effect.catchTags({ UserNotFound: notFound }))
          return HttpServerResponse.stream(stream, {
            contentType: "application/x-ndjson",
            headers: {
              "content-disposition": `attachment; filename="user-${path.id.toLowerCase()}.ndjson"`,
              "cache-control": "no-store"
            }
          })
        }))
  })).pipe(Layer.provide(ApiKeyAuthLive))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const UsersHttpLive = onlyServices([Users, SyncQueue, Erasure, UserExport, SqlClient.SqlClient], usersGroup)
