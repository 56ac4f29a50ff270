/**
 * Sleep, workouts, recovery and body measurements as canonical types read from every provider that has them
 * (docs/data-types.md): the fields the WHOOP-only tables lacked. Rows already stored (WHOOP's) get what their
 * own columns and raw JSON say, and an id: a sleep's asleep time is its light, deep and REM time and its score its
 * performance; a WHOOP record's offset is its `timezone_offset`; a workout's duration is its span.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** Minutes east of UTC of a `±hh:mm` (or `Z`) offset in a WHOOP record's raw JSON; null otherwise. */
const whoopOffset = `(case
  when raw_json::json->>'timezone_offset' = 'Z' then 0
  when raw_json::json->>'timezone_offset' ~ '^[+-][0-9]{2}:?[0-9]{2}$' then
    (case when left(raw_json::json->>'timezone_offset', 1) = '-' then -1 else 1 end) *
    (substr(raw_json::json->>'timezone_offset', 2, 2)::int * 60 + right(raw_json::json->>'timezone_offset', 2)::int)
  end)`

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    alter table sleep_sessions
      add column utc_offset_minutes double precision,
      add column asleep_minutes double precision,
      add column latency_minutes double precision,
      add column average_heart_rate double precision,
      add column lowest_heart_rate double precision,
      add column hrv_rmssd_ms double precision,
      add column spo2_percent double precision,
      add column provider_score double precision,
      add column provider_score_scale text
  `
  yield* sql`
    alter table recoveries
      add column provider_score_scale text,
      add column respiratory_rate double precision,
      add column skin_temperature_deviation_celsius double precision
  `
  yield* sql`
    alter table workouts
      add column utc_offset_minutes double precision,
      add column activity_type text not null default 'other',
      add column duration_minutes double precision,
      add column load_score_scale text,
      add column steps double precision
  `
  yield* sql`
    alter table body_measurement_snapshots
      add column measured_at timestamptz,
      add column body_fat_percent double precision,
      add column bmi double precision,
      add column lean_mass_kilograms double precision
  `
  yield* sql.unsafe(`
    update sleep_sessions set
      utc_offset_minutes = ${whoopOffset},
      asleep_minutes = light_minutes + deep_minutes + rem_minutes,
      provider_score = performance_percent,
      provider_score_scale = case when performance_percent is null then null else 'WhoopSleepPerformance0To100' end
    where provider = 'WHOOP'
  `)
  yield* sql`
    update recoveries set provider_score_scale = 'WhoopRecovery0To100'
    where provider = 'WHOOP' and recovery_score is not null
  `
  yield* sql.unsafe(`
    update workouts set
      utc_offset_minutes = ${whoopOffset},
      duration_minutes = extract(epoch from end_at - start_at) / 60,
      load_score_scale = case when strain is null then null else 'WhoopStrain0To21' end
  `)
  yield* sql`update body_measurement_snapshots set measured_at = created_at`
  yield* sql`alter table workouts alter column duration_minutes set not null`
  // Each record of the four types is served with an id of PulseBridge's own, kept when the provider sends the
  // record again (the upsert keeps the row), for the single reads (`.../sleep/{id}`, `.../workouts/{id}`).
  for (const table of ["sleep_sessions", "workouts", "recoveries", "body_measurement_snapshots"]) {
    yield* sql.unsafe(`alter table ${table} add column id uuid not null default gen_random_uuid()`)
    yield* sql.unsafe(`create unique index ${table}_id on ${table} (id)`)
  }
})
