/**
 * Why a connection is not Active (`status_reason`, shown to the app beside the status), and the
 * provider records that could not be read: kept with their raw JSON and the reason, once per
 * connection, kind and record key (the provider's id, or a hash of the raw JSON when the id
 * itself is unreadable), so re-reading a window does not add them again.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table connections add column status_reason text`
  yield* sql`
    create table quarantined_records (
      connection_id uuid not null references connections(id),
      user_id uuid not null references users(id),
      provider text not null,
      kind text not null,
      record_key text not null,
      provider_record_id text,
      reason text not null,
      raw_json text not null,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      primary key (connection_id, kind, record_key)
    )
  `
})
