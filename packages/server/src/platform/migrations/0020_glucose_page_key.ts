/**
 * A page of glucose readings (`limit`, `cursor`; docs/large-reads.md) is the readings after a key in the order
 * (date, provider, connection, system time, record id). The (user, date) index found every reading of the range
 * and sorted them to take the first hundred: with a year stored, a page of 100 of a 30-day range read and sorted
 * 8,640 rows. An index in the page's own order lets a page be one index range that stops after its rows. It
 * replaces the (user, date) index, of which it is an extension, so the readings keep one index to maintain.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create index glucose_readings_page on glucose_readings
      (user_id, date, provider, connection_id, system_time, provider_record_id)
  `
  yield* sql`drop index glucose_readings_user_date`
})
