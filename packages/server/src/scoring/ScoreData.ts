/**
 * The scores of a user (endpoints 21, 22): the canonical rows the scores of a range read, loaded
 * with ONE query (each row set aggregated as JSON), turned into the scoring input and scored.
 * Rows of disconnected connections are left out, as in the range reads.
 */
import { SqlClient } from "@effect/sql"
import type { UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import type { ScoringRows, SleepRow } from "./Inputs.js"
import { buildScoringInput } from "./Inputs.js"
import type { DateWindow } from "./Scoring.js"
import { Scoring } from "./Scoring.js"

interface Loaded {
  readonly timezone: string | null
  readonly dailyActivity: ScoringRows["dailyActivity"]
  readonly dailyLoad: ScoringRows["dailyLoad"]
  readonly sleep: ReadonlyArray<Omit<SleepRow, "start" | "end"> & { readonly start: string; readonly end: string }>
  readonly recovery: ScoringRows["recovery"]
  readonly workouts: ScoringRows["workouts"]
}

export class ScoreData extends Effect.Service<ScoreData>()("@pulsebridge/server/ScoreData", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scoring = yield* Scoring

    const load = (userId: UserId, window: DateWindow) => {
      const rows = (table: string, alias: string, columns: string) =>
        sql`
          coalesce((
            select json_agg(json_build_object(${sql.literal(columns)}))
            from ${sql(table)} ${sql.literal(alias)} join connections c on c.id = ${sql.literal(alias)}.connection_id
            where ${sql.literal(alias)}.user_id = ${userId} and c.status <> 'Disconnected'
              and ${sql.literal(alias)}.date between ${window.from} and ${window.to}
          ), '[]'::json)
        `
      return sql<{ readonly data: Loaded | string }>`
        select json_build_object(
          'timezone', (select timezone from users where id = ${userId}),
          'dailyActivity', ${
        rows(
          "daily_activity",
          "a",
          "'provider', a.provider, 'date', a.date, 'steps', a.steps, 'activeCalories', a.active_calories, " +
            "'lightActiveMinutes', a.light_active_minutes, 'moderateActiveMinutes', a.moderate_active_minutes, " +
            "'vigorousActiveMinutes', a.vigorous_active_minutes, 'sedentaryMinutes', a.sedentary_minutes, " +
            "'restingHeartRate', a.resting_heart_rate"
        )
      },
          'dailyLoad', ${rows("daily_load", "l", "'provider', l.provider, 'date', l.date, 'loadScore', l.load_score")},
          'sleep', ${
        rows(
          "sleep_sessions",
          "s",
          "'provider', s.provider, 'date', s.date, 'start', s.start_at, 'end', s.end_at, 'nap', s.nap, " +
            "'inBedMinutes', s.in_bed_minutes, 'awakeMinutes', s.awake_minutes, 'lightMinutes', s.light_minutes, " +
            "'deepMinutes', s.deep_minutes, 'remMinutes', s.rem_minutes, 'respiratoryRate', s.respiratory_rate, " +
            "'efficiencyPercent', s.efficiency_percent"
        )
      },
          'recovery', ${
        rows(
          "recoveries",
          "r",
          "'provider', r.provider, 'date', r.date, 'restingHeartRate', r.resting_heart_rate, " +
            "'hrvRmssdMs', r.hrv_rmssd_ms, 'spo2Percent', r.spo2_percent, 'skinTempCelsius', r.skin_temp_celsius"
        )
      },
          'workouts', ${
        rows("workouts", "w", "'provider', w.provider, 'date', w.date, 'zoneDurationsJson', w.zone_durations_json")
      }
        ) as data
      `.pipe(
        Effect.orDie,
        Effect.map(([row]) => {
          const data: Loaded = typeof row!.data === "string" ? JSON.parse(row!.data) : row!.data
          const input: ScoringRows = {
            dailyActivity: data.dailyActivity,
            dailyLoad: data.dailyLoad,
            sleep: data.sleep.map((s) => ({ ...s, start: new Date(s.start), end: new Date(s.end) })),
            recovery: data.recovery,
            workouts: data.workouts
          }
          return buildScoringInput(input, { timezone: data.timezone ?? "UTC" })
        })
      )
    }

    return {
      daily: (userId: UserId, range: DateWindow) =>
        Effect.map(load(userId, scoring.rowsWindow(range, "daily")), (input) => scoring.daily(input, range)),
      weekly: (userId: UserId, range: DateWindow) =>
        Effect.map(load(userId, scoring.rowsWindow(range, "weekly")), (input) => scoring.weekly(input, range))
    } as const
  }),
  dependencies: [Scoring.Default]
}) {}
