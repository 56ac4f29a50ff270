/**
 * Migration 0025's data step over a real database: the users the sandbox page made before it marked them (each named
 * by a `sandbox.testUser` audit event) become test users of their app, from their first such event; a user named by
 * other events only, or an erased user's scrubbed event, marks no one; running it again changes nothing.
 */
import { SqlClient } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import type { AppId, UserId } from "@pulsebridge/domain"
import { TestDatabaseLive } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppsRepo } from "../../src/apps/AppsRepo.js"
import { newId } from "../../src/platform/Ids.js"
import { markEarlierTestUsers } from "../../src/platform/migrations/0025_sandbox_test_users.js"
import { UsersRepo } from "../../src/users/UsersRepo.js"

const Repos = Layer.mergeAll(AppsRepo.Default, UsersRepo.Default).pipe(Layer.provideMerge(TestDatabaseLive))

it.layer(Repos, { timeout: "120 seconds" })("migration 0025", (it) => {
  it.effect("marks the users of earlier sandbox.testUser events as test users of their app, once", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const appId = newId<AppId>()
      yield* Effect.flatMap(AppsRepo, (apps) => apps.insert(appId, "migration 0025"))
      const user = (externalUserId: string) =>
        Effect.gen(function*() {
          const id = newId<UserId>()
          yield* Effect.flatMap(UsersRepo, (users) =>
            users.upsertActive({ id, appId, externalUserId, locale: "en-US", timezone: "UTC", metadata: {} }, newId()))
          return id
        })
      const made = yield* user("sandbox-0000aaaa")
      const madeTwice = yield* user("named-tester")
      const appsOwn = yield* user("sandbox-0000bbbb")
      const event = (action: string, targetId: string | null, at: string) =>
        sql`
          insert into audit_events (at, action, target_type, target_id, app_id, detail)
          values (${at}::timestamptz, ${action}, 'user', ${targetId}, ${appId}, '{}'::jsonb)
        `
      yield* event("sandbox.testUser", made, "2026-11-01T10:00:00Z")
      yield* event("sandbox.testUser", madeTwice, "2026-11-02T10:00:00Z")
      yield* event("sandbox.testUser", madeTwice, "2026-11-03T10:00:00Z")
      yield* event("user.export", appsOwn, "2026-11-04T10:00:00Z")
      // An erased test user's event, scrubbed of its id.
      yield* event("sandbox.testUser", null, "2026-11-05T10:00:00Z")

      const marks = sql<{ userId: string; appId: string; markedAt: Date }>`
        select user_id, app_id, marked_at from sandbox_test_users where app_id = ${appId} order by marked_at
      `
      yield* sql`delete from sandbox_test_users where app_id = ${appId}`
      yield* markEarlierTestUsers
      const expected = [
        { userId: made, appId, markedAt: new Date("2026-11-01T10:00:00Z") },
        { userId: madeTwice, appId, markedAt: new Date("2026-11-02T10:00:00Z") }
      ]
      expect(yield* marks).toEqual(expected)
      yield* markEarlierTestUsers
      expect(yield* marks).toEqual(expected)
    }))
})
