/**
 * Garmin on OAuth 2.0, and Garmin days keyed by user and day.
 *
 * - Provider credentials say which kind they are (`auth_type`: `OAuth1` or `OAuth2`; null means
 *   the provider's own kind, as every row written before this migration is), and may keep the
 *   app's OAuth 1.0a consumer key and secret beside OAuth 2.0 ones (`oauth1_client_id`,
 *   `oauth1_client_secret_sealed`): connections made with OAuth 1.0a are still signed with them
 *   until their tokens are exchanged for OAuth 2.0 ones.
 * - Garmin daily activity was keyed by `summaryId`, which changes between uploads of one day (the
 *   partial day, then the full day), so a day could be stored twice. Rows are re-keyed
 *   `<Garmin user id>:<calendar date>`; of several rows of one day the upload covering the most of
 *   the day (`durationInSeconds` in its raw JSON), then the most recently stored, is kept.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

const collapseGarminDays = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create temporary table garmin_days on commit drop as
    select d.connection_id, d.provider_record_id,
      c.provider_user_id || ':' || to_char(d.date, 'YYYY-MM-DD') as day_id,
      row_number() over (
        partition by d.connection_id, d.date
        order by
          case when jsonb_typeof(d.raw_json::jsonb -> 'durationInSeconds') = 'number'
            then (d.raw_json::jsonb ->> 'durationInSeconds')::double precision else 0 end desc,
          d.updated_at desc,
          d.provider_record_id desc
      ) as rank
    from daily_activity d join connections c on c.id = d.connection_id
    where d.provider = 'Garmin'
  `
  yield* sql`
    delete from daily_activity d using garmin_days g
    where d.connection_id = g.connection_id and d.provider_record_id = g.provider_record_id and g.rank > 1
  `
  yield* sql`
    update daily_activity d set provider_record_id = g.day_id
    from garmin_days g
    where d.connection_id = g.connection_id and d.provider_record_id = g.provider_record_id and g.rank = 1
  `
})

/**
 * Re-keys Garmin daily activity by user and day, one row per day: the data step of this migration,
 * on its own (in a transaction of its own, a savepoint inside the migration's) so tests can run it.
 */
export const rekeyGarminDailies = Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(collapseGarminDays))

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table provider_credentials add column auth_type text`
  yield* sql`alter table provider_credentials add column oauth1_client_id text`
  yield* sql`alter table provider_credentials add column oauth1_client_secret_sealed text`
  yield* rekeyGarminDailies
})
