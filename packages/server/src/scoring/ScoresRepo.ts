/**
 * The one statement the scores run: the canonical rows of a user over a window of local dates,
 * loaded with ONE query (each row set aggregated as JSON) and decoded by Schema into the rows the
 * scoring input is built from. Rows of disconnected connections are left out, as in the range reads.
 * Journal entries are the user's own, of any source: the sleep score reads their caffeine and meals.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { UserId } from "@pulsebridge/domain"
import { EntryKind, Provider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { visibleConnection } from "../connections/ConnectionsRepo.js"
import type { ScoringRows } from "./Inputs.js"
import type { DateWindow } from "./Scoring.js"

/**
 * The record lists (as a sync batch names them) whose rows the scores read: a change to one of
 * them on a day changes that day's score inputs (`scores.updated`).
 */
export const scoredRecordLists: ReadonlyArray<string> = ["dailyActivity", "dailyLoad", "sleep", "recovery", "workouts"]

const Value = Schema.NullOr(Schema.Number)
const ofProvider = { provider: Provider, date: Schema.String }

const ActivityRow = Schema.Struct({
  ...ofProvider,
  steps: Schema.Number,
  activeCalories: Value,
  lightActiveMinutes: Schema.Number,
  moderateActiveMinutes: Schema.Number,
  vigorousActiveMinutes: Schema.Number,
  sedentaryMinutes: Schema.Number,
  restingHeartRate: Value
})

const LoadRow = Schema.Struct({ ...ofProvider, loadScore: Value })

/** JSON carries the session's instants as ISO strings. */
const SleepRow = Schema.Struct({
  ...ofProvider,
  start: Schema.Date,
  end: Schema.Date,
  nap: Schema.Boolean,
  inBedMinutes: Value,
  asleepMinutes: Value,
  latencyMinutes: Value,
  awakeMinutes: Value,
  lightMinutes: Value,
  deepMinutes: Value,
  remMinutes: Value,
  respiratoryRate: Value,
  efficiencyPercent: Value
})

const RecoveryRow = Schema.Struct({
  ...ofProvider,
  restingHeartRate: Value,
  hrvRmssdMs: Value,
  spo2Percent: Value,
  respiratoryRate: Value,
  skinTempCelsius: Value,
  skinTemperatureDeviationCelsius: Value
})

const WorkoutRow = Schema.Struct({ ...ofProvider, zoneDurationsJson: Schema.String })

const JournalRow = Schema.Struct({
  entryKind: EntryKind,
  consumedAtUtc: Schema.Date,
  caffeineMg: Value,
  caloriesKcal: Value,
  volumeMl: Value
})

const Loaded = Schema.Struct({
  timezone: Schema.NullOr(Schema.String),
  dailyActivity: Schema.Array(ActivityRow),
  dailyLoad: Schema.Array(LoadRow),
  sleep: Schema.Array(SleepRow),
  recovery: Schema.Array(RecoveryRow),
  workouts: Schema.Array(WorkoutRow),
  journal: Schema.Array(JournalRow)
})

/** The drivers differ: node-postgres parses a `json` column, the embedded database may hand over its text. */
const Result = Schema.Struct({ data: Schema.Union(Loaded, Schema.parseJson(Loaded)) })

const Request = Schema.Struct({ userId: Schema.String, from: Schema.String, to: Schema.String })

/** The canonical rows of a user over a window of dates, and the user's time zone (null: unknown user). */
export interface ScoringData extends ScoringRows {
  readonly timezone: string | null
}

export class ScoresRepo extends Effect.Service<ScoresRepo>()("@pulsebridge/server/ScoresRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const load = SqlSchema.single({
      Request,
      Result,
      execute: ({ from, to, userId }) => {
        const rows = (table: string, alias: string, columns: string) =>
          sql`
            coalesce((
              select json_agg(json_build_object(${sql.literal(columns)}))
              from ${sql(table)} ${sql.literal(alias)} join connections c on c.id = ${sql.literal(alias)}.connection_id
              where ${sql.literal(alias)}.user_id = ${userId} and ${visibleConnection(sql, "c")}
                and ${sql.literal(alias)}.date between ${from} and ${to}
            ), '[]'::json)
          `
        return sql`
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
            'dailyLoad', ${
          rows("daily_load", "l", "'provider', l.provider, 'date', l.date, 'loadScore', l.load_score")
        },
            'sleep', ${
          rows(
            "sleep_sessions",
            "s",
            "'provider', s.provider, 'date', s.date, 'start', s.start_at, 'end', s.end_at, 'nap', s.nap, " +
              "'inBedMinutes', s.in_bed_minutes, 'asleepMinutes', s.asleep_minutes, " +
              "'latencyMinutes', s.latency_minutes, 'awakeMinutes', s.awake_minutes, 'lightMinutes', s.light_minutes, " +
              "'deepMinutes', s.deep_minutes, 'remMinutes', s.rem_minutes, 'respiratoryRate', s.respiratory_rate, " +
              "'efficiencyPercent', s.efficiency_percent"
          )
        },
            'recovery', ${
          rows(
            "recoveries",
            "r",
            "'provider', r.provider, 'date', r.date, 'restingHeartRate', r.resting_heart_rate, " +
              "'hrvRmssdMs', r.hrv_rmssd_ms, 'spo2Percent', r.spo2_percent, 'respiratoryRate', r.respiratory_rate, " +
              "'skinTempCelsius', r.skin_temp_celsius, " +
              "'skinTemperatureDeviationCelsius', r.skin_temperature_deviation_celsius"
          )
        },
            'workouts', ${
          rows("workouts", "w", "'provider', w.provider, 'date', w.date, 'zoneDurationsJson', w.zone_durations_json")
        },
            -- only the entries Intake.ts can count: caffeine, coffees and meals
            'journal', coalesce((
              select json_agg(json_build_object(
                'entryKind', j.entry_kind, 'consumedAtUtc', j.consumed_at_utc, 'caffeineMg', j.caffeine_mg,
                'caloriesKcal', j.calories_kcal, 'volumeMl', j.volume_ml
              ))
              from journal_entries j
              where j.user_id = ${userId} and j.journal_date between ${from} and ${to}::date + 1
                and (j.caffeine_mg > 0 or j.entry_kind in ('Coffee', 'Meal'))
            ), '[]'::json)
          ) as data
        `
      }
    })

    return {
      /** The rows the scores of `window` read; a row the scoring cannot read is a defect. */
      rowsOf: (userId: UserId, window: DateWindow): Effect.Effect<ScoringData> =>
        load({ userId, from: window.from, to: window.to }).pipe(
          Effect.map((row): ScoringData => row.data),
          Effect.orDie
        )
    } as const
  })
}) {}
