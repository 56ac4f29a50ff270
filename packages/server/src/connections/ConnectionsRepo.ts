/**
 * Every statement on the `connections` table: the listings, the connect flow's upsert, token
 * reads and writes (the row lock that makes refresh single-flight), the status changes
 * (`Reauthorize`, `Disconnected`, each saying whether it changed anything), the look-ups of the
 * sync and the provider webhooks, and the state a connection's events carry. Rows are decoded
 * with their schemas; tokens arrive here already sealed and leave sealed. It also owns the rule
 * that a Disconnected connection is hidden (`visibleConnection`), which every statement reading a
 * user's connections or their records applies.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import { AppId, ConnectionId, Provider, SyncState, UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * The user's Active connections whose sync is Stopped (the user was deleted, or the sync could not go on): what
 * creating the user again resumes. `userId` is the user's id as a fragment (a parameter, or a column of the
 * enclosing statement); `select` what to select of them (`c` is the connection, `s` its sync state).
 */
export const stoppedSyncsOfUser = (
  sql: Statement.Constructor,
  userId: Statement.Fragment,
  select: string
): Statement.Statement<object> =>
  sql`
    select ${sql.literal(select)} from connections c join sync_state s on s.connection_id = c.id
    where c.user_id = ${userId} and c.status = 'Active' and s.state = 'Stopped'
  `

export const ConnectionStatus = Schema.Literal("Active", "Reauthorize", "Disconnected")

/**
 * The connection is not Disconnected: what a user's listings, its records' reads and the connect flow still see
 * (a Disconnected connection keeps its data, hidden, until the user is erased). `alias` is the name the statement
 * gives the `connections` table, if any.
 */
export const visibleConnection = (sql: Statement.Constructor, alias?: string): Statement.Fragment =>
  sql.literal(`${alias === undefined ? "" : `${alias}.`}status <> 'Disconnected'`)

/** A connection with its sync state, as the listings show it. */
export class ConnectionRow extends Schema.Class<ConnectionRow>("ConnectionRow")({
  id: ConnectionId,
  userId: UserId,
  provider: Provider,
  providerUserId: Schema.String,
  status: ConnectionStatus,
  scopes: Schema.String,
  tokenExpiresAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  lastSyncedAt: Schema.NullOr(Schema.DateFromSelf),
  syncState: Schema.NullOr(SyncState),
  rateLimitedUntil: Schema.NullOr(Schema.DateFromSelf),
  syncError: Schema.NullOr(Schema.String),
  statusReason: Schema.NullOr(Schema.String),
  quarantinedRecords: Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()),
  backfillFrom: Schema.NullOr(Schema.String),
  backfillTo: Schema.NullOr(Schema.String),
  backfillCursor: Schema.NullOr(Schema.String)
}) {}

/** Which connection, of which app and provider. */
export const ConnectionRef = Schema.Struct({ id: ConnectionId, appId: AppId, provider: Provider })
export type ConnectionRef = typeof ConnectionRef.Type

/** The sealed tokens of a connection and what a refresh decision needs. */
export const TokenRow = Schema.Struct({
  id: ConnectionId,
  appId: AppId,
  provider: Provider,
  status: ConnectionStatus,
  accessTokenSealed: Schema.NullOr(Schema.String),
  refreshTokenSealed: Schema.NullOr(Schema.String),
  tokenSecretSealed: Schema.NullOr(Schema.String),
  tokenExpiresAt: Schema.NullOr(Schema.DateFromSelf),
  scopes: Schema.String,
  updatedAt: Schema.DateFromSelf
})
export type TokenRow = typeof TokenRow.Type

/** A connection with its user's status and time zone: what the sync decides by. */
export const SyncTarget = Schema.Struct({
  id: ConnectionId,
  appId: AppId,
  userId: UserId,
  provider: Provider,
  providerUserId: Schema.String,
  status: ConnectionStatus,
  userStatus: Schema.String,
  timezone: Schema.NullOr(Schema.String)
})
export type SyncTarget = typeof SyncTarget.Type

/** Sealed tokens to store. */
export interface SealedTokens {
  readonly accessTokenSealed: string
  readonly refreshTokenSealed: string | null
  readonly tokenSecretSealed: string | null
  readonly tokenExpiresAt: Date | null
  readonly scopes: string
}

const IdRow = Schema.Struct({ id: ConnectionId })

/** What the connect flow's upsert did: a new connection, or the user's existing one and its status before. */
const UpsertedRow = Schema.Struct({
  id: ConnectionId,
  created: Schema.Boolean,
  previousStatus: Schema.NullOr(ConnectionStatus)
})
export type Upserted = typeof UpsertedRow.Type

/** A connection's state as its events carry it (`connection.created`, `connection.updated`). */
export const EventSnapshot = Schema.Struct({
  id: ConnectionId,
  appId: AppId,
  userId: UserId,
  provider: Provider,
  status: ConnectionStatus,
  statusReason: Schema.NullOr(Schema.String),
  syncState: Schema.NullOr(SyncState),
  syncError: Schema.NullOr(Schema.String)
})
export type EventSnapshot = typeof EventSnapshot.Type

/** Which connection a status change touched, with what its event names. */
const ChangedRow = Schema.Struct({ ...ConnectionRef.fields, userId: UserId })
export type ChangedConnection = typeof ChangedRow.Type

export class ConnectionsRepo extends Effect.Service<ConnectionsRepo>()("@pulsebridge/server/ConnectionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const tokenColumns = sql.literal(
      "id, app_id, provider, status, access_token_sealed, refresh_token_sealed, token_secret_sealed, " +
        "token_expires_at, scopes, updated_at"
    )

    const listOfUser = (which: Statement.Fragment) =>
      SqlSchema.findAll({
        Request: UserId,
        Result: ConnectionRow,
        execute: (userId) =>
          sql`
            select c.id, c.user_id, c.provider, c.provider_user_id, c.status, c.scopes, c.token_expires_at,
              c.created_at, c.updated_at, s.last_synced_at, s.state as sync_state, s.rate_limited_until,
              s.last_error as sync_error, c.status_reason,
              (select count(*) from quarantined_records q where q.connection_id = c.id)::text as quarantined_records,
              s.backfill_from::text as backfill_from, s.backfill_to::text as backfill_to,
              s.backfill_cursor::text as backfill_cursor
            from connections c left join sync_state s on s.connection_id = c.id
            where c.user_id = ${userId} and ${which}
            order by c.created_at, c.id
          `
      })
    const listActive = listOfUser(sql.literal("c.status = 'Active'"))
    const listOpen = listOfUser(visibleConnection(sql, "c"))

    /** The open connections of several users at once (a page of users), each user's in listing order. */
    const listOpenOfUsers = SqlSchema.findAll({
      Request: Schema.Array(UserId),
      Result: ConnectionRow,
      execute: (userIds) =>
        sql`
          select c.id, c.user_id, c.provider, c.provider_user_id, c.status, c.scopes, c.token_expires_at,
            c.created_at, c.updated_at, s.last_synced_at, s.state as sync_state, s.rate_limited_until,
            s.last_error as sync_error, c.status_reason,
            (select count(*) from quarantined_records q where q.connection_id = c.id)::text as quarantined_records,
            s.backfill_from::text as backfill_from, s.backfill_to::text as backfill_to,
            s.backfill_cursor::text as backfill_cursor
          from connections c left join sync_state s on s.connection_id = c.id
          where c.user_id in ${sql.in(userIds)} and ${visibleConnection(sql, "c")}
          order by c.user_id, c.created_at, c.id
        `
    })

    const findOfUser = SqlSchema.findOne({
      Request: Schema.Struct({ userId: UserId, connectionId: Schema.String, open: Schema.Boolean }),
      Result: ConnectionRef,
      execute: ({ connectionId, open, userId }) =>
        sql`
          select id, app_id, provider from connections
          where id = ${connectionId} and user_id = ${userId}
            ${open ? sql`and ${visibleConnection(sql)}` : sql.literal("")}
        `
    })

    const activeIdsOfUser = SqlSchema.findAll({
      Request: UserId,
      Result: IdRow,
      execute: (userId) => sql`select id from connections where user_id = ${userId} and status = 'Active'`
    })

    const stoppedIdsOfUser = SqlSchema.findAll({
      Request: UserId,
      Result: IdRow,
      execute: (userId) => stoppedSyncsOfUser(sql, sql`${userId}`, "c.id")
    })

    const activeIdsAtProvider = SqlSchema.findAll({
      Request: Schema.Struct({ appId: Schema.String, provider: Schema.String, providerUserId: Schema.String }),
      Result: IdRow,
      execute: ({ appId, provider, providerUserId }) =>
        sql`
          select id from connections
          where app_id = ${appId} and provider = ${provider} and provider_user_id = ${providerUserId}
            and status = 'Active'
        `
    })

    const tokensOf = (lock: boolean) =>
      SqlSchema.findOne({
        Request: Schema.String,
        Result: TokenRow,
        execute: (id) =>
          sql`select ${tokenColumns} from connections where id = ${id} ${
            lock ? sql.literal("for update") : sql.literal("")
          }`
      })
    // Built once: every provider call reads the tokens through one of these.
    const lockedTokens = tokensOf(true)
    const unlockedTokens = tokensOf(false)

    const syncTarget = SqlSchema.findOne({
      Request: Schema.String,
      Result: SyncTarget,
      execute: (id) =>
        sql`
          select c.id, c.app_id, c.user_id, c.provider, c.provider_user_id, c.status,
            u.status as user_status, u.timezone
          from connections c join users u on u.id = c.user_id
          where c.id = ${id}
        `
    })

    const holdingOAuth1Tokens = SqlSchema.findAll({
      Request: Schema.NullOr(Schema.String),
      Result: Schema.Struct({ id: ConnectionId, appId: AppId, provider: Provider, providerUserId: Schema.String }),
      execute: (appId) =>
        sql`
          select id, app_id, provider, provider_user_id from connections
          where status = 'Active' and token_secret_sealed is not null
            ${appId === null ? sql.literal("") : sql`and app_id = ${appId}`}
          order by app_id, provider, created_at, id
        `
    })

    const syncable = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ id: ConnectionId, backfillCursor: Schema.NullOr(Schema.String) }),
      execute: () =>
        sql`
          select c.id, s.backfill_cursor::text as backfill_cursor
          from connections c
          join users u on u.id = c.user_id
          left join sync_state s on s.connection_id = c.id
          where c.status = 'Active' and u.status = 'Active'
          order by c.id
        `
    })

    const eventSnapshot = SqlSchema.findOne({
      Request: Schema.String,
      Result: EventSnapshot,
      execute: (id) =>
        sql`
          select c.id, c.app_id, c.user_id, c.provider, c.status, c.status_reason,
            s.state as sync_state, s.last_error as sync_error
          from connections c left join sync_state s on s.connection_id = c.id
          where c.id = ${id}
        `
    })

    const decodeChanged = Schema.decodeUnknown(Schema.Array(ChangedRow))

    return {
      /** The user's Active connections with their sync state, oldest first. */
      listActive: (userId: UserId) => listActive(userId).pipe(Effect.orDie),

      /** The user's connections that are not Disconnected (Active, or waiting for the user to reconnect). */
      listOpen: (userId: UserId) => listOpen(userId).pipe(Effect.orDie),
      listOpenOfUsers: (userIds: ReadonlyArray<UserId>) =>
        userIds.length === 0 ? Effect.succeed([]) : listOpenOfUsers(userIds).pipe(Effect.orDie),

      /** The user's connection with this id (any status), or none: another user's looks absent. */
      findOfUser: (userId: UserId, connectionId: string) =>
        findOfUser({ userId, connectionId, open: false }).pipe(Effect.orDie),

      /** The user's connection with this id unless it is Disconnected. */
      findOpenOfUser: (userId: UserId, connectionId: string) =>
        findOfUser({ userId, connectionId, open: true }).pipe(Effect.orDie),

      activeIdsOfUser: (userId: UserId) =>
        activeIdsOfUser(userId).pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie),

      /** The user's Active connections whose sync stopped (the user was deleted): what reactivation resumes. */
      stoppedIdsOfUser: (userId: UserId) =>
        stoppedIdsOfUser(userId).pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie),

      /** The Active connections of an app's user at a provider (what a provider notification names). */
      activeIdsAtProvider: (appId: string, provider: string, providerUserId: string) =>
        activeIdsAtProvider({ appId, provider, providerUserId }).pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        ),

      /**
       * The connection after a consent: a new Active connection, or the user's existing one at the
       * provider (not Disconnected) made Active again with the new grant. Returns its id, whether it
       * is new and, when not, its status before (read by the same statement).
       */
      upsertActive: (
        input: {
          readonly id: ConnectionId
          readonly appId: AppId
          readonly userId: UserId
          readonly provider: Provider
          readonly providerUserId: string
        } & SealedTokens
      ) =>
        sql`
          with previous as (
            select status from connections
            where user_id = ${input.userId} and provider = ${input.provider} and ${visibleConnection(sql)}
          )
          insert into connections (
            id, app_id, user_id, provider, provider_user_id, status, scopes, token_expires_at,
            access_token_sealed, refresh_token_sealed, token_secret_sealed
          ) values (
            ${input.id}, ${input.appId}, ${input.userId}, ${input.provider}, ${input.providerUserId}, 'Active',
            ${input.scopes}, ${input.tokenExpiresAt}, ${input.accessTokenSealed}, ${input.refreshTokenSealed},
            ${input.tokenSecretSealed}
          )
          on conflict (user_id, provider) where ${visibleConnection(sql)} do update set
            provider_user_id = excluded.provider_user_id,
            status = 'Active',
            status_reason = null,
            scopes = excluded.scopes,
            token_expires_at = excluded.token_expires_at,
            access_token_sealed = excluded.access_token_sealed,
            refresh_token_sealed = excluded.refresh_token_sealed,
            token_secret_sealed = excluded.token_secret_sealed,
            updated_at = now()
          returning id, (xmax = 0) as created, (select status from previous) as previous_status
        `.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Tuple(UpsertedRow))),
          Effect.map(([row]) => row),
          Effect.orDie
        ),

      /**
       * A connection as given, holding no grant (no tokens: the sync has nothing to read with), set up outside the
       * connect flow, as test data is. A Disconnected one is hidden as one the app disconnected.
       */
      insertWithoutGrant: (input: {
        readonly id: ConnectionId
        readonly appId: AppId
        readonly userId: UserId
        readonly provider: Provider
        readonly providerUserId: string
        readonly status: typeof ConnectionStatus.Type
      }) =>
        sql`
          insert into connections (id, app_id, user_id, provider, provider_user_id, status, disconnected_at)
          values (
            ${input.id}, ${input.appId}, ${input.userId}, ${input.provider}, ${input.providerUserId}, ${input.status},
            ${input.status === "Disconnected" ? sql.literal("now()") : null}
          )
        `.pipe(Effect.asVoid, Effect.orDie),

      /** The sealed tokens, the row locked until the transaction ends (refresh is single-flight). */
      lockTokens: (connectionId: string) => lockedTokens(connectionId).pipe(Effect.orDie),

      /** The sealed tokens as stored, without a lock. */
      tokens: (connectionId: string) => unlockedTokens(connectionId).pipe(Effect.orDie),

      storeTokens: (connectionId: string, tokens: SealedTokens) =>
        sql`
          update connections set
            access_token_sealed = ${tokens.accessTokenSealed},
            refresh_token_sealed = ${tokens.refreshTokenSealed},
            token_secret_sealed = ${tokens.tokenSecretSealed},
            token_expires_at = ${tokens.tokenExpiresAt},
            scopes = ${tokens.scopes},
            updated_at = clock_timestamp()
          where id = ${connectionId}
        `.pipe(Effect.asVoid, Effect.orDie),

      /**
       * Active connections still holding OAuth 1.0a tokens (a token secret), of one app or all:
       * what a move to OAuth 2.0 by token exchange has left to do.
       */
      holdingOAuth1Tokens: (appId?: string) => holdingOAuth1Tokens(appId ?? null).pipe(Effect.orDie),

      /** What the user now lets the app read at the provider (a provider's permission change). */
      setScopes: (connectionId: string, scopes: string) =>
        sql`update connections set scopes = ${scopes}, updated_at = now() where id = ${connectionId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /**
       * The grant is gone (refused refresh, deregistration, revoked token, retired API): the user
       * must connect again. `reason` is shown to the app beside the status; never a token. True
       * when the connection was Active (its status changed).
       */
      markReauthorize: (connectionId: string, reason: string) =>
        sql`
          update connections set status = 'Reauthorize', status_reason = ${reason}, updated_at = now()
          where id = ${connectionId} and status = 'Active'
          returning id
        `.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      /**
       * Disconnected by the app: the tokens are dropped, the data stays. The connection, or none
       * when it was Disconnected already.
       */
      markDisconnected: (connectionId: string) =>
        sql`
          update connections set
            status = 'Disconnected', disconnected_at = now(), updated_at = now(),
            access_token_sealed = null, refresh_token_sealed = null, token_secret_sealed = null
          where id = ${connectionId} and ${visibleConnection(sql)}
          returning id, app_id, user_id, provider
        `.pipe(
          Effect.flatMap(decodeChanged),
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),

      /** The connection's status and sync state as its events carry them; none when it does not exist. */
      eventSnapshot: (connectionId: string) => eventSnapshot(connectionId).pipe(Effect.orDie),

      /** The connection with its user, for the sync's checks. */
      syncTarget: (connectionId: string) => syncTarget(connectionId).pipe(Effect.orDie),

      /** Connections the periodic sync visits: Active, of Active users. */
      syncable: syncable(undefined).pipe(Effect.orDie)
    } as const
  })
}) {}
