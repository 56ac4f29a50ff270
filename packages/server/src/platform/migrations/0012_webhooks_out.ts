/**
 * Events out to the app's webhook endpoints: the endpoints (each secret sealed like every other
 * secret, the one before a rotation kept until it expires), the outbox of events and one delivery
 * per endpoint and event. Events and deliveries name their user without a foreign key, so an
 * erasure can remove them with the user's other rows. Keys that held every permission gain the two
 * webhook permissions, as the key the CLI makes with every permission now does.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table webhook_endpoints (
      id uuid primary key,
      app_id uuid not null references apps(id),
      url text not null,
      description text,
      events jsonb,
      enabled boolean not null default true,
      disabled_reason text,
      secret_sealed text not null,
      previous_secret_sealed text,
      previous_secret_expires_at timestamptz,
      failing_since timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )
  `
  yield* sql`create index webhook_endpoints_app_idx on webhook_endpoints (app_id)`
  yield* sql`
    create table webhook_events (
      id text primary key,
      app_id uuid not null references apps(id),
      user_id uuid,
      type text not null,
      payload jsonb not null,
      created_at timestamptz not null
    )
  `
  yield* sql`create index webhook_events_user_idx on webhook_events (user_id) where user_id is not null`
  yield* sql`
    create table webhook_deliveries (
      id uuid primary key,
      seq bigint generated always as identity,
      endpoint_id uuid not null references webhook_endpoints(id) on delete cascade,
      event_id text not null references webhook_events(id) on delete cascade,
      user_id uuid,
      status text not null default 'Pending',
      attempts integer not null default 0,
      last_status_code integer,
      last_error text,
      last_attempt_at timestamptz,
      next_attempt_at timestamptz,
      lease_until timestamptz,
      created_at timestamptz not null,
      completed_at timestamptz
    )
  `
  yield* sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'Pending'`
  yield* sql`create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, seq desc)`
  yield* sql`create index webhook_deliveries_order_idx on webhook_deliveries (endpoint_id, user_id, seq) where status = 'Pending'`
  yield* sql`
    update api_keys set permissions = permissions || array['webhooks:read', 'webhooks:write']
    where permissions @> array['users:read', 'users:write'] and not permissions @> array['webhooks:read']
  `
})
