/**
 * How much of its day a daily activity record covers (Garmin's `durationInSeconds`): a day is
 * uploaded partial then full, and a partial upload read after the full one must not replace it.
 * Stored Garmin rows get theirs from the raw JSON.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table daily_activity add column covered_seconds double precision`
  yield* sql`
    update daily_activity set covered_seconds = (raw_json::json ->> 'durationInSeconds')::double precision
    where provider = 'Garmin' and json_typeof(raw_json::json -> 'durationInSeconds') = 'number'
  `
})
