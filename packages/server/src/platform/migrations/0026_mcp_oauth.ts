/**
 * OAuth for the MCP server (docs/mcp.md): the app's assistant sign-in URL; the clients an assistant registered
 * (dynamic registration) or named by its metadata document's URL; authorization requests waiting for the app's
 * sign-in; the app's one-use sign-in assertions; grants (a user's consent to a client, or an API-issued token's
 * grant); one-use authorization codes; access and refresh tokens. Every secret is stored as its SHA-256 only.
 * A user's grants, codes, tokens and assertions go with the user's row (on delete cascade); the erasure deletes
 * them explicitly too, with the requests its assertions answered.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table apps add column assistant_sign_in_url text`
  yield* sql`
    create table mcp_clients (
      client_id text primary key,
      kind text not null check (kind in ('registered', 'metadata')),
      client_name text not null,
      client_uri text,
      redirect_uris text not null,
      cached_until timestamptz,
      created_at timestamptz not null default now()
    )
  `
  yield* sql`
    create table mcp_auth_requests (
      id_hash text primary key,
      app_id uuid not null references apps(id) on delete cascade,
      client_id text not null,
      redirect_uri text not null,
      state text,
      code_challenge text not null,
      scope text not null,
      resource text not null,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    )
  `
  yield* sql`create index mcp_auth_requests_expires_idx on mcp_auth_requests (expires_at)`
  yield* sql`
    create table mcp_assertions (
      assertion_hash text primary key,
      request_hash text not null references mcp_auth_requests(id_hash) on delete cascade,
      app_id uuid not null references apps(id) on delete cascade,
      user_id uuid not null references users(id) on delete cascade,
      csrf_hash text,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    )
  `
  yield* sql`create index mcp_assertions_user_idx on mcp_assertions (user_id)`
  yield* sql`
    create table mcp_grants (
      id uuid primary key,
      app_id uuid not null references apps(id) on delete cascade,
      user_id uuid not null references users(id) on delete cascade,
      client_id text,
      client_name text not null,
      scope text not null,
      resource text,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )
  `
  yield* sql`create index mcp_grants_user_idx on mcp_grants (user_id)`
  yield* sql`
    create table mcp_codes (
      code_hash text primary key,
      grant_id uuid not null references mcp_grants(id) on delete cascade,
      client_id text not null,
      redirect_uri text not null,
      code_challenge text not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )
  `
  yield* sql`create index mcp_codes_grant_idx on mcp_codes (grant_id)`
  yield* sql`
    create table mcp_tokens (
      token_hash text primary key,
      grant_id uuid not null references mcp_grants(id) on delete cascade,
      kind text not null check (kind in ('access', 'refresh')),
      expires_at timestamptz not null,
      used_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    )
  `
  yield* sql`create index mcp_tokens_grant_idx on mcp_tokens (grant_id)`
})
