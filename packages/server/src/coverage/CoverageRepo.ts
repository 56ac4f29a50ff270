/**
 * The statements behind data coverage: the user's time zone, the user's connections that are not
 * disconnected with their sync state, and one statement counting what each connection (and the journal)
 * holds of each day of a range. Each count reads the (user, date) index of its table; rows are decoded
 * with schemas and every read is scoped by the user's id.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { visibleConnection } from "../connections/ConnectionsRepo.js"
import { GlucoseSlotsPerDay } from "./DayCoverage.js"

export const ConnectionRow = Schema.Struct({
  id: Schema.String,
  provider: Schema.String,
  status: Schema.String,
  syncState: Schema.NullOr(Schema.String),
  backfillFrom: Schema.NullOr(Schema.String),
  backfillCursor: Schema.NullOr(Schema.String)
})
export type ConnectionRow = typeof ConnectionRow.Type

/** What one connection (null: the journal) holds of one day of one data type. */
export const MeasureRow = Schema.Struct({
  dataType: Schema.Literal("dailyActivity", "dailyLoad", "sleep", "recovery", "workouts", "body", "glucose", "journal"),
  connectionId: Schema.NullOr(Schema.String),
  date: Schema.String,
  records: Schema.Number,
  completeRecords: Schema.Number,
  dayFraction: Schema.NullOr(Schema.Number)
})
export type MeasureRow = typeof MeasureRow.Type

const Range = Schema.Struct({ userId: Schema.String, from: Schema.String, to: Schema.String })

export class CoverageRepo extends Effect.Service<CoverageRepo>()("@pulsebridge/server/CoverageRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const timezone = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ timezone: Schema.NullOr(Schema.String) }),
      execute: (userId) => sql`select timezone from users where id = ${userId}`
    })

    const connections = SqlSchema.findAll({
      Request: Schema.String,
      Result: ConnectionRow,
      execute: (userId) =>
        sql`
          select c.id, c.provider, c.status, s.state as sync_state,
            s.backfill_from::text as backfill_from, s.backfill_cursor::text as backfill_cursor
          from connections c left join sync_state s on s.connection_id = c.id
          where c.user_id = ${userId} and ${visibleConnection(sql, "c")}
          order by c.created_at, c.id
        `
    })

    // The final records of each type: a cycle served by the reads (scored) and ended, a scored main sleep, a
    // scored recovery, any workout or body measurement, an entry whose analysis is not pending. A Garmin daily says the span it covers; glucose
    // counts the day's five-minute slots with a reading.
    const slots = sql.literal(`${GlucoseSlotsPerDay}.0`)
    const measures = SqlSchema.findAll({
      Request: Range,
      Result: MeasureRow,
      execute: ({ from, to, userId }) =>
        sql`
          select 'dailyActivity' as data_type, connection_id::text, date::text, count(*)::int as records,
            count(*)::int as complete_records, (max(covered_seconds) / 86400)::float8 as day_fraction
          from daily_activity where user_id = ${userId} and date between ${from}::date and ${to}::date
          group by connection_id, date
          union all
          select 'dailyLoad', connection_id::text, date::text, count(*)::int,
            (count(*) filter (where load_score is not null and energy_kilocalories is not null
              and average_heart_rate is not null and window_end is not null))::int, null::float8
          from daily_load where user_id = ${userId} and date between ${from}::date and ${to}::date
          group by connection_id, date
          union all
          select 'sleep', connection_id::text, date::text, count(*)::int,
            (count(*) filter (where not nap and score_state = 'SCORED'))::int, null
          from sleep_sessions where user_id = ${userId} and date between ${from}::date and ${to}::date
          group by connection_id, date
          union all
          select 'recovery', connection_id::text, date::text, count(*)::int,
            (count(*) filter (where score_state = 'SCORED'))::int, null
          from recoveries where user_id = ${userId} and date between ${from}::date and ${to}::date
          group by connection_id, date
          union all
          select 'workouts', connection_id::text, date::text, count(*)::int, count(*)::int, null
          from workouts where user_id = ${userId} and date between ${from}::date and ${to}::date
          group by connection_id, date
          union all
          select 'body', connection_id::text, date::text, count(*)::int, count(*)::int, null
          from body_measurement_snapshots where user_id = ${userId} and date between ${from}::date and ${to}::date
          group by connection_id, date
          union all
          select 'glucose', connection_id::text, date::text, count(*)::int, 0,
            (count(distinct floor(extract(epoch from system_time) / 300)) / ${slots})::float8
          from glucose_readings
          where user_id = ${userId} and date between ${from}::date and ${to}::date and value is not null
          group by connection_id, date
          union all
          select 'journal', null, journal_date::text, count(*)::int,
            (count(*) filter (where analysis_status <> 'Pending'))::int, null
          from journal_entries where user_id = ${userId} and journal_date between ${from}::date and ${to}::date
          group by journal_date
        `
    })

    return {
      /** The user's time zone (UTC when unknown). */
      timezoneOf: (userId: UserId) =>
        timezone(userId).pipe(
          Effect.map((row) => Option.getOrUndefined(row)?.timezone ?? "UTC"),
          Effect.orDie
        ),

      /** The user's connections that are not disconnected, with their sync state, oldest first. */
      connectionsOf: (userId: UserId) => connections(userId).pipe(Effect.orDie),

      /** What each connection and the journal hold of each day from `from` to `to` (days without rows are absent). */
      measuresOf: (userId: UserId, from: string, to: string) => measures({ userId, from, to }).pipe(Effect.orDie)
    } as const
  })
}) {}
