/**
 * Migration 0008's data step over a real database: Garmin days stored under Garmin's `summaryId`
 * (one row per upload, a partial day beside its full day) collapse to one row per user and day,
 * keyed `<Garmin userId>:<date>`, the upload covering the most of the day kept; other providers'
 * rows and Garmin days already alone are only re-keyed or left as they are.
 */
import { SqlClient } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import { TestDatabaseLive } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { rekeyGarminDailies } from "../../src/platform/migrations/0008_garmin_oauth2.js"

it.layer(TestDatabaseLive, { timeout: "120 seconds" })("migration 0008", (it) => {
  it.effect("collapses a Garmin day's uploads to one row keyed by user and day, keeping the fullest", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const appId = crypto.randomUUID()
      const userId = crypto.randomUUID()
      const garmin = crypto.randomUUID()
      const fitbit = crypto.randomUUID()
      const garminUser = "4aacafe82427c251df9c9592d0c06768"
      yield* sql`insert into apps (id, name) values (${appId}, 'migration test')`
      yield* sql`
        insert into users (id, app_id, external_user_id, locale, timezone)
        values (${userId}, ${appId}, 'm-1', 'en-US', 'UTC')
      `
      for (const [id, provider, providerUserId] of [[garmin, "Garmin", garminUser], [fitbit, "Fitbit", "ZX3ZLE"]]) {
        yield* sql`
          insert into connections (id, app_id, user_id, provider, provider_user_id, status, scopes)
          values (${id}, ${appId}, ${userId}, ${provider}, ${providerUserId}, 'Active', '')
        `
      }
      const row = (
        connectionId: string,
        provider: string,
        recordId: string,
        date: string,
        steps: number,
        raw: object
      ) =>
        sql`
          insert into daily_activity (
            connection_id, user_id, provider, provider_record_id, date, steps, calories_out, active_calories,
            distance_meters, light_active_minutes, moderate_active_minutes, vigorous_active_minutes,
            sedentary_minutes, floors_climbed, resting_heart_rate, raw_json
          ) values (
            ${connectionId}, ${userId}, ${provider}, ${recordId}, ${date}, ${steps}, 0, null, 0, 0, 0, 0, 0, 0, null,
            ${JSON.stringify(raw)}
          )
        `
      // 2016-01-11 uploaded three times: a morning, the full day, and an evening partial stored last
      yield* row(garmin, "Garmin", "x4aacafe-56934e00-7080", "2016-01-11", 1200, { durationInSeconds: 28_800 })
      yield* row(garmin, "Garmin", "x4aacafe-56934e00-15180", "2016-01-11", 4210, { durationInSeconds: 86_400 })
      yield* row(garmin, "Garmin", "x4aacafe-56934e00-fd20", "2016-01-11", 3900, { durationInSeconds: 64_800 })
      yield* row(garmin, "Garmin", "x4aacafe-56949f80-15180", "2016-01-12", 5000, { durationInSeconds: 86_400 })
      yield* row(fitbit, "Fitbit", "ZX3ZLE:2016-01-11", "2016-01-11", 7000, {})

      yield* rekeyGarminDailies

      const rows = yield* sql<{ connectionId: string; providerRecordId: string; steps: number }>`
        select connection_id, provider_record_id, steps from daily_activity
        where connection_id in (${garmin}, ${fitbit}) order by provider_record_id
      `
      expect(rows).toEqual([
        { connectionId: garmin, providerRecordId: `${garminUser}:2016-01-11`, steps: 4210 },
        { connectionId: garmin, providerRecordId: `${garminUser}:2016-01-12`, steps: 5000 },
        { connectionId: fitbit, providerRecordId: "ZX3ZLE:2016-01-11", steps: 7000 }
      ])
      // running it again changes nothing
      yield* rekeyGarminDailies
      const again = yield* sql<{ count: number }>`
        select count(*)::int as count from daily_activity where connection_id = ${garmin}
      `
      expect(again[0]!.count).toBe(2)
    }))
})
