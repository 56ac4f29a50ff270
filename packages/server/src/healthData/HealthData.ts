/**
 * Reads of the canonical health data (endpoints 10-14). Range reads cover the user's
 * connections that are not disconnected (Active or Reauthorize: data already read stays
 * readable while the user reconnects), sorted by date, then provider, then connection.
 * Single reads take one connection of the user and one date.
 */
import { HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import type { ConnectionId, Provider, UserId } from "@pulsebridge/domain"
import {
  BadRequest,
  DailyActivity,
  DailyActivitySummary,
  DailyLoadRecord,
  DailyLoadSummary,
  NotFound
} from "@pulsebridge/domain"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"

export interface RangeQuery {
  readonly from: string
  readonly to: string
  readonly provider?: Provider | undefined
}

export class HealthData extends Effect.Service<HealthData>()("@pulsebridge/server/HealthData", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const connections = yield* ConnectionsRepo
    const registry = yield* ProviderRegistry

    /** Whether the provider reports daily activity summaries (endpoint 11). */
    const hasDailyActivity = (provider: Provider) =>
      Option.exists(registry.find(provider), (plugin) => plugin.catalog.supportedDataTypes.includes("DailyActivity"))

    /** A `provider` filter must name a registered provider. */
    const checkFilter = (query: RangeQuery) =>
      query.provider === undefined || Option.isSome(registry.find(query.provider))
        ? Effect.void
        : Effect.fail(new BadRequest({ message: `PulseBridge has no provider named ${query.provider}` }))

    const providerFilter = (alias: string, provider: Provider | undefined) =>
      provider === undefined ? sql.literal("") : sql`and ${sql.literal(alias)}.provider = ${provider}`

    /** The user's connection with this id, or 404 (another user's connection looks absent). */
    const connectionOf = (userId: UserId, connectionId: ConnectionId) =>
      connections.findOfUser(userId, connectionId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ message: `no connection with id ${connectionId}` })),
          onSome: Effect.succeed
        }))
      )

    const activityRange = (userId: UserId, query: RangeQuery) =>
      sql<Omit<DailyActivitySummary, never>>`
        select * from (
          select distinct on (a.connection_id, a.date)
            a.connection_id, a.provider, a.date::text as date, a.steps, a.calories_out, a.distance_meters,
            a.light_active_minutes, a.moderate_active_minutes, a.vigorous_active_minutes, a.sedentary_minutes,
            a.floors_climbed
          from daily_activity a join connections c on c.id = a.connection_id
          where a.user_id = ${userId} and a.date between ${query.from} and ${query.to}
            and c.status <> 'Disconnected' ${providerFilter("a", query.provider)}
          order by a.connection_id, a.date, a.updated_at desc
        ) d
        order by d.date, d.provider, d.connection_id
      `.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.map((row) => new DailyActivitySummary(row, true)))
      )

    const activityByDate = (userId: UserId, connectionId: ConnectionId, date: string) =>
      Effect.gen(function*() {
        const connection = yield* connectionOf(userId, connectionId)
        if (!hasDailyActivity(connection.provider)) {
          return yield* new NotFound({
            message: `${connection.provider} has no daily activity summaries; read its daily load instead`
          })
        }
        const rows = yield* sql<{
          steps: number
          caloriesOut: number
          distanceMeters: number
          moderateActiveMinutes: number
          vigorousActiveMinutes: number
          rawJson: string
        }>`
          select steps, calories_out, distance_meters, moderate_active_minutes, vigorous_active_minutes, raw_json
          from daily_activity where connection_id = ${connectionId} and date = ${date}
          order by updated_at desc limit 1
        `.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) return yield* new NotFound({ message: `no daily activity on ${date}` })
        return new DailyActivity({
          steps: row.steps,
          caloriesOut: row.caloriesOut,
          distance: row.distanceMeters / 1000,
          fairlyActiveMinutes: row.moderateActiveMinutes,
          veryActiveMinutes: row.vigorousActiveMinutes,
          rawJson: row.rawJson
        }, true)
      })

    const loadColumns = sql.literal(`
      l.date::text as date, l.window_kind, l.window_start as window_start_utc, l.window_end as window_end_utc,
      l.load_score, l.load_score_scale, l.energy_kilocalories, l.average_heart_rate, l.max_heart_rate,
      l.distance_meters, l.steps, l.zone_durations_json, l.source_confidence`)

    const loadRange = (userId: UserId, query: RangeQuery) =>
      sql<DailyLoadSummary>`
        select l.connection_id, l.provider, ${loadColumns}
        from daily_load l join connections c on c.id = l.connection_id
        where l.user_id = ${userId} and l.date between ${query.from} and ${query.to}
          and c.status <> 'Disconnected' ${providerFilter("l", query.provider)}
        order by l.date, l.provider, l.connection_id, l.window_start
      `.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.map((row) => new DailyLoadSummary(row, true)))
      )

    const loadByDate = (userId: UserId, connectionId: ConnectionId, date: string) =>
      Effect.gen(function*() {
        yield* connectionOf(userId, connectionId)
        // Two cycles can start on one local day (a short night); the day's record is the later one.
        const rows = yield* sql<DailyLoadRecord>`
          select ${loadColumns} from daily_load l
          where l.connection_id = ${connectionId} and l.date = ${date}
          order by l.window_start desc limit 1
        `.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) return yield* new NotFound({ message: `no daily load record on ${date}` })
        return new DailyLoadRecord(row, true)
      })

    /**
     * Endpoint 14 answers thousands of readings (8,640 for 30 days of 5-minute values), so it
     * skips the per-row work the other reads afford: the SQL names the columns as the contract
     * does (no key renaming), and the rows are written as JSON directly, in exactly the shape the
     * `GlucoseData` schema describes (timestamps as ISO 8601 UTC through `Date#toJSON`).
     */
    const raw = sql.withoutTransforms()
    const glucose = (userId: UserId, query: RangeQuery) =>
      Effect.gen(function*() {
        const where = raw`
          x.user_id = ${userId} and x.date between ${query.from} and ${query.to}
          and c.status <> 'Disconnected' ${
          query.provider === undefined ? raw.literal("") : raw`and x.provider = ${query.provider}`
        }
        `
        const readings = yield* raw`
          select x.connection_id as "connectionId", x.provider, x.date::text as date,
            x.system_time as "systemTime", x.display_time as "displayTime", x.value, x.trend,
            x.trend_rate as "trendRate", x.unit, x.rate_unit as "rateUnit", x.status,
            x.transmitter_id as "transmitterId", x.provider_record_id as "recordId"
          from glucose_readings x join connections c on c.id = x.connection_id
          where ${where}
          order by x.date, x.provider, x.connection_id, x.system_time
        `
        const events = yield* raw`
          select x.connection_id as "connectionId", x.provider, x.date::text as date,
            x.system_time as "systemTime", x.display_time as "displayTime", x.event_type as "eventType",
            x.event_sub_type as "eventSubType", x.value, x.unit, x.provider_record_id as "eventId"
          from glucose_events x join connections c on c.id = x.connection_id
          where ${where} and (x.event_status is null or x.event_status <> 'Deleted')
          order by x.date, x.provider, x.connection_id, x.system_time
        `
        const calibrations = yield* raw`
          select x.connection_id as "connectionId", x.provider, x.date::text as date,
            x.system_time as "systemTime", x.display_time as "displayTime", x.value, x.unit
          from glucose_calibrations x join connections c on c.id = x.connection_id
          where ${where}
          order by x.date, x.provider, x.connection_id, x.system_time
        `
        return HttpServerResponse.unsafeJson({ readings, events, calibrations })
      }).pipe(Effect.orDie)

    return {
      activityRange: (userId: UserId, query: RangeQuery) =>
        Effect.zipRight(checkFilter(query), activityRange(userId, query)),
      activityByDate,
      loadRange: (userId: UserId, query: RangeQuery) => Effect.zipRight(checkFilter(query), loadRange(userId, query)),
      loadByDate,
      glucose: (userId: UserId, query: RangeQuery) => Effect.zipRight(checkFilter(query), glucose(userId, query))
    } as const
  }),
  dependencies: [ConnectionsRepo.Default]
}) {}
