/**
 * Apps (the tenants) and their API keys. An API key is shown once at creation; only its hash
 * and a short display prefix are stored.
 */
import { SqlClient } from "@effect/sql"
import type { ApiKeyId, AppId, Permission } from "@pulsebridge/domain"
import { allPermissions, NotFound } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import { ApiKeyPrefix, displayPrefix, generateSecret, hashSecret } from "../platform/CredentialHash.js"
import { isUuid } from "../platform/Ids.js"

export interface App {
  readonly id: AppId
  readonly name: string
  readonly createdAt: Date
}

export interface ApiKeyRecord {
  readonly id: ApiKeyId
  readonly appId: AppId
  readonly prefix: string
  readonly permissions: ReadonlyArray<Permission>
  readonly createdAt: Date
  readonly revokedAt: Date | null
}

export interface CreatedApiKey {
  readonly id: ApiKeyId
  readonly apiKey: string
  readonly prefix: string
  readonly permissions: ReadonlyArray<Permission>
}

export interface AuthenticatedApp {
  readonly appId: AppId
  readonly apiKeyId: ApiKeyId
  readonly permissions: ReadonlyArray<Permission>
}

export class Apps extends Effect.Service<Apps>()("@pulsebridge/server/Apps", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insertKey = (appId: AppId, permissions: ReadonlyArray<Permission>) =>
      Effect.gen(function*() {
        const apiKey = generateSecret(ApiKeyPrefix)
        const id = crypto.randomUUID() as ApiKeyId
        const prefix = displayPrefix(apiKey)
        yield* sql`
          insert into api_keys (id, app_id, key_hash, prefix, permissions)
          values (${id}, ${appId}, ${hashSecret(apiKey)}, ${prefix}, string_to_array(${permissions.join(",")}, ','))
        `
        return { id, apiKey, prefix, permissions } satisfies CreatedApiKey
      })

    const get = (appId: string) =>
      !isUuid(appId) ?
        Effect.succeed(Option.none<App>()) :
        sql<App>`select id, name, created_at from apps where id = ${appId}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        )

    const requireApp = (appId: string) =>
      Effect.flatMap(get(appId), (app) =>
        Option.match(app, {
          onNone: () => Effect.fail(new NotFound({ message: `no app with id ${appId}` })),
          onSome: Effect.succeed
        }))

    return {
      /** Creates an app and its first API key, which carries every permission. */
      create: (name: string) =>
        Effect.gen(function*() {
          const id = crypto.randomUUID() as AppId
          const rows = yield* sql<
            App
          >`insert into apps (id, name) values (${id}, ${name}) returning id, name, created_at`
          const key = yield* insertKey(id, allPermissions)
          return { app: rows[0]!, apiKey: key.apiKey, apiKeyId: key.id }
        }).pipe(sql.withTransaction, Effect.orDie),

      list: sql<App>`select id, name, created_at from apps order by created_at, id`.pipe(Effect.orDie),

      get,

      createApiKey: (appId: string, permissions: ReadonlyArray<Permission>) =>
        Effect.flatMap(requireApp(appId), (app) => insertKey(app.id, permissions).pipe(Effect.orDie)),

      listApiKeys: (appId: string) =>
        Effect.flatMap(requireApp(appId), (app) =>
          sql<ApiKeyRecord>`
            select id, app_id, prefix, permissions, created_at, revoked_at
            from api_keys where app_id = ${app.id} order by created_at, id
          `.pipe(Effect.orDie)),

      /** Revokes a key; revoking twice is harmless. Fails with NotFound for an unknown id. */
      revokeApiKey: (keyId: string) =>
        Effect.gen(function*() {
          if (!isUuid(keyId)) return yield* new NotFound({ message: `no API key with id ${keyId}` })
          const rows = yield* sql<ApiKeyRecord>`
            update api_keys set revoked_at = coalesce(revoked_at, now())
            where id = ${keyId}
            returning id, app_id, prefix, permissions, created_at, revoked_at
          `.pipe(Effect.orDie)
          if (rows.length === 0) return yield* new NotFound({ message: `no API key with id ${keyId}` })
          return rows[0]!
        }),

      /** The app of a live API key, by the hash of the presented secret. */
      authenticate: (secret: string) =>
        sql<AuthenticatedApp>`
          select app_id, id as api_key_id, permissions from api_keys
          where key_hash = ${hashSecret(secret)} and revoked_at is null
        `.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)
    } as const
  })
}) {}
