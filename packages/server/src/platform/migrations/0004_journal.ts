/**
 * The nutrition journal: entries, their items, and the stored photo of a scan.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table journal_entries (
      id uuid primary key,
      app_id uuid not null references apps(id),
      user_id uuid not null references users(id),
      entry_kind text not null,
      entry_source text not null,
      analysis_status text not null,
      analyzer text,
      analysis_model text,
      analysis_reason text,
      analysis_finished_at timestamptz,
      title text not null,
      notes text,
      consumed_at_utc timestamptz not null,
      journal_date date not null,
      timezone text not null,
      is_user_edited boolean not null default false,
      calories_kcal double precision,
      protein_grams double precision,
      carbs_grams double precision,
      fat_grams double precision,
      fiber_grams double precision,
      sugar_grams double precision,
      sodium_mg double precision,
      caffeine_mg double precision,
      volume_ml double precision,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )
  `
  yield* sql`create index journal_entries_user_date_idx on journal_entries (user_id, journal_date, consumed_at_utc)`
  yield* sql`create index journal_entries_pending_idx on journal_entries (id) where analysis_status = 'Pending'`
  yield* sql`
    create table journal_items (
      id uuid primary key,
      entry_id uuid not null references journal_entries(id) on delete cascade,
      name text not null,
      category text not null default '',
      quantity double precision not null,
      unit text not null,
      estimated_weight_grams double precision,
      confidence double precision,
      sort_order integer not null,
      nutrient_source text,
      food_source_id text,
      calories_kcal double precision,
      protein_grams double precision,
      carbs_grams double precision,
      fat_grams double precision,
      fiber_grams double precision,
      sugar_grams double precision,
      sodium_mg double precision,
      caffeine_mg double precision,
      volume_ml double precision,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )
  `
  yield* sql`create index journal_items_entry_idx on journal_items (entry_id, sort_order)`
  yield* sql`
    create table journal_images (
      id uuid primary key,
      entry_id uuid not null unique references journal_entries(id) on delete cascade,
      storage_provider text not null,
      storage_key text not null,
      file_name text not null,
      content_type text not null,
      size_bytes integer not null,
      width integer,
      height integer,
      sha256 text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )
  `
})
