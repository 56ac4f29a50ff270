/**
 * Users and their tokens. A user belongs to one app; every query is scoped by app id, so an
 * app never reaches another app's user. User tokens are stored as hashes and bound to one user.
 */
import { SqlClient } from "@effect/sql"
import type { AppId, CreateUserPayload, UpdateUserPayload, UserId } from "@pulsebridge/domain"
import { BadRequest, NotFound, User } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { generateSecret, hashSecret, UserTokenPrefix } from "../platform/CredentialHash.js"
import { isUuid, newId } from "../platform/Ids.js"

interface UserRow {
  readonly id: UserId
  readonly appId: AppId
  readonly externalUserId: string
  readonly status: "Active" | "Inactive"
  readonly locale: string
  readonly timezone: string
  readonly metadata: Record<string, unknown>
  readonly createdAt: Date
  readonly updatedAt: Date
}

interface UpsertRow extends UserRow {
  readonly inserted: boolean
}

export interface AuthenticatedUser {
  readonly appId: AppId
  readonly userId: UserId
  readonly timezone: string
}

export const DefaultLocale = "en-US"
export const DefaultTimezone = "UTC"

const toUser = (row: UserRow): User =>
  new User({
    id: row.id,
    appId: row.appId,
    externalUserId: row.externalUserId,
    status: row.status,
    locale: row.locale,
    timezone: row.timezone,
    metadata: row.metadata,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, true)

const columns = "id, app_id, external_user_id, status, locale, timezone, metadata, created_at, updated_at"

const notFound = (id: string) => new NotFound({ message: `no user with id ${id}` })

export class Users extends Effect.Service<Users>()("@pulsebridge/server/Users", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(columns)

    const issueToken = (userId: UserId) =>
      Effect.gen(function*() {
        const token = generateSecret(UserTokenPrefix)
        yield* sql`insert into user_tokens (id, user_id, token_hash) values (${newId()}, ${userId}, ${
          hashSecret(token)
        })`
        return token
      })

    const findById = (appId: AppId, id: string) =>
      !isUuid(id) ? Effect.succeed(Option.none<UserRow>()) : sql<UserRow>`
        select ${cols} from users where id = ${id} and app_id = ${appId}
      `.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

    const requireUser = (appId: AppId, id: string) =>
      findById(appId, id).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
      )

    return {
      /**
       * Creates the user, or finds the existing one with the same externalUserId (reactivating
       * it when Inactive), and issues a fresh token either way. One upsert decides which.
       */
      create: (appId: AppId, payload: CreateUserPayload) =>
        Effect.gen(function*() {
          const rows = yield* sql<UpsertRow>`
            insert into users (id, app_id, external_user_id, status, locale, timezone, metadata)
            values (
              ${newId()}, ${appId}, ${payload.externalUserId}, 'Active',
              ${payload.locale ?? DefaultLocale}, ${payload.timezone ?? DefaultTimezone},
              ${JSON.stringify(payload.metadata ?? {})}::jsonb
            )
            on conflict (app_id, external_user_id) do update set
              status = 'Active',
              deleted_at = null,
              updated_at = case when users.status = 'Active' then users.updated_at else now() end
            returning ${cols}, (xmax = 0) as inserted
          `
          const row = rows[0]!
          const token = yield* issueToken(row.id)
          return { user: toUser(row), token, created: row.inserted }
        }).pipe(sql.withTransaction, Effect.orDie),

      findByExternalId: (appId: AppId, externalUserId: string) =>
        sql<UserRow>`select ${cols} from users where app_id = ${appId} and external_user_id = ${externalUserId}`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) =>
            rows.length === 0
              ? Effect.fail(new NotFound({ message: `no user with externalUserId ${externalUserId}` }))
              : Effect.succeed(toUser(rows[0]!))
          )
        ),

      get: (appId: AppId, id: string) => Effect.map(requireUser(appId, id), toUser),

      /** Partial update; metadata, when given, replaces the stored metadata entirely. */
      update: (appId: AppId, id: string, payload: UpdateUserPayload) =>
        Effect.gen(function*() {
          if (!isUuid(id)) return yield* notFound(id)
          const rows = yield* sql<UserRow>`
            update users set
              locale = coalesce(${payload.locale ?? null}, locale),
              timezone = coalesce(${payload.timezone ?? null}, timezone),
              metadata = coalesce(${
            payload.metadata === undefined ? null : JSON.stringify(payload.metadata)
          }::jsonb, metadata),
              updated_at = now()
            where id = ${id} and app_id = ${appId}
            returning ${cols}
          `.pipe(Effect.orDie)
          if (rows.length === 0) return yield* notFound(id)
          return toUser(rows[0]!)
        }),

      /** Soft delete: the user becomes Inactive, its tokens are revoked, its data stays. */
      softDelete: (appId: AppId, id: string) =>
        Effect.gen(function*() {
          if (!isUuid(id)) return yield* notFound(id)
          const rows = yield* sql<{ id: UserId }>`
            update users set
              status = 'Inactive',
              deleted_at = coalesce(deleted_at, now()),
              updated_at = case when status = 'Inactive' then updated_at else now() end
            where id = ${id} and app_id = ${appId}
            returning id
          `
          if (rows.length === 0) return yield* notFound(id)
          yield* sql`update user_tokens set revoked_at = now() where user_id = ${id} and revoked_at is null`
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die)),

      /** Revokes every earlier token of the user and issues one new token. */
      rotateToken: (appId: AppId, id: string) =>
        Effect.gen(function*() {
          const user = yield* requireUser(appId, id)
          if (user.status !== "Active") {
            return yield* new BadRequest({
              message: "the user is Inactive; create it again with POST /api/v1/users to reactivate it"
            })
          }
          yield* sql`update user_tokens set revoked_at = now() where user_id = ${user.id} and revoked_at is null`.pipe(
            Effect.orDie
          )
          return yield* issueToken(user.id).pipe(Effect.orDie)
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die)),

      /** The Active user of a live token, by the hash of the presented secret. */
      authenticate: (token: string) =>
        sql<AuthenticatedUser>`
          select u.app_id, u.id as user_id, u.timezone
          from user_tokens t join users u on u.id = t.user_id
          where t.token_hash = ${hashSecret(token)} and t.revoked_at is null and u.status = 'Active'
        `.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)
    } as const
  })
}) {}
