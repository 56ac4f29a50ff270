/**
 * The records a backfill set aside in the quarantine, kept with its plan so
 * `sync.backfill.completed` can say it: each window adds to it in the transaction that moves the
 * cursor; planning a backfill starts it again.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table sync_state add column backfill_quarantined integer not null default 0`
})
