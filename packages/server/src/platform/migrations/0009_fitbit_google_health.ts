/**
 * Fitbit's data now comes through the Google Health API, with Google OAuth; the Fitbit Web API and
 * its OAuth endpoints answer 410 Gone since 2 Nov 2026, so no token of a connection made with it
 * works any more (Google does not take them, and there is no exchange). Such connections, told
 * apart by their granted scopes (the Web API's `activity heartrate ...`, never a Google Health
 * scope), are marked `Reauthorize` with a reason the app can show its user; the user connects
 * again through Google, which makes the same connection Active with the user's Google Health id.
 * Their data stays. Disconnected connections are left as they are.
 *
 * Fitbit days were keyed `<Fitbit user id>:<date>`; they are now keyed by the date alone, so the
 * days read through Google after that new consent replace the stored ones instead of doubling
 * them. Where one connection holds two rows of a date (an older reconnection under another Fitbit
 * account), the one updated last is kept.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export const fitbitWebApiRetiredReason =
  "Fitbit's Web API was retired on 2 Nov 2026: connect Fitbit again to give access through Google."

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    update connections
    set status = 'Reauthorize', status_reason = ${fitbitWebApiRetiredReason}, updated_at = now()
    where provider = 'Fitbit'
      and status <> 'Disconnected'
      and position('https://www.googleapis.com/auth/googlehealth.' in scopes) = 0
  `
  yield* sql`
    delete from daily_activity older
    using daily_activity newer
    where older.provider = 'Fitbit' and newer.provider = 'Fitbit'
      and newer.connection_id = older.connection_id and newer.date = older.date
      and (newer.updated_at, newer.provider_record_id) > (older.updated_at, older.provider_record_id)
  `
  yield* sql`
    update daily_activity set provider_record_id = to_char(date, 'YYYY-MM-DD')
    where provider = 'Fitbit' and provider_record_id <> to_char(date, 'YYYY-MM-DD')
  `
})
