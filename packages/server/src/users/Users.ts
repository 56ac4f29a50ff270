/**
 * Users and their tokens. A user belongs to one app; every statement is scoped by app id
 * (`UsersRepo`), so an app never reaches another app's user. User tokens are stored as hashes
 * and bound to one user (`UserTokensRepo`). The soft delete is here whole, for the API and the
 * CLI alike: the user Inactive, its tokens revoked and `user.deleted` in one transaction, then
 * its connections' syncs stopped.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { AppId, CreateUserPayload, UpdateUserPayload, UserId } from "@pulsebridge/domain"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { generateSecret, hashSecret, UserTokenPrefix } from "../access/CredentialHash.js"
import { UserTokensRepo } from "../access/UserTokensRepo.js"
import { Outbox } from "../events/Outbox.js"
import { isUuid, newId } from "../platform/Ids.js"
import { traced } from "../platform/Traced.js"
import { SyncStateRepo } from "../sync/SyncStateRepo.js"
import { UsersRepo } from "./UsersRepo.js"

export { AuthenticatedUser } from "../access/UserTokensRepo.js"

/** The app has no user with this id (or the id is not one a user could have). */
export class UserNotFound extends Data.TaggedError("UserNotFound")<{ readonly userId: string }> {
  override get message() {
    return `no user with id ${this.userId}`
  }
}

/** The app has no user with this externalUserId. */
export class ExternalUserNotFound extends Data.TaggedError("ExternalUserNotFound")<{
  readonly externalUserId: string
}> {
  override get message() {
    return `no user with externalUserId ${this.externalUserId}`
  }
}

/** The app has no such user to erase, or its erasure has already ended (`Erasure.erase`). */
export class UserNotFoundForErasure extends Data.TaggedError("UserNotFoundForErasure")<{ readonly userId: string }> {
  override get message() {
    return `no user with id ${this.userId}`
  }
}

/** The user was deleted (is Inactive); creating it again reactivates it. */
export class UserInactive extends Data.TaggedError("UserInactive")<{ readonly userId: string }> {
  override get message() {
    return "the user is Inactive; create it again with POST /api/v1/users to reactivate it"
  }
}

export const DefaultLocale = "en-US"
export const DefaultTimezone = "UTC"

export class Users extends Effect.Service<Users>()("@pulsebridge/server/Users", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* UsersRepo
    const tokens = yield* UserTokensRepo
    const outbox = yield* Outbox
    const syncs = yield* SyncStateRepo

    const issueToken = (userId: UserId) =>
      Effect.gen(function*() {
        const token = generateSecret(UserTokenPrefix)
        yield* tokens.insert(userId, hashSecret(token))
        return token
      })

    const requireUser = (appId: AppId, userId: string) =>
      Effect.flatMap(
        isUuid(userId) ? users.findById(appId, userId) : Effect.succeedNone,
        Option.match({ onNone: () => Effect.fail(new UserNotFound({ userId })), onSome: Effect.succeed })
      )

    const deactivate = traced("Users.deactivate")(
      function*(appId: AppId, userId: string) {
        if (!isUuid(userId)) return yield* new UserNotFound({ userId })
        const deactivated = yield* users.deactivate(appId, userId)
        if (Option.isNone(deactivated)) return yield* new UserNotFound({ userId })
        const user = deactivated.value
        yield* tokens.revokeAllOf(user.id)
        if (user.wasActive) {
          yield* outbox.emit({
            appId,
            userId: user.id,
            type: "user.deleted",
            data: { userId: user.id, externalUserId: user.externalUserId }
          })
        }
        return user
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    return {
      /**
       * Creates the user, or finds the existing one with the same externalUserId (reactivating
       * it when Inactive), and issues a fresh token either way. One statement does it all; `stoppedSyncs` says
       * whether the user has connections whose sync is Stopped, for the caller to resume (`SyncQueue.resumeUser`).
       */
      create: traced("Users.create")(
        function*(appId: AppId, payload: CreateUserPayload) {
          const token = generateSecret(UserTokenPrefix)
          const { inserted, stoppedSyncs, user } = yield* users.upsertActive({
            id: newId<UserId>(),
            appId,
            externalUserId: payload.externalUserId,
            locale: payload.locale ?? DefaultLocale,
            timezone: payload.timezone ?? DefaultTimezone,
            metadata: payload.metadata ?? {}
          }, hashSecret(token))
          return { user, token, created: inserted, stoppedSyncs }
        }
      ),

      findByExternalId: traced("Users.findByExternalId")(function*(appId: AppId, externalUserId: string) {
        const user = yield* users.findByExternalId(appId, externalUserId)
        if (Option.isNone(user)) return yield* new ExternalUserNotFound({ externalUserId })
        return user.value
      }),

      get: traced("Users.get")(function*(appId: AppId, userId: string) {
        return yield* requireUser(appId, userId)
      }),

      /** Partial update; metadata, when given, replaces the stored metadata entirely. */
      update: traced("Users.update")(function*(appId: AppId, userId: string, payload: UpdateUserPayload) {
        const user = isUuid(userId) ? yield* users.update(appId, userId, payload) : Option.none()
        if (Option.isNone(user)) return yield* new UserNotFound({ userId })
        return user.value
      }),

      /**
       * Soft delete: the user becomes Inactive, its tokens are revoked, its connections show `Stopped`
       * ("user is inactive") and no provider read of theirs starts again; its data stays. Deleting an
       * Active user writes `user.deleted`; deleting it again changes nothing and writes nothing.
       */
      softDelete: traced("Users.softDelete")(function*(appId: AppId, userId: string) {
        const user = yield* deactivate(appId, userId)
        // After the commit: a sync storing a window holds its sync state while its records wait on the user's
        // row, which the deactivation locks.
        yield* syncs.stopUser(user.id)
      }),

      /** Revokes every earlier token of the user and issues one new token. */
      rotateToken: traced("Users.rotateToken")(
        function*(appId: AppId, userId: string) {
          const user = yield* requireUser(appId, userId)
          if (user.status !== "Active") return yield* new UserInactive({ userId: user.id })
          yield* tokens.revokeAllOf(user.id)
          return yield* issueToken(user.id)
        },
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die)
      )
    } as const
  }),
  dependencies: [UsersRepo.Default, UserTokensRepo.Default, Outbox.Default, SyncStateRepo.Default]
}) {}
