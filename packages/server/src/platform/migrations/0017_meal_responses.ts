/**
 * The glucose responses to meals read the readings of a few hours around each entry, by instant: an
 * index on (user, system time) lets each window be one index range, where the (user, local date) index
 * would read whole days on both sides of it (a reading's local date can be a day off its UTC instant).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`create index glucose_readings_user_time on glucose_readings (user_id, system_time)`
})
