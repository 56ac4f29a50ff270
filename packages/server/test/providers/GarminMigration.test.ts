/**
 * Migration 0008's data step over a real database: Garmin days stored under Garmin's `summaryId`
 * (one row per upload, a partial day beside its full day) collapse to one row per user and day,
 * keyed `<Garmin userId>:<date>`, the upload covering the most of the day kept; other providers'
 * rows and Garmin days already alone are only re-keyed or left as they are.
 */
import { SqlClient } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import type { AppId, UserId } from "@pulsebridge/domain"
import { addConnection, TestDatabaseLive } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppsRepo } from "../../src/apps/AppsRepo.js"
import { newId } from "../../src/platform/Ids.js"
import { rekeyGarminDailies } from "../../src/platform/migrations/0008_garmin_oauth2.js"
import { UsersRepo } from "../../src/users/UsersRepo.js"

const Repos = Layer.mergeAll(AppsRepo.Default, UsersRepo.Default).pipe(Layer.provideMerge(TestDatabaseLive))

it.layer(Repos, { timeout: "120 seconds" })("migration 0008", (it) => {
  it.effect("collapses a Garmin day's uploads to one row keyed by user and day, keeping the fullest", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const appId = newId<AppId>()
      const userId = newId<UserId>()
      const garminUser = "4aacafe82427c251df9c9592d0c06768"
      yield* Effect.flatMap(AppsRepo, (apps) => apps.insert(appId, "migration test"))
      yield* Effect.flatMap(UsersRepo, (users) =>
        users.upsertActive({
          id: userId,
          appId,
          externalUserId: "m-1",
          locale: "en-US",
          timezone: "UTC",
          metadata: {}
        }, newId()))
      const user = { id: userId, appId }
      const garmin = yield* addConnection(user, "Garmin", { providerUserId: garminUser })
      const fitbit = yield* addConnection(user, "Fitbit", { providerUserId: "ZX3ZLE" })
      // Rows as stored before the migration, keyed by Garmin's summaryId: no repository writes such rows any more.
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
