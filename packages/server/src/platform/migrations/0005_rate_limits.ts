/**
 * Request rate limits: one token bucket per key (a hash of a credential or of a client address),
 * shared by every API process of a deployment. A row holds the tokens left at `updated_at`; the
 * refill since then is computed when the bucket is next used. Rows idle long enough to be full
 * again are pruned: an absent row is a full bucket.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // No index on updated_at: every request updates it, and an index would rule out HOT updates;
  // the periodic prune scans the table instead.
  yield* sql`
    create table rate_limit_buckets (
      key text primary key,
      tokens double precision not null,
      updated_at timestamptz not null
    )
  `
})
