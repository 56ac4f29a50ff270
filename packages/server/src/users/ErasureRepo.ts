/**
 * Every statement of a user's erasure: the `erased_users` tombstone, the mark that hides the
 * user at once, and the deletion of every row the user has in every table.
 *
 * Marking renames the `users` row (`external_user_id` becomes `erased:<id>`, metadata is emptied)
 * and sets its status to `Erasing`: the users statements skip such a row, tokens and syncs check
 * for `Active`, and the same externalUserId can be created again at once as a new user. The row
 * itself goes with the user's other rows when the erasure ends (`deleteRowsOf`), and the copies of its
 * identifiers other tables took (the portal's audit events) are scrubbed in the same transaction.
 *
 * On the embedded database the deleted row versions stay in its files until a vacuum, and the WAL holds them
 * until its segment is removed: `forgetDeleted` vacuums the touched tables, rebuilds the index that keyed the
 * external id, and moves the WAL past them. PostgreSQL is left to its autovacuum (docs/data-lifecycle.md).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AppId, ConnectionId, Provider, UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { visibleConnection } from "../connections/ConnectionsRepo.js"
import { recordTables } from "../sync/RecordStore.js"
import { liveUser } from "./UsersRepo.js"

/** An erasure: the user's app, when it was asked for, and when it ended (null while under way). */
export const Tombstone = Schema.Struct({
  id: UserId,
  appId: AppId,
  requestedAt: Schema.DateFromSelf,
  completedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type Tombstone = typeof Tombstone.Type

const ByApp = Schema.Struct({ appId: AppId, id: Schema.String })

/** Every table an erasure deletes or scrubs rows of, besides the cluster's (docs/data-lifecycle.md). */
export const erasedTables: ReadonlyArray<string> = [
  "quarantined_records",
  ...recordTables,
  "sync_state",
  "connect_sessions",
  "journal_entries",
  "journal_items",
  "journal_images",
  "rate_limit_buckets",
  "user_tokens",
  // MCP access (docs/mcp.md): codes and tokens go with their grant (on delete cascade), the assertions with the
  // authorization requests they answered.
  "mcp_tokens",
  "mcp_codes",
  "mcp_grants",
  "mcp_assertions",
  "mcp_auth_requests",
  // A delivery's attempts go with it (on delete cascade).
  "webhook_delivery_attempts",
  "webhook_deliveries",
  "webhook_events",
  "audit_events",
  "connections",
  // The sandbox page's mark of a test user goes with the user's row (on delete cascade).
  "sandbox_test_users",
  "users"
]

/**
 * The user-token rate-limit bucket key (`RateLimit.hashKey("token", token)`: the base64url SHA-256
 * of the token, 32 characters), from the stored hex SHA-256 of a token.
 */
const tokenBucketKey = (hashColumn: string) =>
  `'token:' || left(translate(rtrim(encode(decode(${hashColumn}, 'hex'), 'base64'), '='), '+/', '-_'), 32)`

export class ErasureRepo extends Effect.Service<ErasureRepo>()("@pulsebridge/server/ErasureRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const hide = SqlSchema.findOne({
      Request: ByApp,
      Result: Schema.Struct({ id: UserId }),
      execute: ({ appId, id }) =>
        sql`
          update users set
            status = 'Erasing',
            external_user_id = 'erased:' || id::text,
            metadata = '{}'::jsonb,
            deleted_at = coalesce(deleted_at, now()),
            updated_at = now()
          where id = ${id} and app_id = ${appId} and ${liveUser(sql)}
          returning id
        `
    })

    const unfinishedOfApp = SqlSchema.findOne({
      Request: ByApp,
      Result: Tombstone,
      execute: ({ appId, id }) =>
        sql`
          select id, app_id, requested_at, completed_at from erased_users
          where id = ${id} and app_id = ${appId} and completed_at is null
        `
    })

    const tombstone = SqlSchema.findOne({
      Request: Schema.String,
      Result: Tombstone,
      execute: (id) => sql`select id, app_id, requested_at, completed_at from erased_users where id = ${id}`
    })

    const unfinished = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ id: UserId }),
      execute: () => sql`select id from erased_users where completed_at is null order by requested_at, id`
    })

    const openConnections = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ id: ConnectionId, appId: AppId, provider: Provider }),
      execute: (userId) =>
        sql`
          select id, app_id, provider from connections
          where user_id = ${userId} and ${visibleConnection(sql)}
          order by created_at, id
        `
    })

    const photoKeys = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ storageKey: Schema.String }),
      execute: (userId) =>
        sql`
          select m.storage_key from journal_images m join journal_entries e on e.id = m.entry_id
          where e.user_id = ${userId}
          order by m.storage_key
        `
    })

    const clusterMessagesExist = sql<{ present: boolean }>`
      select to_regclass('cluster_messages') is not null as present
    `.pipe(Effect.map((rows) => rows[0]?.present === true))

    /**
     * The cluster's stored messages about the user (its connections' syncs, its entries' analyses,
     * earlier runs of its erasure) that are already processed, with their replies. Unprocessed
     * ones are left to their runner (each finds nothing to do); they name only ids, except a
     * provider notification still queued.
     */
    const deleteClusterMessages = (userId: string) =>
      Effect.gen(function*() {
        if (!(yield* clusterMessagesExist)) return
        const about = sql`
          processed and (
            (entity_type = 'ConnectionSync' and entity_id in (select id::text from connections where user_id = ${userId}))
            or (entity_type = 'MealAnalysis'
              and entity_id in (select id::text from journal_entries where user_id = ${userId}))
            or (entity_type = 'UserErasure' and entity_id = ${userId})
          )
        `
        yield* sql`delete from cluster_replies where request_id in (select id from cluster_messages where ${about})`
        yield* sql`delete from cluster_messages where ${about}`
      })

    /**
     * The portal's audit events about the user (the user, one of its connections, or naming it in their details)
     * keep who did what and when, and lose every identifier of the user: their target, the `externalUserId` and
     * `userId` of their details; `userErased` says why. Before the connections go: it finds their events by them.
     */
    const scrubAudit = (userId: string) =>
      sql`
        update audit_events set
          target_id = null,
          detail = (detail - 'externalUserId' - 'userId') || '{"userErased": true}'::jsonb
        where (target_type = 'user' and target_id = ${userId})
          or (target_type = 'connection' and target_id in (select id::text from connections where user_id = ${userId}))
          or detail ->> 'userId' = ${userId}
      `

    const deleteRowsOf = (userId: string) =>
      Effect.gen(function*() {
        const ofConnections = sql`connection_id in (select id from connections where user_id = ${userId})`
        // The connections first: a sync store under way holds its connection (`for key share`) and
        // is waited for, and one that begins after finds the connection gone. Locking them before
        // any record keeps the two from waiting on each other.
        yield* sql`select id from connections where user_id = ${userId} for update`
        yield* deleteClusterMessages(userId)
        yield* sql`delete from quarantined_records where user_id = ${userId}`
        for (const table of recordTables) {
          yield* sql`delete from ${sql(table)} where user_id = ${userId}`
        }
        yield* sql`delete from sync_state where ${ofConnections}`
        yield* sql`delete from connect_sessions where user_id = ${userId}`
        // Items and image metadata go with their entry (on delete cascade).
        yield* sql`delete from journal_entries where user_id = ${userId}`
        yield* sql`
          delete from rate_limit_buckets
          where key in (select ${sql.literal(tokenBucketKey("token_hash"))} from user_tokens where user_id = ${userId})
        `
        yield* sql`delete from user_tokens where user_id = ${userId}`
        yield* sql`
          delete from rate_limit_buckets
          where key in (
            select ${sql.literal(tokenBucketKey("t.token_hash"))}
            from mcp_tokens t join mcp_grants g on g.id = t.grant_id
            where g.user_id = ${userId} and t.kind = 'access'
          )
        `
        yield* sql`delete from mcp_grants where user_id = ${userId}`
        yield* sql`
          delete from mcp_auth_requests
          where id_hash in (select request_hash from mcp_assertions where user_id = ${userId})
        `
        yield* sql`delete from mcp_assertions where user_id = ${userId}`
        yield* sql`delete from webhook_deliveries where user_id = ${userId}`
        yield* sql`delete from webhook_events where user_id = ${userId}`
        yield* scrubAudit(userId)
        yield* sql`delete from connections where user_id = ${userId}`
        yield* sql`delete from users where id = ${userId}`
        yield* sql`update erased_users set completed_at = now() where id = ${userId}`
      })

    /** PGlite names itself in `version()`; PostgreSQL does not. */
    const isEmbedded = sql<{ embedded: boolean }>`select version() like '%PGlite%' as embedded`.pipe(
      Effect.map((rows) => rows[0]?.embedded === true)
    )

    /**
     * The embedded database only: vacuums the tables an erasure touched, so that the deleted row versions leave
     * their pages; rebuilds the users' indexes, whose unique one keyed the external id (a vacuumed index page
     * keeps the bytes of the entries it dropped); then ends the WAL segment that logged them and checkpoints
     * without recycling it, so that the segment file is removed rather than kept for reuse. Each statement
     * alone: `VACUUM` may not run in a transaction.
     */
    const forgetDeleted = Effect.gen(function*() {
      if (!(yield* isEmbedded)) return false
      const tables = [...erasedTables]
      if (yield* clusterMessagesExist) tables.push("cluster_messages", "cluster_replies")
      yield* sql.unsafe(`vacuum ${tables.map((table) => `"${table}"`).join(", ")}`)
      yield* sql`reindex table users`
      yield* Effect.gen(function*() {
        yield* sql`set local wal_recycle = off`
        yield* sql`select pg_switch_wal()`
        yield* sql`checkpoint`
      }).pipe(sql.withTransaction)
      return true
    })

    return {
      /**
       * Hides the app's user at once and records its tombstone (in the caller's transaction); the
       * unfinished tombstone, also when the erasure had already begun; none when the app has no
       * such user (or its erasure has ended).
       */
      begin: (appId: AppId, id: string, requestedAt: Date) =>
        Effect.gen(function*() {
          const hidden = yield* hide({ appId, id })
          if (Option.isSome(hidden)) {
            yield* sql`
              insert into erased_users (id, app_id, requested_at) values (${id}, ${appId}, ${requestedAt})
              on conflict (id) do nothing
            `
          }
          return yield* unfinishedOfApp({ appId, id })
        }).pipe(Effect.orDie),

      tombstone: (id: string) => tombstone(id).pipe(Effect.orDie),

      /** Erasures asked for and not ended, oldest first. */
      unfinished: unfinished(undefined).pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie),

      /** The user's connections holding a grant (not Disconnected). */
      openConnections: (userId: string) => openConnections(userId).pipe(Effect.orDie),

      /** Where the user's meal photos are stored. */
      photoKeys: (userId: string) =>
        photoKeys(userId).pipe(Effect.map((rows) => rows.map((row) => row.storageKey)), Effect.orDie),

      /**
       * Deletes every row of the user in every table, the `users` row last, and completes the
       * tombstone; in the caller's transaction.
       */
      deleteRowsOf: (userId: string) => deleteRowsOf(userId).pipe(Effect.orDie),

      /** On the embedded database, removes what the deletes left in its files; whether it ran. */
      forgetDeleted: forgetDeleted.pipe(Effect.orDie)
    } as const
  })
}) {}
