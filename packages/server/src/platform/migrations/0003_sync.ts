/**
 * Canonical health data and the sync state of each connection. Every record table is keyed by
 * (connection, provider record id), so a re-delivered or re-read record updates its row in place;
 * `user_id` and `date` serve the range reads; `raw_json` keeps the provider's JSON as received.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const common = sql.literal(`
    connection_id uuid not null references connections(id),
    user_id uuid not null references users(id),
    provider text not null,
    provider_record_id text not null,
    date date not null`)
  const stamps = sql.literal(`
    raw_json text not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    primary key (connection_id, provider_record_id)`)

  // Fitbit's subscriber verification code, from the app's settings at Fitbit.
  yield* sql`alter table provider_credentials add column webhook_verification_code text`
  yield* sql`
    create table sync_state (
      connection_id uuid primary key references connections(id),
      state text not null,
      rate_limited_until timestamptz,
      last_synced_at timestamptz,
      last_error text,
      backfill_from date,
      backfill_cursor date,
      updated_at timestamptz not null default now()
    )
  `
  yield* sql`
    create table daily_activity (
      ${common},
      steps double precision not null,
      calories_out double precision not null,
      active_calories double precision,
      distance_meters double precision not null,
      light_active_minutes double precision not null,
      moderate_active_minutes double precision not null,
      vigorous_active_minutes double precision not null,
      sedentary_minutes double precision not null,
      floors_climbed double precision not null,
      resting_heart_rate double precision,
      ${stamps}
    )
  `
  yield* sql`
    create table daily_load (
      ${common},
      window_kind text not null,
      window_start timestamptz not null,
      window_end timestamptz,
      load_score double precision,
      load_score_scale text not null,
      energy_kilocalories double precision,
      average_heart_rate double precision,
      max_heart_rate double precision,
      distance_meters double precision,
      steps double precision,
      zone_durations_json text not null,
      source_confidence text not null,
      score_state text not null,
      ${stamps}
    )
  `
  yield* sql`
    create table sleep_sessions (
      ${common},
      start_at timestamptz not null,
      end_at timestamptz not null,
      nap boolean not null,
      score_state text not null,
      in_bed_minutes double precision,
      awake_minutes double precision,
      light_minutes double precision,
      deep_minutes double precision,
      rem_minutes double precision,
      sleep_need_minutes double precision,
      respiratory_rate double precision,
      performance_percent double precision,
      consistency_percent double precision,
      efficiency_percent double precision,
      disturbance_count double precision,
      ${stamps}
    )
  `
  yield* sql`
    create table recoveries (
      ${common},
      sleep_id text,
      score_state text not null,
      calibrating boolean,
      recovery_score double precision,
      resting_heart_rate double precision,
      hrv_rmssd_ms double precision,
      spo2_percent double precision,
      skin_temp_celsius double precision,
      ${stamps}
    )
  `
  yield* sql`
    create table workouts (
      ${common},
      start_at timestamptz not null,
      end_at timestamptz not null,
      sport_name text,
      score_state text not null,
      strain double precision,
      average_heart_rate double precision,
      max_heart_rate double precision,
      energy_kilocalories double precision,
      distance_meters double precision,
      zone_durations_json text not null,
      ${stamps}
    )
  `
  yield* sql`
    create table profile_snapshots (
      ${common},
      first_name text,
      last_name text,
      email text,
      ${stamps}
    )
  `
  yield* sql`
    create table body_measurement_snapshots (
      ${common},
      height_meters double precision,
      weight_kilograms double precision,
      max_heart_rate double precision,
      ${stamps}
    )
  `
  yield* sql`
    create table glucose_readings (
      ${common},
      system_time timestamptz not null,
      display_time timestamptz not null,
      value double precision,
      trend text,
      trend_rate double precision,
      unit text not null,
      rate_unit text not null,
      status text,
      transmitter_id text,
      ${stamps}
    )
  `
  yield* sql`
    create table glucose_events (
      ${common},
      system_time timestamptz not null,
      display_time timestamptz not null,
      event_status text,
      event_type text not null,
      event_sub_type text,
      value double precision,
      unit text,
      ${stamps}
    )
  `
  yield* sql`
    create table glucose_calibrations (
      ${common},
      system_time timestamptz not null,
      display_time timestamptz not null,
      value double precision not null,
      unit text not null,
      ${stamps}
    )
  `
  for (
    const table of [
      "daily_activity",
      "daily_load",
      "sleep_sessions",
      "recoveries",
      "workouts",
      "profile_snapshots",
      "body_measurement_snapshots",
      "glucose_readings",
      "glucose_events",
      "glucose_calibrations"
    ]
  ) {
    yield* sql.unsafe(`create index ${table}_user_date on ${table} (user_id, date)`)
  }
})
