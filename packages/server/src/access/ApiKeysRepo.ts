/**
 * Every statement on the `api_keys` table. A key is stored as the hash of its secret and a short
 * display prefix; the secret itself never reaches this table. Rows are decoded with their schemas, but for the
 * lookup of a live key on every request (`findLive`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import { ApiKeyId, AppId, Permission } from "@pulsebridge/domain"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** A key as an operator may see it: everything but the hash. */
export const ApiKeyRecord = Schema.Struct({
  id: ApiKeyId,
  appId: AppId,
  name: Schema.NullOr(Schema.String),
  prefix: Schema.String,
  permissions: Schema.Array(Permission),
  createdAt: Schema.DateFromSelf,
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf),
  revokedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type ApiKeyRecord = typeof ApiKeyRecord.Type

/** The app and permissions of a live key. */
export const AuthenticatedApp = Schema.Struct({
  appId: AppId,
  apiKeyId: ApiKeyId,
  permissions: Schema.Array(Permission)
})
export type AuthenticatedApp = typeof AuthenticatedApp.Type

/**
 * The live key with this hash as one JSON value shaped like `AuthenticatedApp` (null when there is none), for
 * statements that look the key up alongside other work (the rate limiter's take, `RateLimitRepo`).
 */
export const liveKeyJson = (sql: SqlClient.SqlClient, keyHash: string): Statement.Fragment =>
  sql`
    select json_build_object('appId', app_id, 'apiKeyId', id, 'permissions', permissions)
    from api_keys where key_hash = ${keyHash} and revoked_at is null
  `

export interface NewApiKey {
  readonly id: ApiKeyId
  readonly appId: AppId
  readonly keyHash: string
  readonly prefix: string
  readonly permissions: ReadonlyArray<Permission>
  readonly name?: string | null | undefined
}

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("@pulsebridge/server/ApiKeysRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const recordColumns = sql.literal("id, app_id, name, prefix, permissions, created_at, last_used_at, revoked_at")

    const listOfApp = SqlSchema.findAll({
      Request: AppId,
      Result: ApiKeyRecord,
      execute: (appId) => sql`select ${recordColumns} from api_keys where app_id = ${appId} order by created_at, id`
    })

    const revoke = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.String, appId: Schema.NullOr(Schema.String) }),
      Result: ApiKeyRecord,
      execute: ({ appId, id }) =>
        sql`
          update api_keys set revoked_at = coalesce(revoked_at, now())
          where id = ${id} ${appId === null ? sql`` : sql`and app_id = ${appId}`}
          returning ${recordColumns}
        `
    })

    // On every API-key request's path: the row as the database typed it (uuid ids, a text[] of permissions that
    // were checked on the way in), with no schema pass.
    const findLive = (keyHash: string) =>
      sql<AuthenticatedApp>`
        select app_id, id as api_key_id, permissions from api_keys
        where key_hash = ${keyHash} and revoked_at is null
      `.pipe(Effect.map(Arr.head))

    return {
      insert: (key: NewApiKey) =>
        sql`
          insert into api_keys (id, app_id, key_hash, prefix, permissions, name)
          values (
            ${key.id}, ${key.appId}, ${key.keyHash}, ${key.prefix},
            string_to_array(${key.permissions.join(",")}, ','), ${key.name ?? null}
          )
        `.pipe(Effect.asVoid, Effect.orDie),

      /** The app's keys, live and revoked, oldest first. */
      listOfApp: (appId: AppId) => listOfApp(appId).pipe(Effect.orDie),

      /**
       * Revokes the key (a second revocation keeps the first time); none for an unknown id (a UUID), or
       * for a key of another app than `appId` when it is given.
       */
      revoke: (id: string, appId?: string) => revoke({ id, appId: appId ?? null }).pipe(Effect.orDie),

      /** Notes the key's use, unless a use within the last minute is noted already (one write a minute at most). */
      touch: (id: string) =>
        sql`
          update api_keys set last_used_at = now()
          where id = ${id} and (last_used_at is null or last_used_at < now() - interval '1 minute')
        `.pipe(Effect.asVoid, Effect.orDie),

      /** The app of the live key with this hash. */
      findLive: (keyHash: string) => findLive(keyHash).pipe(Effect.orDie)
    } as const
  })
}) {}
