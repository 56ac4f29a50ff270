/**
 * Every statement on the `apps` table: the tenants, created by an operator (or as the first
 * start's demo app); only their name changes later. Rows are decoded with the `App` schema.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AppId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export const App = Schema.Struct({ id: AppId, name: Schema.String, createdAt: Schema.DateFromSelf })
export type App = typeof App.Type

/** An app and how many users it has (erased users are gone from the table). */
export const AppWithUsers = Schema.Struct({ ...App.fields, users: Schema.Int })
export type AppWithUsers = typeof AppWithUsers.Type

export class AppsRepo extends Effect.Service<AppsRepo>()("@pulsebridge/server/AppsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.single({
      Request: Schema.Struct({ id: AppId, name: Schema.String }),
      Result: App,
      execute: ({ id, name }) => sql`insert into apps (id, name) values (${id}, ${name}) returning id, name, created_at`
    })

    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: App,
      execute: (id) => sql`select id, name, created_at from apps where id = ${id}`
    })

    const list = SqlSchema.findAll({
      Request: Schema.Void,
      Result: App,
      execute: () => sql`select id, name, created_at from apps order by created_at, id`
    })

    const withUsers = sql.literal(
      "a.id, a.name, a.created_at, (select count(*)::int from users u where u.app_id = a.id) as users"
    )

    const listWithUsers = SqlSchema.findAll({
      Request: Schema.Void,
      Result: AppWithUsers,
      execute: () => sql`select ${withUsers} from apps a order by a.created_at, a.id`
    })

    const findWithUsers = SqlSchema.findOne({
      Request: Schema.String,
      Result: AppWithUsers,
      execute: (id) => sql`select ${withUsers} from apps a where a.id = ${id}`
    })

    const rename = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.String, name: Schema.String }),
      Result: App,
      execute: ({ id, name }) =>
        sql`update apps set name = ${name}, updated_at = now() where id = ${id} returning id, name, created_at`
    })

    const count = SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ count: Schema.Int }),
      execute: () => sql`select count(*)::int as count from apps`
    })

    return {
      insert: (id: AppId, name: string) => insert({ id, name }).pipe(Effect.orDie),

      /** The app with this id; the id must be a UUID (the column's type). */
      findById: (id: string) => findById(id).pipe(Effect.orDie),

      /** Every app, oldest first. */
      list: list(undefined).pipe(Effect.orDie),

      /** Every app with the number of its users, oldest first. */
      listWithUsers: listWithUsers(undefined).pipe(Effect.orDie),

      /** The app with the number of its users; the id must be a UUID. */
      findWithUsers: (id: string) => findWithUsers(id).pipe(Effect.orDie),

      /** Renames the app; none for an unknown id (a UUID). */
      rename: (id: string, name: string) => rename({ id, name }).pipe(Effect.orDie),

      count: count(undefined).pipe(Effect.map((row) => row.count), Effect.orDie),

      /** Sets (or, with null, clears) the app's assistant sign-in URL; false for an unknown id (a UUID). */
      setAssistantSignInUrl: (id: string, url: string | null) =>
        sql<{ id: string }>`update apps set assistant_sign_in_url = ${url} where id = ${id} returning id`.pipe(
          Effect.map((rows) => rows.length === 1),
          Effect.orDie
        ),

      /** The app's assistant sign-in URL (null when it has none); none for an unknown id (a UUID). */
      assistantSignInUrl: (id: string) =>
        sql<{ assistantSignInUrl: string | null }>`select assistant_sign_in_url from apps where id = ${id}`.pipe(
          Effect.map((rows) => rows.length === 0 ? Option.none() : Option.some(rows[0]!.assistantSignInUrl)),
          Effect.orDie
        )
    } as const
  })
}) {}
