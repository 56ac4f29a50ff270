/**
 * A backfill's progress: `backfill_to` keeps the newest day of the planned range, so windows done
 * and total follow from it, `backfill_from` and the cursor. A backfill already under way counts
 * from where it stands now (its cursor), as nothing older says where it began.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table sync_state add column backfill_to date`
  yield* sql`update sync_state set backfill_to = backfill_cursor where backfill_cursor is not null`
})
