/**
 * The operators' overview (docs/portal.md): counts of what needs a look, per app or across all apps, and a
 * paged list of each kind. Every figure is an aggregate statement and every list a keyset page of at most
 * 200 rows, so the overview of 40,000 connections reads no more rows into memory than one page shows.
 *
 * What it reads is what the server records, nothing more:
 * - connections: `status` (`Active`, `Reauthorize`; `Disconnected` ones are out of sight as everywhere),
 *   the sync state's `state` (`Error`: the last sync failed; `RateLimited` with `rate_limited_until`),
 *   `last_synced_at` (a successful sync, or a finished backfill). Users being erased are out of sight.
 * - "behind": an active connection of an active user (what the periodic sync syncs) whose last successful
 *   sync, or its creation when it never had one, is older than `behindHours` (24 by default: 24 runs of the
 *   default hourly sync).
 * - the quarantine (`quarantined_records`) of the visible connections.
 * - webhook endpoints: failing (enabled, `failing_since` set), paused by the circuit breaker
 *   (`paused_until` in the future), disabled; the last error is that of the endpoint's latest delivery
 *   that recorded one. The backlog is the deliveries `Pending`.
 * - providers: the connections waiting out a provider's rate limit, and the budgets its catalogue states.
 *
 * Each list's cursor names the last row of its page by the list's own order key and id (and the list, so a
 * cursor of another list is refused).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import {
  AppId,
  ConnectionId,
  ConnectionStatus,
  Provider,
  SyncState,
  UserId,
  WebhookEndpointId
} from "@pulsebridge/domain"
import type { ConnectionIssueKind, EndpointIssueKind } from "@pulsebridge/portal/api"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Schema from "effect/Schema"
import { visibleConnection } from "../../connections/ConnectionsRepo.js"
import { isUuid } from "../../platform/Ids.js"
import { liveUser } from "../../users/UsersRepo.js"

/** A cursor this list did not give. */
export class OverviewCursorInvalid extends Data.TaggedError("OverviewCursorInvalid")<{}> {
  override get message() {
    return "cursor is not one a previous page of this list gave"
  }
}

export class OverviewAppNotFound extends Data.TaggedError("OverviewAppNotFound")<{ readonly appId: string }> {
  override get message() {
    return `No app ${this.appId}`
  }
}

export const defaultOverviewPageSize = 50

export interface OverviewScope {
  readonly appId?: AppId | undefined
}

export interface OverviewPageQuery extends OverviewScope {
  readonly cursor?: string | undefined
  readonly limit: number
}

const timestampKey = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

/** The page key of a timestamp column, to the microsecond as stored. */
const keyOf = (column: string) => `to_char((${column}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

const encodeCursor = (list: string, keys: ReadonlyArray<string>) =>
  Encoding.encodeBase64Url(JSON.stringify([list, ...keys]))

/** The keys of a cursor of `list`: a timestamp key and `ids` more strings (the first of them a uuid). */
const decodeCursor = (list: string, ids: number, cursor: string) => {
  const text = Encoding.decodeBase64UrlString(cursor)
  if (Either.isLeft(text)) return Either.left(new OverviewCursorInvalid())
  let parsed: unknown
  try {
    parsed = JSON.parse(text.right)
  } catch {
    return Either.left(new OverviewCursorInvalid())
  }
  if (
    !Array.isArray(parsed) || parsed.length !== ids + 2 || parsed[0] !== list ||
    !parsed.every((part) => typeof part === "string" && part.length <= 500) ||
    !timestampKey.test(parsed[1]) || !isUuid(parsed[2])
  ) {
    return Either.left(new OverviewCursorInvalid())
  }
  return Either.right(parsed.slice(1) as Array<string>)
}

const CountsRow = Schema.Struct({
  provider: Provider,
  active: Schema.Int,
  reauthorize: Schema.Int,
  syncError: Schema.Int,
  rateLimited: Schema.Int,
  behind: Schema.Int,
  rateLimitedUntil: Schema.NullOr(Schema.DateFromSelf)
})

const QuarantineCountRow = Schema.Struct({ records: Schema.Int, latestAt: Schema.NullOr(Schema.DateFromSelf) })

const EndpointCountRow = Schema.Struct({ failing: Schema.Int, paused: Schema.Int, disabled: Schema.Int })

const BacklogRow = Schema.Struct({ pending: Schema.Int, oldestPendingAt: Schema.NullOr(Schema.DateFromSelf) })

export const ConnectionIssueRow = Schema.Struct({
  connectionId: ConnectionId,
  appId: AppId,
  appName: Schema.String,
  userId: UserId,
  externalUserId: Schema.String,
  provider: Provider,
  status: ConnectionStatus,
  statusReason: Schema.NullOr(Schema.String),
  syncState: SyncState,
  syncError: Schema.NullOr(Schema.String),
  rateLimitedUntil: Schema.NullOr(Schema.DateFromSelf),
  lastSyncedAt: Schema.NullOr(Schema.DateFromSelf),
  since: Schema.DateFromSelf,
  pageKey: Schema.String
})
export type ConnectionIssueRow = typeof ConnectionIssueRow.Type

export const QuarantineRow = Schema.Struct({
  connectionId: ConnectionId,
  appId: AppId,
  appName: Schema.String,
  userId: UserId,
  externalUserId: Schema.String,
  provider: Provider,
  kind: Schema.String,
  recordKey: Schema.String,
  providerRecordId: Schema.NullOr(Schema.String),
  reason: Schema.String,
  firstSeenAt: Schema.DateFromSelf,
  lastSeenAt: Schema.DateFromSelf,
  pageKey: Schema.String
})

export const EndpointIssueRow = Schema.Struct({
  endpointId: WebhookEndpointId,
  appId: AppId,
  appName: Schema.String,
  url: Schema.String,
  enabled: Schema.Boolean,
  disabledReason: Schema.NullOr(Schema.String),
  failingSince: Schema.NullOr(Schema.DateFromSelf),
  pausedUntil: Schema.NullOr(Schema.DateFromSelf),
  failureStreak: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastErrorAt: Schema.NullOr(Schema.DateFromSelf),
  pending: Schema.Int,
  oldestPendingAt: Schema.NullOr(Schema.DateFromSelf),
  pageKey: Schema.String
})

/** Each connection list: which connections, in what order (a timestamp, then the id), newest trouble first. */
const connectionLists: Record<
  ConnectionIssueKind,
  { readonly where: string; readonly since: string; readonly ascending: boolean }
> = {
  active: { where: "c.status = 'Active'", since: "c.created_at", ascending: false },
  reauthorize: { where: "c.status = 'Reauthorize'", since: "c.updated_at", ascending: false },
  "sync-error": { where: "s.state = 'Error'", since: "s.updated_at", ascending: false },
  "rate-limited": {
    where: "s.state = 'RateLimited'",
    since: "coalesce(s.rate_limited_until, s.updated_at)",
    ascending: false
  },
  // The longest behind first.
  behind: {
    where: "c.status = 'Active' and u.status = 'Active'",
    since: "coalesce(s.last_synced_at, c.created_at)",
    ascending: true
  }
}

/** Each endpoint list, ordered by a timestamp of the endpoint (`x` is the endpoint with its figures). */
const endpointLists: Record<
  EndpointIssueKind,
  {
    readonly where: (sql: Statement.Constructor, now: Date) => Statement.Fragment
    readonly since: string
    readonly ascending: boolean
  }
> = {
  // The longest failing first: the closest to being disabled.
  failing: {
    where: (sql) => sql.literal("x.enabled and x.failing_since is not null"),
    since: "x.failing_since",
    ascending: true
  },
  paused: {
    where: (sql, now) => sql`x.enabled and x.paused_until > ${now}`,
    since: "x.paused_until",
    ascending: false
  },
  disabled: { where: (sql) => sql.literal("not x.enabled"), since: "x.updated_at", ascending: false },
  // The oldest waiting delivery first.
  backlog: { where: (sql) => sql.literal("x.pending > 0"), since: "x.oldest_pending_at", ascending: true }
}

export class OverviewRepo extends Effect.Service<OverviewRepo>()("@pulsebridge/server/OverviewRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const registry = yield* ProviderRegistry

    const appOf = (column: string, appId: string | null): Statement.Fragment =>
      appId === null ? sql.literal("") : sql`and ${sql.literal(column)} = ${appId}::uuid`

    const appExists = (appId: string) =>
      sql`select 1 from apps where id = ${appId}::uuid`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)

    /** Fails with `OverviewAppNotFound` for an app that does not exist. */
    const checkApp = (appId: AppId | undefined) =>
      appId === undefined ?
        Effect.succeed(null) :
        Effect.flatMap(appExists(appId), (found) =>
          found ? Effect.succeed(appId as string) : Effect.fail(new OverviewAppNotFound({ appId })))

    const countConnections = SqlSchema.findAll({
      Request: Schema.Struct({ appId: Schema.NullOr(Schema.String), cutoff: Schema.DateFromSelf }),
      Result: CountsRow,
      execute: ({ appId, cutoff }) =>
        sql`
          select c.provider,
            count(*) filter (where c.status = 'Active')::int as active,
            count(*) filter (where c.status = 'Reauthorize')::int as reauthorize,
            count(*) filter (where s.state = 'Error')::int as sync_error,
            count(*) filter (where s.state = 'RateLimited')::int as rate_limited,
            count(*) filter (
              where c.status = 'Active' and u.status = 'Active' and coalesce(s.last_synced_at, c.created_at) < ${cutoff}
            )::int as behind,
            max(s.rate_limited_until) filter (where s.state = 'RateLimited') as rate_limited_until
          from connections c
          join users u on u.id = c.user_id
          left join sync_state s on s.connection_id = c.id
          where ${visibleConnection(sql, "c")} and ${liveUser(sql, "u")} ${appOf("c.app_id", appId)}
          group by c.provider
        `
    })

    const countQuarantine = SqlSchema.single({
      Request: Schema.NullOr(Schema.String),
      Result: QuarantineCountRow,
      execute: (appId) =>
        sql`
          select count(*)::int as records, max(q.last_seen_at) as latest_at
          from quarantined_records q
          join connections c on c.id = q.connection_id
          join users u on u.id = c.user_id
          where ${visibleConnection(sql, "c")} and ${liveUser(sql, "u")} ${appOf("c.app_id", appId)}
        `
    })

    const countEndpoints = SqlSchema.single({
      Request: Schema.Struct({ appId: Schema.NullOr(Schema.String), now: Schema.DateFromSelf }),
      Result: EndpointCountRow,
      execute: ({ appId, now }) =>
        sql`
          select
            count(*) filter (where e.enabled and e.failing_since is not null)::int as failing,
            count(*) filter (where e.enabled and e.paused_until > ${now})::int as paused,
            count(*) filter (where not e.enabled)::int as disabled
          from webhook_endpoints e
          where true ${appOf("e.app_id", appId)}
        `
    })

    const countBacklog = SqlSchema.single({
      Request: Schema.NullOr(Schema.String),
      Result: BacklogRow,
      execute: (appId) =>
        appId === null
          ? sql`
              select count(*)::int as pending, min(d.created_at) as oldest_pending_at
              from webhook_deliveries d where d.status = 'Pending'
            `
          : sql`
              select count(*)::int as pending, min(d.created_at) as oldest_pending_at
              from webhook_endpoints e
              join webhook_deliveries d on d.endpoint_id = e.id and d.status = 'Pending'
              where e.app_id = ${appId}::uuid
            `
    })

    const connectionPage = SqlSchema.findAll({
      Request: Schema.Struct({
        kind: Schema.String,
        appId: Schema.NullOr(Schema.String),
        cutoff: Schema.DateFromSelf,
        after: Schema.NullOr(Schema.Array(Schema.String)),
        limit: Schema.Int
      }),
      Result: ConnectionIssueRow,
      execute: ({ after, appId, cutoff, kind, limit }) => {
        const list = connectionLists[kind as ConnectionIssueKind]
        const since = sql.literal(list.since)
        const direction = sql.literal(list.ascending ? "asc" : "desc")
        return sql`
          select c.id as connection_id, c.app_id, a.name as app_name, c.user_id, u.external_user_id, c.provider,
            c.status, c.status_reason, coalesce(s.state, 'Pending') as sync_state, s.last_error as sync_error,
            s.rate_limited_until, s.last_synced_at, ${since} as since, ${sql.literal(keyOf(list.since))} as page_key
          from connections c
          join users u on u.id = c.user_id
          join apps a on a.id = c.app_id
          left join sync_state s on s.connection_id = c.id
          where ${sql.literal(list.where)} and ${visibleConnection(sql, "c")} and ${liveUser(sql, "u")}
            ${appOf("c.app_id", appId)}
            ${kind === "behind" ? sql`and ${since} < ${cutoff}` : sql.literal("")}
            ${
          after === null
            ? sql.literal("")
            : sql`and (${since}, c.id) ${sql.literal(list.ascending ? ">" : "<")} (${after[0]}::timestamptz, ${
              after[1]
            }::uuid)`
        }
          order by ${since} ${direction}, c.id ${direction}
          limit ${limit}
        `
      }
    })

    const quarantinePage = SqlSchema.findAll({
      Request: Schema.Struct({
        appId: Schema.NullOr(Schema.String),
        after: Schema.NullOr(Schema.Array(Schema.String)),
        limit: Schema.Int
      }),
      Result: QuarantineRow,
      execute: ({ after, appId, limit }) =>
        sql`
          select q.connection_id, c.app_id, a.name as app_name, c.user_id, u.external_user_id, q.provider, q.kind,
            q.record_key, q.provider_record_id, q.reason, q.first_seen_at, q.last_seen_at,
            ${sql.literal(keyOf("q.last_seen_at"))} as page_key
          from quarantined_records q
          join connections c on c.id = q.connection_id
          join users u on u.id = c.user_id
          join apps a on a.id = c.app_id
          where ${visibleConnection(sql, "c")} and ${liveUser(sql, "u")} ${appOf("c.app_id", appId)}
            ${
          after === null
            ? sql.literal("")
            : sql`and (q.last_seen_at, q.connection_id, q.kind, q.record_key)
                < (${after[0]}::timestamptz, ${after[1]}::uuid, ${after[2]}, ${after[3]})`
        }
          order by q.last_seen_at desc, q.connection_id desc, q.kind desc, q.record_key desc
          limit ${limit}
        `
    })

    const endpointPage = SqlSchema.findAll({
      Request: Schema.Struct({
        kind: Schema.String,
        appId: Schema.NullOr(Schema.String),
        now: Schema.DateFromSelf,
        after: Schema.NullOr(Schema.Array(Schema.String)),
        limit: Schema.Int
      }),
      Result: EndpointIssueRow,
      execute: ({ after, appId, kind, limit, now }) => {
        const list = endpointLists[kind as EndpointIssueKind]
        const where = list.where(sql, now)
        const since = sql.literal(list.since)
        const direction = sql.literal(list.ascending ? "asc" : "desc")
        return sql`
          select x.id as endpoint_id, x.app_id, x.app_name, x.url, x.enabled, x.disabled_reason, x.failing_since,
            x.paused_until, x.failure_streak, x.last_error, x.last_status_code, x.last_error_at, x.pending,
            x.oldest_pending_at, ${sql.literal(keyOf(list.since))} as page_key
          from (
            select e.id, e.app_id, e.url, e.enabled, e.disabled_reason, e.failing_since, e.paused_until,
              e.failure_streak, e.updated_at, a.name as app_name, le.last_error, le.last_status_code, le.last_attempt_at as last_error_at,
              coalesce(p.pending, 0) as pending, p.oldest_pending_at
            from webhook_endpoints e
            join apps a on a.id = e.app_id
            left join lateral (
              select d.last_error, d.last_status_code, d.last_attempt_at from webhook_deliveries d
              where d.endpoint_id = e.id and d.last_error is not null
              order by d.seq desc limit 1
            ) le on true
            left join lateral (
              select count(*)::int as pending, min(d.created_at) as oldest_pending_at from webhook_deliveries d
              where d.endpoint_id = e.id and d.status = 'Pending'
            ) p on true
            where true ${appOf("e.app_id", appId)}
          ) x
          where ${where}
            ${
          after === null
            ? sql.literal("")
            : sql`and (${since}, x.id) ${sql.literal(list.ascending ? ">" : "<")} (${after[0]}::timestamptz, ${
              after[1]
            }::uuid)`
        }
          order by ${since} ${direction}, x.id ${direction}
          limit ${limit}
        `
      }
    })

    /** One row more than the page tells whether another page follows. */
    const paged = <A extends { readonly pageKey: string }>(
      rows: ReadonlyArray<A>,
      limit: number,
      list: string,
      keys: (row: A) => ReadonlyArray<string>
    ) => {
      const data = rows.slice(0, limit)
      return {
        data,
        nextCursor: rows.length > limit
          ? encodeCursor(list, [data[data.length - 1]!.pageKey, ...keys(data.at(-1)!)])
          : null
      }
    }

    return {
      /** Every count of the overview, for one app or all. */
      counts: (scope: OverviewScope & { readonly behindHours: number }) =>
        Effect.gen(function*() {
          const appId = yield* checkApp(scope.appId)
          const nowMs = yield* Clock.currentTimeMillis
          const now = new Date(nowMs)
          const cutoff = new Date(nowMs - scope.behindHours * 3_600_000)
          const [byProvider, quarantine, endpoints, backlog] = yield* Effect.all([
            countConnections({ appId, cutoff }),
            countQuarantine(appId),
            countEndpoints({ appId, now }),
            countBacklog(appId)
          ], { concurrency: "unbounded" }).pipe(Effect.orDie)
          const sum = (field: "active" | "reauthorize" | "syncError" | "rateLimited" | "behind") =>
            byProvider.reduce((total, row) => total + row[field], 0)
          const found = new Map(byProvider.map((row) => [row.provider as string, row]))
          const names = [
            ...registry.plugins.map((plugin) => plugin.catalog.name as string),
            ...byProvider.map((row) => row.provider as string).filter((name) => registry.find(name)._tag === "None")
          ]
          return {
            app: appId as AppId | null,
            generatedAt: now,
            behindHours: scope.behindHours,
            connections: {
              active: sum("active"),
              reauthorize: sum("reauthorize"),
              syncError: sum("syncError"),
              rateLimited: sum("rateLimited"),
              behind: sum("behind")
            },
            quarantine,
            webhookEndpoints: endpoints,
            deliveries: {
              pending: backlog.pending,
              oldestPendingAt: backlog.oldestPendingAt,
              oldestPendingAgeSeconds: backlog.oldestPendingAt === null
                ? null
                : Math.max(0, Math.floor((nowMs - backlog.oldestPendingAt.getTime()) / 1000))
            },
            providers: names.map((name) => {
              const row = found.get(name)
              const plugin = registry.find(name)
              return {
                provider: name as Provider,
                active: row?.active ?? 0,
                rateLimited: row?.rateLimited ?? 0,
                rateLimitedUntil: row?.rateLimitedUntil ?? null,
                budgets: plugin._tag === "Some"
                  ? plugin.value.catalog.limits.rateLimits.map((limit) => ({
                    requests: limit.requests,
                    windowSeconds: limit.windowSeconds,
                    per: limit.per
                  }))
                  : []
              }
            })
          }
        }),

      /** A page of one list of connections. */
      connections: (kind: ConnectionIssueKind, query: OverviewPageQuery & { readonly behindHours: number }) =>
        Effect.gen(function*() {
          const after = query.cursor === undefined ? null : yield* decodeCursor(`connections:${kind}`, 1, query.cursor)
          const appId = yield* checkApp(query.appId)
          const cutoff = new Date((yield* Clock.currentTimeMillis) - query.behindHours * 3_600_000)
          const rows = yield* Effect.orDie(connectionPage({ kind, appId, cutoff, after, limit: query.limit + 1 }))
          return paged(rows, query.limit, `connections:${kind}`, (row) => [row.connectionId])
        }),

      /** A page of the quarantined records, the most recently seen first. */
      quarantine: (query: OverviewPageQuery) =>
        Effect.gen(function*() {
          const after = query.cursor === undefined ? null : yield* decodeCursor("quarantine", 3, query.cursor)
          const appId = yield* checkApp(query.appId)
          const rows = yield* Effect.orDie(quarantinePage({ appId, after, limit: query.limit + 1 }))
          return paged(rows, query.limit, "quarantine", (row) => [row.connectionId, row.kind, row.recordKey])
        }),

      /** A page of one list of webhook endpoints. */
      endpoints: (kind: EndpointIssueKind, query: OverviewPageQuery) =>
        Effect.gen(function*() {
          const after = query.cursor === undefined ? null : yield* decodeCursor(`endpoints:${kind}`, 1, query.cursor)
          const appId = yield* checkApp(query.appId)
          const now = new Date(yield* Clock.currentTimeMillis)
          const rows = yield* Effect.orDie(endpointPage({ kind, appId, now, after, limit: query.limit + 1 }))
          return paged(rows, query.limit, `endpoints:${kind}`, (row) => [row.endpointId])
        })
    } as const
  })
}) {}
