/**
 * The admin portal: operators (an email unique in any case, a password hash with its parameters, and
 * the hash of a one-time setup link's token), their sessions (the hash of the cookie's token, never the
 * token; the CSRF token sealed, since the pages ask for it again), the audit log, the counters of failed
 * logins behind the growing delay, and the API keys' name and last use.
 *
 * Times the rules compare (expiry, idle timeout, delays) are written by the server from its clock rather
 * than by `now()`, so that one clock decides them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table operators (
      id uuid primary key,
      email text not null,
      password_hash text,
      status text not null default 'Active',
      created_at timestamptz not null,
      last_login_at timestamptz,
      setup_token_hash text,
      setup_expires_at timestamptz
    )
  `
  yield* sql`create unique index operators_email_idx on operators (lower(email))`
  yield* sql`create unique index operators_setup_token_idx on operators (setup_token_hash)`
  yield* sql`
    create table operator_sessions (
      id uuid primary key,
      token_hash text not null unique,
      operator_id uuid not null references operators(id),
      csrf_token_sealed text not null,
      created_at timestamptz not null,
      last_seen_at timestamptz not null,
      expires_at timestamptz not null
    )
  `
  yield* sql`create index operator_sessions_operator_idx on operator_sessions (operator_id)`
  yield* sql`
    create table audit_events (
      id bigint generated always as identity primary key,
      at timestamptz not null,
      operator_id uuid,
      operator_email text,
      action text not null,
      target_type text,
      target_id text,
      app_id uuid,
      detail jsonb not null default '{}'::jsonb,
      address text
    )
  `
  yield* sql`
    create table login_failures (
      key text primary key,
      failures integer not null,
      last_failed_at timestamptz not null,
      blocked_until timestamptz
    )
  `
  yield* sql`alter table api_keys add column name text`
  yield* sql`alter table api_keys add column last_used_at timestamptz`
})
