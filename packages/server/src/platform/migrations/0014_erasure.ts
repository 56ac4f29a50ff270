/**
 * Erasure of a user: the tombstone that outlives the user's rows. It names the user and its app
 * by id and says when the erasure was asked for and when it ended, and nothing else: no external
 * id, no metadata, no provider identity. A tombstone without `completed_at` is an erasure still
 * to finish (workers resume those at start).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table erased_users (
      id uuid primary key,
      app_id uuid not null references apps(id),
      requested_at timestamptz not null,
      completed_at timestamptz
    )
  `
  yield* sql`create index erased_users_unfinished_idx on erased_users (requested_at) where completed_at is null`
})
