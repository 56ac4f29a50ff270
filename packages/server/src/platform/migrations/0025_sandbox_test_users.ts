/**
 * The sandbox page's test users: the users it made (or made again) for an app, which its list shows. A mark of its
 * own rather than a pattern of the external id, which an operator may choose freely. A user's mark goes with the
 * user (on delete cascade: its erasure deletes the row). Users the page made before this migration are found by
 * their `sandbox.testUser` audit events.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Marks the users the sandbox page made before the mark existed: each user named by a `sandbox.testUser` audit event
 * (an erased user's events name no user any more), from the first such event. Running it again changes nothing.
 */
export const markEarlierTestUsers = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    insert into sandbox_test_users (user_id, app_id, marked_at)
    select u.id, u.app_id, min(e.at)
    from audit_events e join users u on u.id::text = e.target_id
    where e.action = 'sandbox.testUser' and e.target_type = 'user'
    group by u.id, u.app_id
    on conflict (user_id) do nothing
  `
})

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table sandbox_test_users (
      user_id uuid primary key references users(id) on delete cascade,
      app_id uuid not null references apps(id),
      marked_at timestamptz not null default now()
    )
  `
  yield* sql`create index sandbox_test_users_app_idx on sandbox_test_users (app_id)`
  yield* markEarlierTestUsers
})
