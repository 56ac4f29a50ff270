/**
 * Which users are the sandbox page's test users (`sandbox_test_users`, migration 0025): the page marks each user it
 * makes, in the transaction that makes it, and its list and routes read only marked users. The mark goes with the
 * user's row (an erasure deletes it).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { AppId, UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export class SandboxTestUsersRepo extends Effect.Service<SandboxTestUsersRepo>()(
  "@pulsebridge/server/SandboxTestUsersRepo",
  {
    effect: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const findMark = SqlSchema.findOne({
        Request: Schema.Struct({ appId: Schema.String, userId: Schema.String }),
        Result: Schema.Struct({ userId: Schema.String }),
        execute: ({ appId, userId }) =>
          sql`select user_id from sandbox_test_users where user_id = ${userId} and app_id = ${appId}`
      })

      return {
        /** Marks the user as a test user of its app (again: no change). In the caller's transaction. */
        mark: (appId: AppId, userId: UserId) =>
          sql`
            insert into sandbox_test_users (user_id, app_id) values (${userId}, ${appId})
            on conflict (user_id) do nothing
          `.pipe(Effect.asVoid),

        /** Whether the user is a test user of this app. */
        isTestUserOf: (appId: AppId, userId: UserId) =>
          findMark({ appId, userId }).pipe(Effect.map(Option.isSome), Effect.orDie)
      } as const
    })
  }
) {}
