/**
 * The delivery's circuit breaker, per webhook endpoint: its failed attempts in a row, the pauses in a row
 * they have caused, and until when it is paused. Kept in the database, so every worker process honours
 * a pause another one started, and a restart forgets none.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    alter table webhook_endpoints
      add column failure_streak integer not null default 0,
      add column pause_count integer not null default 0,
      add column paused_until timestamptz
  `
})
