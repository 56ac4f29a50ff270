/**
 * Every statement on the `users` table, each scoped by app id so that an app never reaches
 * another app's user. Rows are decoded straight into the domain's `User`; the reads of one user and the create's
 * upsert, on every user-scoped request's path, build it from the row as the database typed it (`userOfRow`). A user
 * being erased (status `Erasing`, see `ErasureRepo`) is gone for every statement here, and for every other statement
 * that reads a user: this module owns that rule (`liveUser`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import { AppId, User, UserId } from "@pulsebridge/domain"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { insertTokenOf } from "../access/UserTokensRepo.js"
import { stoppedSyncsOfUser } from "../connections/ConnectionsRepo.js"

// node-postgres returns timestamps as `Date`s; the contract's `User` encodes them as strings.
const userRowFields = { ...User.fields, createdAt: Schema.DateFromSelf, updatedAt: Schema.DateFromSelf }

/**
 * A `users` row as the domain's `User`. The row is decoded field by field with the `User`'s own field schemas
 * first, so the class is built without validating the same fields again (`true`: no validation), which would
 * also derive the class's type schema anew on every row.
 */
export const UserFromRow = Schema.transform(Schema.Struct(userRowFields), Schema.typeSchema(User), {
  strict: true,
  decode: (row) => new User(row, true),
  encode: (user) => user
})

/**
 * A `users` row, as node-postgres types it, as the domain's `User`, with no schema pass: the table's column types
 * and constraints are the `User`'s (uuid ids, text, the status check, jsonb metadata, timestamps as `Date`s), and
 * every value was checked by its schema on the way in. For the reads on every request's path.
 */
type UserRow = ConstructorParameters<typeof User>[0]
const userOfRow = (row: UserRow): User => new User(row, true)

export interface NewUser {
  readonly id: UserId
  readonly appId: AppId
  readonly externalUserId: string
  readonly locale: string
  readonly timezone: string
  readonly metadata: Readonly<Record<string, unknown>>
}

/** The fields to change; an absent one keeps its value, metadata is replaced as a whole. */
export interface UserChanges {
  readonly locale?: string | undefined
  readonly timezone?: string | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

const ByApp = Schema.Struct({ appId: AppId, id: Schema.String })

/**
 * The user is not being erased: an erasing user's row stays, renamed, until its erasure ends (`ErasureRepo`), and
 * every read of users passes it by. `alias` is the name the statement gives the `users` table, if any.
 */
export const liveUser = (sql: Statement.Constructor, alias?: string): Statement.Fragment =>
  sql.literal(`${alias === undefined ? "" : `${alias}.`}status <> 'Erasing'`)

export class UsersRepo extends Effect.Service<UsersRepo>()("@pulsebridge/server/UsersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const columns = sql.literal(
      "id, app_id, external_user_id, status, locale, timezone, metadata, created_at, updated_at"
    )

    const live = liveUser(sql)

    // On every user create's path: the values were checked by the request's schema, and the row comes back as the
    // database typed it (`userOfRow`). One statement, so atomic by itself: the user, its new token, and whether
    // it has syncs to resume, in one round trip.
    const upsertActive = (user: NewUser, tokenHash: string) =>
      sql<UserRow & { readonly inserted: boolean; readonly stoppedSyncs: boolean }>`
        with upserted as (
          insert into users (id, app_id, external_user_id, status, locale, timezone, metadata)
          values (
            ${user.id}, ${user.appId}, ${user.externalUserId}, 'Active', ${user.locale}, ${user.timezone},
            ${JSON.stringify(user.metadata)}::jsonb
          )
          on conflict (app_id, external_user_id) do update set
            status = 'Active',
            deleted_at = null,
            updated_at = case when users.status = 'Active' then users.updated_at else now() end
          returning ${columns}, (xmax = 0) as inserted
        ), token as (${insertTokenOf(sql, "upserted", tokenHash)})
        select ${columns}, inserted,
          exists (${stoppedSyncsOfUser(sql, sql.literal("upserted.id"), "1")}) as stopped_syncs
        from upserted
      `.pipe(Effect.flatMap(([row]) => {
        if (row === undefined) return Effect.dieMessage("the user's upsert returned no row")
        const { inserted, stoppedSyncs, ...user } = row
        return Effect.succeed({ user: userOfRow(user), inserted, stoppedSyncs })
      }))

    const firstUser = (rows: ReadonlyArray<UserRow>) => Option.map(Arr.head(rows), userOfRow)

    const findById = (appId: AppId, id: string) =>
      sql<UserRow>`select ${columns} from users where id = ${id} and app_id = ${appId} and ${live}`
        .pipe(Effect.map(firstUser))

    const findByExternalId = (appId: AppId, externalUserId: string) =>
      sql<UserRow>`
        select ${columns} from users where app_id = ${appId} and external_user_id = ${externalUserId} and ${live}
      `.pipe(Effect.map(firstUser))

    const update = SqlSchema.findOne({
      Request: Schema.Struct({
        appId: AppId,
        id: Schema.String,
        locale: Schema.NullOr(Schema.String),
        timezone: Schema.NullOr(Schema.String),
        metadata: Schema.NullOr(Schema.String)
      }),
      Result: UserFromRow,
      execute: (changes) =>
        sql`
          update users set
            locale = coalesce(${changes.locale}, locale),
            timezone = coalesce(${changes.timezone}, timezone),
            metadata = coalesce(${changes.metadata}::jsonb, metadata),
            updated_at = now()
          where id = ${changes.id} and app_id = ${changes.appId} and ${live}
          returning ${columns}
        `
    })

    // The row is locked before it is read, so of two concurrent deletes only the first sees it Active.
    const deactivate = SqlSchema.findOne({
      Request: ByApp,
      Result: Schema.Struct({ id: UserId, externalUserId: Schema.String, wasActive: Schema.Boolean }),
      execute: ({ appId, id }) =>
        sql`
          with old as (
            select id, status from users where id = ${id} and app_id = ${appId} and ${live} for update
          )
          update users set
            status = 'Inactive',
            deleted_at = coalesce(deleted_at, now()),
            updated_at = case when users.status = 'Inactive' then users.updated_at else now() end
          from old
          where users.id = old.id
          returning users.id, users.external_user_id, old.status = 'Active' as was_active
        `
    })

    return {
      /**
       * Inserts the user, or finds the app's user with the same externalUserId and makes it Active
       * again; one statement decides which, so concurrent creates agree.
       */
      /**
       * The app's user with this external id made Active (inserted when new) with a new live token of this hash,
       * in one statement: the user, whether it was inserted, and whether it has Active connections whose sync is
       * Stopped (a user deleted before), which its create then resumes.
       */
      upsertActive: (user: NewUser, tokenHash: string) => upsertActive(user, tokenHash).pipe(Effect.orDie),

      /** The app's user with this id (a UUID), or none. */
      findById: (appId: AppId, id: string) => findById(appId, id).pipe(Effect.orDie),

      findByExternalId: (appId: AppId, externalUserId: string) =>
        findByExternalId(appId, externalUserId).pipe(Effect.orDie),

      /** Applies the changes to the app's user with this id (a UUID); none when there is no such user. */
      update: (appId: AppId, id: string, changes: UserChanges) =>
        update({
          appId,
          id,
          locale: changes.locale ?? null,
          timezone: changes.timezone ?? null,
          metadata: changes.metadata === undefined ? null : JSON.stringify(changes.metadata)
        }).pipe(Effect.orDie),

      /**
       * Makes the app's user with this id (a UUID) Inactive, keeping the first deletion time: its id and external id
       * and whether it was Active before (false when it already was Inactive), or none when there is no such user.
       */
      deactivate: (appId: AppId, id: string) => deactivate({ appId, id }).pipe(Effect.orDie)
    } as const
  })
}) {}
