/**
 * Provider credentials per app, connect sessions, and the tokens of connections (sealed).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table provider_credentials (
      app_id uuid not null references apps(id),
      provider text not null,
      client_id text not null,
      client_secret_sealed text not null,
      scopes text,
      auth_base_url text,
      token_base_url text,
      api_base_url text,
      redirect_url_prefixes text[] not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (app_id, provider)
    )
  `
  yield* sql`
    create table connect_sessions (
      id uuid primary key,
      app_id uuid not null references apps(id),
      user_id uuid not null references users(id),
      provider text not null,
      state_hash text not null unique,
      request_token text unique,
      redirect_url text not null,
      scopes text not null,
      code_verifier_sealed text,
      request_token_secret_sealed text,
      expires_at timestamptz not null,
      used_at timestamptz,
      outcome text,
      created_at timestamptz not null default now()
    )
  `
  yield* sql`alter table connections add column access_token_sealed text`
  yield* sql`alter table connections add column refresh_token_sealed text`
  yield* sql`alter table connections add column token_secret_sealed text`
  yield* sql`alter table connections add column disconnected_at timestamptz`
})
