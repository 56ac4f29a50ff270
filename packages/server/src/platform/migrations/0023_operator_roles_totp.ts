/**
 * Operators' roles and second factor (docs/portal.md, Operators):
 * - `role`: `admin` (changes anything) or `viewer` (reads everything, changes nothing but its own password and
 *   second factor). Operators made before roles existed were all allowed everything, so they become admins.
 * - TOTP: the secret sealed with `SECRET_KEY` (as provider secrets are), the secret of an enrolment not yet
 *   confirmed, when it was turned on, and the last time step a code was accepted for (a code is never accepted
 *   twice); the ten recovery codes, hashed, each spent once.
 * - the pending logins between the password and the second factor: a random token of which only the hash is
 *   stored, valid a few minutes, with its count of wrong codes.
 * - the portal's settings that operators change (`second_factor_required`), one row per name.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table operators add column role text not null default 'admin'`
  yield* sql`alter table operators alter column role set default 'viewer'`
  yield* sql`alter table operators add column totp_secret_sealed text`
  yield* sql`alter table operators add column totp_pending_sealed text`
  yield* sql`alter table operators add column totp_enabled_at timestamptz`
  yield* sql`alter table operators add column totp_last_step bigint`
  yield* sql`
    create table operator_recovery_codes (
      operator_id uuid not null references operators(id),
      code_hash text not null,
      used_at timestamptz,
      primary key (operator_id, code_hash)
    )
  `
  yield* sql`
    create table operator_login_challenges (
      id uuid primary key,
      token_hash text not null unique,
      operator_id uuid not null references operators(id),
      failures int not null default 0,
      expires_at timestamptz not null
    )
  `
  yield* sql`create index operator_login_challenges_operator_idx on operator_login_challenges (operator_id)`
  yield* sql`
    create table portal_settings (
      name text primary key,
      value jsonb not null,
      updated_at timestamptz not null
    )
  `
})
