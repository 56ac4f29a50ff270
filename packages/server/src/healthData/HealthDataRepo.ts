/**
 * The reads of the canonical health tables behind endpoints 10-14. Range reads cover the user's
 * connections that are not disconnected (Active or Reauthorize: data already read stays readable
 * while the user reconnects), sorted by date, then provider, then connection. Rows are decoded
 * with schemas. The API's range reads take the fast path of `RangeReads` instead; these stay the reference.
 *
 * Contract types are kept: a load window is served only once the provider scored it (the values
 * the contract types as numbers are all there). A WHOOP cycle stored while `PENDING_SCORE` or
 * `UNSCORABLE` stays stored (its row is updated in place when WHOOP scores it) but is left out of
 * endpoints 12 and 13 until then; the running cycle, scored with a running strain and no end, is
 * served with `windowEndUtc: null`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { ConnectionId, DailyActivitySummary, LocalDate, Provider, UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { visibleConnection } from "../connections/ConnectionsRepo.js"
import { isoText, sleepColumns, workoutColumns } from "./RangeReads.js"

export interface RangeQuery {
  readonly from: string
  readonly to: string
  readonly provider?: Provider | undefined
}

const RangeRequest = Schema.Struct({
  userId: UserId,
  from: Schema.String,
  to: Schema.String,
  provider: Schema.optional(Schema.String)
})

const DayRequest = Schema.Struct({ connectionId: Schema.String, date: Schema.String })

/** One day of activity of one connection, in the provider's terms (endpoint 11). */
export const ActivityDayRow = Schema.Struct({
  steps: Schema.Number,
  caloriesOut: Schema.Number,
  distanceMeters: Schema.Number,
  moderateActiveMinutes: Schema.Number,
  vigorousActiveMinutes: Schema.Number,
  rawJson: Schema.String
})

/** A load window as stored (timestamps as the driver returns them). */
export const LoadRow = Schema.Struct({
  date: LocalDate,
  windowKind: Schema.String,
  windowStartUtc: Schema.DateFromSelf,
  windowEndUtc: Schema.NullOr(Schema.DateFromSelf),
  loadScore: Schema.Number,
  loadScoreScale: Schema.String,
  energyKilocalories: Schema.Number,
  averageHeartRate: Schema.Number,
  maxHeartRate: Schema.Number,
  distanceMeters: Schema.NullOr(Schema.Number),
  steps: Schema.NullOr(Schema.Number),
  zoneDurationsJson: Schema.String,
  sourceConfidence: Schema.String
})
export type LoadRow = typeof LoadRow.Type

export const LoadSummaryRow = Schema.Struct({ connectionId: ConnectionId, provider: Provider, ...LoadRow.fields })
export type LoadSummaryRow = typeof LoadSummaryRow.Type

/** One connection's glucose readings of one day, aggregated in mg/dL (`GlucoseSummaries`). */
export const GlucoseDayRow = Schema.Struct({
  connectionId: ConnectionId,
  provider: Provider,
  date: LocalDate,
  readings: Schema.Number,
  sum: Schema.Number,
  sumOfSquares: Schema.Number,
  min: Schema.Number,
  max: Schema.Number,
  veryLow: Schema.Number,
  low: Schema.Number,
  inRange: Schema.Number,
  high: Schema.Number,
  veryHigh: Schema.Number
})
export type GlucoseDayRow = typeof GlucoseDayRow.Type

export class HealthDataRepo extends Effect.Service<HealthDataRepo>()("@pulsebridge/server/HealthDataRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const providerFilter = (alias: string, provider: string | undefined) =>
      provider === undefined ? sql.literal("") : sql`and ${sql.literal(alias)}.provider = ${provider}`

    const activityRange = SqlSchema.findAll({
      Request: RangeRequest,
      Result: DailyActivitySummary,
      execute: (query) =>
        sql`
          select * from (
            select distinct on (a.connection_id, a.date)
              a.connection_id, a.provider, a.date::text as date, a.steps, a.calories_out, a.distance_meters,
              a.light_active_minutes, a.moderate_active_minutes, a.vigorous_active_minutes, a.sedentary_minutes,
              a.floors_climbed
            from daily_activity a join connections c on c.id = a.connection_id
            where a.user_id = ${query.userId} and a.date between ${query.from} and ${query.to}
              and ${visibleConnection(sql, "c")} ${providerFilter("a", query.provider)}
            order by a.connection_id, a.date, a.updated_at desc
          ) d
          order by d.date, d.provider, d.connection_id
        `
    })

    const activityDay = SqlSchema.findOne({
      Request: DayRequest,
      Result: ActivityDayRow,
      execute: ({ connectionId, date }) =>
        sql`
          select steps, calories_out, distance_meters, moderate_active_minutes, vigorous_active_minutes, raw_json
          from daily_activity where connection_id = ${connectionId} and date = ${date}
          order by updated_at desc limit 1
        `
    })

    const loadColumns = sql.literal(`
      l.date::text as date, l.window_kind, l.window_start as window_start_utc, l.window_end as window_end_utc,
      l.load_score, l.load_score_scale, l.energy_kilocalories, l.average_heart_rate, l.max_heart_rate,
      l.distance_meters, l.steps, l.zone_durations_json, l.source_confidence`)

    /** The windows whose values are complete (see the module's first lines). */
    const scored = sql.literal(`
      l.load_score is not null and l.energy_kilocalories is not null and l.average_heart_rate is not null
      and l.max_heart_rate is not null`)

    const loadRange = SqlSchema.findAll({
      Request: RangeRequest,
      Result: LoadSummaryRow,
      execute: (query) =>
        sql`
          select l.connection_id, l.provider, ${loadColumns}
          from daily_load l join connections c on c.id = l.connection_id
          where l.user_id = ${query.userId} and l.date between ${query.from} and ${query.to}
            and ${visibleConnection(sql, "c")} and ${scored} ${providerFilter("l", query.provider)}
          order by l.date, l.provider, l.connection_id, l.window_start
        `
    })

    // Two cycles can fall on one local day (a short night); the day's record is the later one.
    const loadDay = SqlSchema.findOne({
      Request: DayRequest,
      Result: LoadRow,
      execute: ({ connectionId, date }) =>
        sql`
          select ${loadColumns} from daily_load l
          where l.connection_id = ${connectionId} and l.date = ${date} and ${scored}
          order by l.window_start desc limit 1
        `
    })

    // Values in mmol/L are converted; a reading at the sensor's bound (Dexcom: 39 `Low`, 401 `High`) counts at the
    // bound of the CGM's reporting range, 40 or 400, as CGM reports do. Readings without a value are left out.
    const glucoseDays = SqlSchema.findAll({
      Request: Schema.Struct({ userId: UserId, from: Schema.String, to: Schema.String, mgDlPerMmolL: Schema.Number }),
      Result: GlucoseDayRow,
      execute: ({ from, mgDlPerMmolL, to, userId }) =>
        sql`
          select g.connection_id, g.provider, g.date::text as date, count(*)::int as readings,
            sum(g.v)::float8 as sum, sum(g.v * g.v)::float8 as sum_of_squares, min(g.v)::float8 as min,
            max(g.v)::float8 as max,
            (count(*) filter (where g.v < 54))::int as very_low,
            (count(*) filter (where g.v >= 54 and g.v < 70))::int as low,
            (count(*) filter (where g.v >= 70 and g.v <= 180))::int as in_range,
            (count(*) filter (where g.v > 180 and g.v <= 250))::int as high,
            (count(*) filter (where g.v > 250))::int as very_high
          from (
            select r.connection_id, r.provider, r.date,
              least(greatest(case when r.unit = 'mmol/L' then r.value * ${mgDlPerMmolL} else r.value end, 40), 400) as v
            from glucose_readings r
            where r.user_id = ${userId} and r.date between ${from} and ${to} and r.value is not null
              and r.unit in ('mg/dL', 'mmol/L')
          ) g
          join connections c on c.id = g.connection_id
          where ${visibleConnection(sql, "c")}
          group by g.connection_id, g.provider, g.date
          order by g.date, g.provider, g.connection_id
        `
    })

    const raw = sql.withoutTransforms()
    /** One record of a connection by PulseBridge's id, in the contract's shape, with its raw JSON. */
    const recordById = (table: string, columns: string, connectionId: string, id: string) =>
      raw<Record<string, unknown>>`
        select x.id::text as id, x.provider_record_id as "providerRecordId", x.connection_id as "connectionId",
          x.provider, x.date::text as date, ${raw.literal(columns)}, x.raw_json as "rawJson"
        from ${raw(table)} x where x.connection_id = ${connectionId} and x.id = ${id}
      `.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)

    return {
      sleepById: (connectionId: string, id: string) =>
        recordById("sleep_sessions", sleepColumns(isoText), connectionId, id),
      workoutById: (connectionId: string, id: string) =>
        recordById("workouts", workoutColumns(isoText), connectionId, id),
      /** Each connection's glucose of each day of the range, aggregated in mg/dL, by date then provider. */
      glucoseDays: (userId: UserId, from: string, to: string, mgDlPerMmolL: number) =>
        glucoseDays({ userId, from, to, mgDlPerMmolL }).pipe(Effect.orDie),
      activityRange: (userId: UserId, query: RangeQuery) => activityRange({ userId, ...query }).pipe(Effect.orDie),
      activityDay: (connectionId: string, date: string) => activityDay({ connectionId, date }).pipe(Effect.orDie),
      loadRange: (userId: UserId, query: RangeQuery) => loadRange({ userId, ...query }).pipe(Effect.orDie),
      loadDay: (connectionId: string, date: string) => loadDay({ connectionId, date }).pipe(Effect.orDie)
    } as const
  })
}) {}
