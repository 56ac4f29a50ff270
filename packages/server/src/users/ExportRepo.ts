/**
 * The reads of a user's export that no feature repository already has: the canonical record
 * tables page by page (keyset on their primary key, `(connection_id, provider_record_id)`, so a
 * page costs the same however far in it is and nothing loads a whole table), the user's
 * connections without any token, and the span of dates the user has data for (what the daily
 * scores cover).
 *
 * Rows are written as JSON without decoding (like the glucose read of endpoint 14): the SQL names
 * the columns as the contract does, dates as `YYYY-MM-DD`, timestamps as ISO 8601 UTC (`Date#toJSON`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { RecordTable } from "../sync/RecordStore.js"

/** The export line type of each record table, and its columns (besides the key and `raw_json`). */
export const recordTypes: ReadonlyArray<{
  readonly table: RecordTable
  readonly type: string
  readonly columns: ReadonlyArray<string>
}> = [
  {
    table: "daily_activity",
    type: "dailyActivity",
    columns: [
      "steps",
      "calories_out",
      "active_calories",
      "distance_meters",
      "light_active_minutes",
      "moderate_active_minutes",
      "vigorous_active_minutes",
      "sedentary_minutes",
      "floors_climbed",
      "resting_heart_rate",
      "covered_seconds"
    ]
  },
  {
    table: "daily_load",
    type: "dailyLoad",
    columns: [
      "window_kind",
      "window_start as window_start_utc",
      "window_end as window_end_utc",
      "load_score",
      "load_score_scale",
      "energy_kilocalories",
      "average_heart_rate",
      "max_heart_rate",
      "distance_meters",
      "steps",
      "zone_durations_json",
      "source_confidence",
      "score_state"
    ]
  },
  {
    table: "sleep_sessions",
    type: "sleepSession",
    columns: [
      "id",
      "start_at as start_utc",
      "end_at as end_utc",
      "utc_offset_minutes",
      "nap as is_nap",
      "score_state",
      "in_bed_minutes",
      "asleep_minutes",
      "awake_minutes",
      "light_minutes",
      "deep_minutes",
      "rem_minutes",
      "efficiency_percent",
      "latency_minutes",
      "average_heart_rate",
      "lowest_heart_rate",
      "hrv_rmssd_ms",
      "respiratory_rate",
      "spo2_percent",
      "provider_score",
      "provider_score_scale",
      "sleep_need_minutes",
      "performance_percent",
      "consistency_percent",
      "disturbance_count"
    ]
  },
  {
    table: "recoveries",
    type: "recovery",
    columns: [
      "id",
      "sleep_id",
      "score_state",
      "calibrating",
      "recovery_score as provider_score",
      "provider_score_scale",
      "resting_heart_rate",
      "hrv_rmssd_ms",
      "spo2_percent",
      "respiratory_rate",
      "skin_temp_celsius as skin_temperature_celsius",
      "skin_temperature_deviation_celsius"
    ]
  },
  {
    table: "workouts",
    type: "workout",
    columns: [
      "id",
      "start_at as start_utc",
      "end_at as end_utc",
      "utc_offset_minutes",
      "activity_type",
      "sport_name as provider_activity_name",
      "duration_minutes",
      "score_state",
      "strain as load_score",
      "load_score_scale",
      "average_heart_rate",
      "max_heart_rate",
      "energy_kilocalories as active_energy_kilocalories",
      "distance_meters",
      "steps",
      "zone_durations_json"
    ]
  },
  { table: "profile_snapshots", type: "profile", columns: ["first_name", "last_name", "email"] },
  {
    table: "body_measurement_snapshots",
    type: "bodyMeasurement",
    columns: [
      "id",
      "measured_at as measured_at_utc",
      "weight_kilograms",
      "height_meters",
      "body_fat_percent",
      "bmi",
      "lean_mass_kilograms",
      "max_heart_rate"
    ]
  },
  {
    table: "glucose_readings",
    type: "glucoseReading",
    columns: [
      "system_time",
      "display_time",
      "value",
      "trend",
      "trend_rate",
      "unit",
      "rate_unit",
      "status",
      "transmitter_id"
    ]
  },
  {
    table: "glucose_events",
    type: "glucoseEvent",
    columns: ["system_time", "display_time", "event_status", "event_type", "event_sub_type", "value", "unit"]
  },
  {
    table: "glucose_calibrations",
    type: "glucoseCalibration",
    columns: ["system_time", "display_time", "value", "unit"]
  }
]

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/** `column` or `column as alias`, selected under its camelCase name. */
const selectItem = (column: string) => {
  const [source, alias] = column.split(" as ")
  return `t.${source} as "${camel(alias ?? source!)}"`
}

/** Where a page ends: the next page starts after this key. */
export interface RecordKey {
  readonly connectionId: string
  readonly recordId: string
}

export class ExportRepo extends Effect.Service<ExportRepo>()("@pulsebridge/server/ExportRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const raw = sql.withoutTransforms()

    const selectLists = new Map(recordTypes.map(({ columns, table }) => {
      const common = [
        `t.connection_id as "connectionId"`,
        `t.provider`,
        `t.provider_record_id as "recordId"`,
        `t.date::text as "date"`
      ]
      const stamps = [`t.created_at as "createdAt"`, `t.updated_at as "updatedAt"`]
      return [table, [...common, ...columns.map(selectItem), ...stamps].join(", ")] as const
    }))

    return {
      /**
       * Up to `limit` rows of the user in `table` after `after` (or from the first), by primary key;
       * with the provider's JSON as `rawJson` when asked.
       */
      recordPage: (
        table: RecordTable,
        userId: string,
        after: RecordKey | null,
        limit: number,
        includeRaw: boolean
      ) =>
        raw<Record<string, unknown>>`
          select ${raw.literal(selectLists.get(table)!)}${raw.literal(includeRaw ? `, t.raw_json as "rawJson"` : "")}
          from ${raw(table)} t
          where t.user_id = ${userId} ${
          after === null
            ? raw.literal("")
            : raw`and (t.connection_id, t.provider_record_id) > (${after.connectionId}::uuid, ${after.recordId})`
        }
          order by t.connection_id, t.provider_record_id
          limit ${limit}
        `.pipe(Effect.orDie),

      /** Every connection of the user (Disconnected ones too), without tokens, with its sync state. */
      connections: (userId: string) =>
        raw<Record<string, unknown>>`
          select c.id, c.user_id as "userId", c.provider, c.provider_user_id as "providerUserId", c.status,
            c.status_reason as "statusReason", c.scopes, c.token_expires_at as "tokenExpiresAt",
            c.created_at as "createdAt", c.updated_at as "updatedAt", c.disconnected_at as "disconnectedAt",
            s.state as "syncState", s.last_synced_at as "lastSyncedAt", s.last_error as "syncError"
          from connections c left join sync_state s on s.connection_id = c.id
          where c.user_id = ${userId}
          order by c.created_at, c.id
        `.pipe(Effect.orDie),

      /** The first and last date of the user's canonical records, or nulls without any. */
      dateSpan: (userId: string) =>
        Effect.gen(function*() {
          const parts = recordTypes.map(({ table }) =>
            `select min(date) as first, max(date) as last from ${table} where user_id = $1`
          )
          const rows = yield* raw.unsafe<{ first: string | null; last: string | null }>(
            `select min(first)::text as first, max(last)::text as last from (${parts.join(" union all ")}) d`,
            [userId]
          )
          return { first: rows[0]?.first ?? null, last: rows[0]?.last ?? null }
        }).pipe(Effect.orDie)
    } as const
  })
}) {}
