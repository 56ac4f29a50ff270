/**
 * Apps, credentials, users and the connection rows that the user listings read.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table apps (
      id uuid primary key,
      name text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )
  `
  yield* sql`
    create table api_keys (
      id uuid primary key,
      app_id uuid not null references apps(id),
      key_hash text not null unique,
      prefix text not null,
      permissions text[] not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )
  `
  yield* sql`create index api_keys_app_idx on api_keys (app_id)`
  yield* sql`
    create table users (
      id uuid primary key,
      app_id uuid not null references apps(id),
      external_user_id text not null,
      status text not null default 'Active',
      locale text not null,
      timezone text not null,
      metadata jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      unique (app_id, external_user_id)
    )
  `
  yield* sql`
    create table user_tokens (
      id uuid primary key,
      user_id uuid not null references users(id),
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )
  `
  yield* sql`create index user_tokens_user_idx on user_tokens (user_id) where revoked_at is null`
  yield* sql`
    create table connections (
      id uuid primary key,
      app_id uuid not null references apps(id),
      user_id uuid not null references users(id),
      provider text not null,
      provider_user_id text not null,
      status text not null,
      scopes text not null default '',
      token_expires_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )
  `
  yield* sql`
    create unique index connections_one_active_idx on connections (user_id, provider) where status <> 'Disconnected'
  `
})
