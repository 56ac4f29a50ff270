/**
 * Each canonical record names its owner by one foreign key, `(connection_id, user_id)` to the connection's own
 * pair, in place of one key to `connections` and another to `users`. The pair is stronger (a record's user is
 * its connection's user, which neither key said) and costs the sync half as much: PostgreSQL checks a foreign key
 * row by row, and on a backfill the two checks were most of the time an insert of readings took.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

const recordTables = [
  "daily_activity",
  "daily_load",
  "sleep_sessions",
  "recoveries",
  "workouts",
  "profile_snapshots",
  "body_measurement_snapshots",
  "glucose_readings",
  "glucose_events",
  "glucose_calibrations"
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table connections add constraint connections_id_user_id_key unique (id, user_id)`
  for (const table of recordTables) {
    yield* sql.unsafe(`
      alter table ${table}
        drop constraint if exists ${table}_connection_id_fkey,
        drop constraint if exists ${table}_user_id_fkey,
        add constraint ${table}_owner_fkey foreign key (connection_id, user_id) references connections (id, user_id)
    `)
  }
})
