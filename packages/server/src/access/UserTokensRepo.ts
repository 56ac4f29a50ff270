/**
 * Every statement on the `user_tokens` table. A token is stored as the hash of its secret, bound
 * to one user; revoking keeps the row. The look-up of a presented token joins its user, whose
 * status decides whether the token still works.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import { AppId, UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { newId } from "../platform/Ids.js"

/** The user of a live token, as the user-scoped endpoints need it. */
export const AuthenticatedUser = Schema.Struct({ appId: AppId, userId: UserId, timezone: Schema.String })
export type AuthenticatedUser = typeof AuthenticatedUser.Type

/**
 * The Active user of the live token with this hash as one JSON value shaped like `AuthenticatedUser` (null when
 * there is none), for statements that look the token up alongside other work (the rate limiter's take,
 * `RateLimitRepo`). The same rule as `findActiveUser`.
 */
export const activeUserJson = (sql: SqlClient.SqlClient, tokenHash: string): Statement.Fragment =>
  sql`
    select json_build_object('appId', u.app_id, 'userId', u.id, 'timezone', u.timezone)
    from user_tokens t join users u on u.id = t.user_id
    where t.token_hash = ${tokenHash} and t.revoked_at is null and u.status = 'Active'
  `

/**
 * Inserts a new live token with this hash for the user whose id is the `id` column of `source` (a name the
 * enclosing statement gives its users, such as a common table expression): for the user's create, which upserts
 * the user and issues its token in one statement (`UsersRepo.upsertActive`).
 */
export const insertTokenOf = (sql: SqlClient.SqlClient, source: string, tokenHash: string): Statement.Fragment =>
  sql`insert into user_tokens (id, user_id, token_hash) select ${newId()}, id, ${tokenHash} from ${sql.literal(source)}`

export class UserTokensRepo extends Effect.Service<UserTokensRepo>()("@pulsebridge/server/UserTokensRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findActiveUser = SqlSchema.findOne({
      Request: Schema.String,
      Result: AuthenticatedUser,
      execute: (tokenHash) =>
        sql`
          select u.app_id, u.id as user_id, u.timezone
          from user_tokens t join users u on u.id = t.user_id
          where t.token_hash = ${tokenHash} and t.revoked_at is null and u.status = 'Active'
        `
    })

    return {
      insert: (userId: UserId, tokenHash: string) =>
        sql`insert into user_tokens (id, user_id, token_hash) values (${newId()}, ${userId}, ${tokenHash})`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** Revokes every live token of the user. */
      revokeAllOf: (userId: string) =>
        sql`update user_tokens set revoked_at = now() where user_id = ${userId} and revoked_at is null`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** The Active user of the live token with this hash. */
      findActiveUser: (tokenHash: string) => findActiveUser(tokenHash).pipe(Effect.orDie)
    } as const
  })
}) {}
