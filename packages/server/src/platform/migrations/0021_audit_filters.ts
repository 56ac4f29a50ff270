/**
 * The portal's audit log is filtered by who acted (its kind and the operator), the action, the app and a time
 * range, and each filter pages newest first by id. Who acted is a column computed from the row (an operator, the
 * CLI, an app's API key, or nobody known), so that it can be indexed and stays right for the rows written before
 * it; each filter has an index in the page's own order.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    alter table audit_events add column actor_type text not null generated always as (
      case
        when operator_id is not null then 'operator'
        when detail ->> 'via' = 'cli' then 'cli'
        when detail ->> 'via' = 'apiKey' then 'apiKey'
        else 'anonymous'
      end
    ) stored
  `
  yield* sql`create index audit_events_actor_type_idx on audit_events (actor_type, id)`
  yield* sql`create index audit_events_operator_idx on audit_events (operator_id, id)`
  yield* sql`create index audit_events_action_idx on audit_events (action, id)`
  yield* sql`create index audit_events_app_idx on audit_events (app_id, id)`
  yield* sql`create index audit_events_at_idx on audit_events (at, id)`
})
