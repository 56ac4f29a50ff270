/**
 * The portal's overview (docs/portal.md) counts and lists trouble across 40,000 connections and more. Its lists
 * are pages of 25 to 200 in an order of their own; without these indexes each page sorted every candidate row:
 * - connections by status and creation, across apps and per app: the active connections' page is one index
 *   range that stops after its rows, and an app's counts read the app's connections only;
 * - the sync states in trouble (`Error`, `RateLimited`), a small part of them, found without reading the rest;
 * - the quarantine by when a record was last seen (the latest, and its pages);
 * - a webhook endpoint's pending deliveries by age (its backlog and the oldest, from the index alone), and its
 *   deliveries that recorded an error, newest first (its last error without reading its delivered ones).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`create index connections_status_created_idx on connections (status, created_at, id)`
  yield* sql`create index connections_app_status_created_idx on connections (app_id, status, created_at, id)`
  yield* sql`create index sync_state_trouble_idx on sync_state (state) where state in ('Error', 'RateLimited')`
  yield* sql`create index quarantined_records_seen_idx on quarantined_records (last_seen_at)`
  yield* sql`
    create index webhook_deliveries_pending_age_idx on webhook_deliveries (endpoint_id, created_at)
    where status = 'Pending'
  `
  yield* sql`
    create index webhook_deliveries_errors_idx on webhook_deliveries (endpoint_id, seq desc)
    where last_error is not null
  `
})
