/**
 * The operator's reads of users across apps: the paged list of an app's users (the portal's users
 * page and `pulsebridge users list` share it), a user by id whatever its app, and the glucose
 * series of the user page, averaged into buckets so a year of readings stays a chartable size.
 *
 * The list is newest first (`created_at desc, id desc`) with keyset paging: the cursor names the
 * last row of a page by its exact creation time (microseconds, as stored) and id, so a page never
 * repeats or skips a user when users are created or erased between pages. A user being erased
 * (`Erasing`) or erased (its row gone) never appears; `Inactive` users do, with their status.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AppId, ConnectionId, Provider, UserId } from "@pulsebridge/domain"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Schema from "effect/Schema"
import { visibleConnection } from "../../connections/ConnectionsRepo.js"
import { isUuid } from "../../platform/Ids.js"
import { liveUser, UserFromRow } from "../../users/UsersRepo.js"

/** A cursor this list did not give (or one edited by hand). */
export class CursorInvalid extends Data.TaggedError("CursorInvalid")<{}> {
  override get message() {
    return "cursor is not one a previous page of this list gave"
  }
}

export const ConnectionBrief = Schema.Struct({ provider: Provider, status: Schema.String, syncState: Schema.String })

/** A row of the list: the user, its open connections, and its key for the next page. */
export const ListedUserRow = Schema.Struct({
  id: UserId,
  externalUserId: Schema.String,
  status: Schema.String,
  createdAt: Schema.DateFromSelf,
  pageKey: Schema.String,
  connections: Schema.Array(ConnectionBrief)
})
export type ListedUserRow = typeof ListedUserRow.Type

/** Users per page unless asked otherwise (the portal and the CLI). */
export const defaultPageSize = 50

export interface UserListQuery {
  readonly appId: AppId
  /** A prefix of the external id, matched without regard to case; `%` and `_` match themselves. */
  readonly search?: string | undefined
  readonly cursor?: string | undefined
  readonly limit: number
  /** Only the users the sandbox page made (`sandbox_test_users`). */
  readonly testUsersOnly?: boolean | undefined
}

export interface UserListPage {
  readonly data: ReadonlyArray<ListedUserRow>
  readonly nextCursor: string | null
}

/** `%`, `_` and the escape character itself, escaped for `like ... escape '\'`. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

const timestampKey = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

const encodeCursor = (row: ListedUserRow) => Encoding.encodeBase64Url(`${row.pageKey}|${row.id}`)

const decodeCursor = (cursor: string) => {
  const text = Encoding.decodeBase64UrlString(cursor)
  if (Either.isLeft(text)) return Either.left(new CursorInvalid())
  const [at, id, ...rest] = text.right.split("|")
  return at !== undefined && id !== undefined && rest.length === 0 && timestampKey.test(at) && isUuid(id)
    ? Either.right({ at, id })
    : Either.left(new CursorInvalid())
}

/** Glucose means per connection and bucket. */
export const GlucoseBucketRow = Schema.Struct({
  connectionId: ConnectionId,
  provider: Provider,
  time: Schema.DateFromSelf,
  value: Schema.Number,
  unit: Schema.String,
  readings: Schema.Int
})

export class UserDirectoryRepo extends Effect.Service<UserDirectoryRepo>()("@pulsebridge/server/UserDirectoryRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const listPage = SqlSchema.findAll({
      Request: Schema.Struct({
        appId: AppId,
        pattern: Schema.NullOr(Schema.String),
        after: Schema.NullOr(Schema.Struct({ at: Schema.String, id: Schema.String })),
        limit: Schema.Int,
        testUsersOnly: Schema.Boolean
      }),
      Result: ListedUserRow,
      execute: ({ after, appId, limit, pattern, testUsersOnly }) =>
        sql`
          select u.id, u.external_user_id, u.status, u.created_at,
            to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as page_key,
            coalesce((
              select json_agg(json_build_object(
                'provider', c.provider, 'status', c.status, 'syncState', coalesce(s.state, 'Pending')
              ) order by c.created_at, c.id)
              from connections c left join sync_state s on s.connection_id = c.id
              where c.user_id = u.id and ${visibleConnection(sql, "c")}
            ), '[]'::json) as connections
          from users u
          where u.app_id = ${appId} and ${liveUser(sql, "u")}
            ${
          pattern === null ? sql.literal("") : sql`and lower(u.external_user_id) like lower(${pattern}) escape '\\'`
        }
            ${
          testUsersOnly
            ? sql.literal("and exists (select 1 from sandbox_test_users t where t.user_id = u.id)")
            : sql.literal("")
        }
            ${
          after === null
            ? sql.literal("")
            : sql`and (u.created_at, u.id) < (${after.at}::timestamptz, ${after.id}::uuid)`
        }
          order by u.created_at desc, u.id desc
          limit ${limit}
        `
    })

    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserFromRow,
      execute: (id) =>
        sql`
          select id, app_id, external_user_id, status, locale, timezone, metadata, created_at, updated_at
          from users where id = ${id} and ${liveUser(sql)}
        `
    })

    const glucose = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, from: Schema.String, to: Schema.String, seconds: Schema.Int }),
      Result: GlucoseBucketRow,
      execute: ({ from, seconds, to, userId }) =>
        sql`
          select x.connection_id, x.provider,
            to_timestamp(floor(extract(epoch from x.system_time) / ${seconds}) * ${seconds}) as time,
            avg(x.value)::float8 as value, min(x.unit) as unit, count(*)::int as readings
          from glucose_readings x join connections c on c.id = x.connection_id
          where x.user_id = ${userId} and x.date between ${from}::date and ${to}::date
            and ${visibleConnection(sql, "c")} and x.value is not null
          group by x.connection_id, x.provider, 3
          order by 3, x.provider, x.connection_id
        `
    })

    return {
      /** One page of the app's users, newest first; fails with `CursorInvalid` for a cursor it did not give. */
      page: (query: UserListQuery) =>
        Effect.gen(function*() {
          const after = query.cursor === undefined ? null : yield* decodeCursor(query.cursor)
          const pattern = query.search === undefined || query.search === "" ? null : `${escapeLike(query.search)}%`
          // One row more than the page tells whether another page follows.
          const rows = yield* Effect.orDie(listPage({
            appId: query.appId,
            pattern,
            after,
            limit: query.limit + 1,
            testUsersOnly: query.testUsersOnly === true
          }))
          const data = rows.slice(0, query.limit)
          return {
            data,
            nextCursor: rows.length > query.limit ? encodeCursor(data[data.length - 1]!) : null
          } satisfies UserListPage
        }),

      /** The user with this id in whichever app, unless it is being erased or erased. */
      findById: (id: string) => isUuid(id) ? Effect.orDie(findById(id)) : Effect.succeedNone,

      /** The user's glucose readings of the device days `from` to `to`, as means per `seconds`-long bucket. */
      glucose: (userId: UserId, from: string, to: string, seconds: number) =>
        Effect.orDie(glucose({ userId, from, to, seconds }))
    } as const
  })
}) {}
