/**
 * WHOOP cycles, recoveries and sleeps move to the day the member wakes into (ARCHITECTURE
 * "Dates"). Rows stored before were dated by the local date of the cycle's start (the evening, for
 * anyone who falls asleep before midnight), recoveries by their cycle's, and recoveries without a
 * stored cycle by their sleep's local start date. Re-dated here from the stored rows and the
 * provider's JSON (`raw_json`), with the rule the WHOOP normaliser applies to new reads:
 *
 * 1. a cycle: the local date, at the cycle's `timezone_offset`, of the end of the sleep that opens
 *    it (the earliest non-nap sleep whose `cycle_id` is the cycle's), else of `start + 12 h`;
 * 2. a sleep whose cycle is stored: the cycle's date (others keep the local date of their end);
 * 3. a recovery: its cycle's date, else its sleep's date.
 *
 * Plain SQL, so it runs alike on PostgreSQL and the embedded PGlite, and running it again changes
 * nothing. Scores need no step of their own: they are computed on each read from the stored
 * rows (`ScoreData`), so the next read of the affected dates scores them with the new dates.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The offset `±hh:mm` (or `±hhmm`, or `Z`) of a row's JSON as an interval; anything else is UTC.
  const offsetOf = (alias: string) =>
    sql.literal(`(
      case when (${alias}.raw_json::json->>'timezone_offset') ~ '^[+-][0-9]{2}:?[0-9]{2}$'
        then (case when left(${alias}.raw_json::json->>'timezone_offset', 1) = '-' then -1 else 1 end)
          * (substr(${alias}.raw_json::json->>'timezone_offset', 2, 2)::int * 60
            + right(${alias}.raw_json::json->>'timezone_offset', 2)::int) * interval '1 minute'
        else interval '0 minutes'
      end)`)

  yield* sql`
    with opening as (
      select distinct on (s.connection_id, s.raw_json::json->>'cycle_id')
        s.connection_id, s.raw_json::json->>'cycle_id' as cycle_id, s.end_at
      from sleep_sessions s
      where s.provider = 'WHOOP' and not s.nap and s.raw_json::json->>'cycle_id' is not null
      order by s.connection_id, s.raw_json::json->>'cycle_id', s.start_at
    ),
    redated as (
      select l.connection_id, l.provider_record_id,
        ((coalesce(o.end_at, l.window_start + interval '12 hours') at time zone 'UTC') + ${offsetOf("l")})::date
          as date
      from daily_load l
      left join opening o on o.connection_id = l.connection_id and o.cycle_id = l.provider_record_id
      where l.provider = 'WHOOP'
    )
    update daily_load l set date = r.date
    from redated r
    where l.connection_id = r.connection_id and l.provider_record_id = r.provider_record_id and l.date <> r.date
  `
  yield* sql`
    update sleep_sessions s set date = l.date
    from daily_load l
    where s.provider = 'WHOOP' and l.connection_id = s.connection_id
      and l.provider_record_id = s.raw_json::json->>'cycle_id' and s.date <> l.date
  `
  yield* sql`
    update recoveries r set date = l.date
    from daily_load l
    where r.provider = 'WHOOP' and l.connection_id = r.connection_id and l.provider_record_id = r.provider_record_id
      and r.date <> l.date
  `
  yield* sql`
    update recoveries r set date = s.date
    from sleep_sessions s
    where r.provider = 'WHOOP' and s.connection_id = r.connection_id and s.provider_record_id = r.sleep_id
      and r.date <> s.date
      and not exists (
        select 1 from daily_load l where l.connection_id = r.connection_id and l.provider_record_id = r.provider_record_id
      )
  `
})
