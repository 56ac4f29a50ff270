/**
 * Erasure through HTTP (`POST /api/v1/users/{id}/erase`), end to end on the sandbox: a user
 * connected to all four providers, with synced data, journal entries and a stored photo, is gone
 * at once for every read, token and externalUserId; in the background every grant is revoked at its
 * provider, the photo is removed and every row of the user in every table is deleted, leaving the
 * tombstone and the `user.erased` event, which name nothing but ids.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { createApp, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { Apps } from "../../src/apps/Apps.js"
import { connect, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { expectError, json, preview, send, unknownId } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { blobFiles, dumpAll, userWithEverything } from "./fixtures.js"

const revocationPaths = {
  Fitbit: { path: "/revoke", method: "POST" },
  Garmin: { path: "/wellness-api/rest/user/registration", method: "DELETE" },
  WHOOP: { path: "/developer/v2/user/access", method: "DELETE" }
} as const

const revocationCalls = Effect.forEach(
  Object.entries(revocationPaths) as Array<[keyof typeof revocationPaths, { path: string; method: string }]>,
  ([provider, { method, path }]) =>
    Effect.map(
      simCalls(provider, { path }),
      (calls) => [provider, calls.filter((call) => call.method === method).length] as const
    )
).pipe(Effect.map((entries) => Object.fromEntries(entries) as Record<keyof typeof revocationPaths, number>))

const tombstoneOf = (userId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ appId: string; completedAt: Date | null }>`
      select app_id, completed_at from erased_users where id = ${userId}
    `).pipe(Effect.map((rows) => rows[0]))

const isClusterTable = (table: string) => table.startsWith("cluster_")

layer(makeTestServer({ sandbox: true, analyzer: "sandbox", syncCron: "0 0 1 1 *" }), {
  timeout: "300 seconds",
  excludeTestServices: true
})("erasure", (it) => {
  it.effect(
    "erasing a user revokes every grant, deletes every row and photo of it, and leaves only ids behind",
    () =>
      Effect.gen(function*() {
        const u = yield* userWithEverything("erase")
        expect((yield* blobFiles).length, "the photo is stored").toBeGreaterThan(0)
        const photosBefore = yield* blobFiles
        const revokedBefore = yield* revocationCalls

        // Another app's key and a key without users:write change nothing.
        const other = yield* createApp("other app")
        expectError(yield* send("POST", `/api/v1/users/${u.userId}/erase`, { bearer: other.apiKey }), 404, "NotFound")
        const readOnly = yield* Effect.flatMap(Apps, (apps) => apps.createApiKey(u.appId, ["users:read"]))
        expectError(
          yield* send("POST", `/api/v1/users/${u.userId}/erase`, { bearer: readOnly.apiKey }),
          403,
          "Forbidden"
        )
        expectError(yield* send("POST", `/api/v1/users/${unknownId()}/erase`, { bearer: u.apiKey }), 404, "NotFound")
        expectError(yield* send("POST", `/api/v1/users/not-a-uuid/erase`, { bearer: u.apiKey }), 400)
        expect(yield* tombstoneOf(u.userId)).toBeUndefined()

        // WHOOP revokes slowly, so the erasure is still under way when it is asked for again.
        yield* sim("WHOOP", "POST", "faults", {
          path: revocationPaths.WHOOP.path,
          kind: "slow",
          delayMs: 3000,
          count: 1
        })
        const accepted = yield* send("POST", `/api/v1/users/${u.userId}/erase`, { bearer: u.apiKey })
        expect(accepted.status, preview(accepted)).toBe(202)
        const body = json(accepted)
        expect(body).toEqual({ id: u.userId, status: "Erasing", requestedAt: expect.any(String) })

        // Gone at once, for every read and the user's token.
        expectError(yield* send("GET", `/api/v1/users/${u.userId}`, { bearer: u.apiKey }), 404, "NotFound")
        expectError(
          yield* send("GET", `/api/v1/users?external_user_id=${encodeURIComponent(u.externalUserId)}`, {
            bearer: u.apiKey
          }),
          404,
          "NotFound"
        )
        expectError(
          yield* send("PATCH", `/api/v1/users/${u.userId}`, { bearer: u.apiKey, json: { locale: "de-DE" } }),
          404
        )
        expectError(yield* send("DELETE", `/api/v1/users/${u.userId}`, { bearer: u.apiKey }), 404)
        expectError(yield* send("POST", `/api/v1/users/${u.userId}/rotate-token`, { bearer: u.apiKey }), 404)
        expectError(yield* send("GET", `/api/v1/users/${u.userId}/export`, { bearer: u.apiKey }), 404)
        expectError(yield* send("GET", `/api/v1/users/${u.userId}/connections`, { bearer: u.token }), 401)
        expectError(
          yield* send("GET", `/api/v1/users/${u.userId}/journal-entries?date=2026-01-05`, {
            bearer: u.token
          }),
          401
        )

        // Asked again while under way: the same erasure.
        const again = yield* send("POST", `/api/v1/users/${u.userId}/erase`, { bearer: u.apiKey })
        expect(again.status, preview(again)).toBe(202)
        expect(json(again)).toEqual(body)

        const done = yield* eventually(
          tombstoneOf(u.userId),
          (t) => t?.completedAt != null,
          "the erasure to finish",
          { within: "120 seconds", every: "250 millis" }
        )
        expect(done!.appId).toBe(u.appId)

        // Every grant was revoked at its provider (Dexcom has no revocation endpoint).
        const revokedAfter = yield* revocationCalls
        for (const provider of Object.keys(revocationPaths) as Array<keyof typeof revocationPaths>) {
          expect(revokedAfter[provider], `${provider} saw the revocation`).toBeGreaterThan(revokedBefore[provider])
        }

        // The photo is gone from the blob store.
        const photosAfter = yield* blobFiles
        for (const file of photosBefore) expect(photosAfter).not.toContain(file)

        // Nothing of the user in any table but the tombstone and the event (cluster rows: ids only).
        const dump = yield* dumpAll
        expect(Object.keys(dump)).toEqual(expect.arrayContaining(["erased_users", "users", "glucose_readings"]))
        const personal = [u.externalUserId, u.metadataValue, u.noteText, ...u.providerUserIds]
        const ids = [...u.connections.map((c) => c.connectionId), ...u.entryIds, ...u.mcpGrantIds]
        for (const [table, rows] of Object.entries(dump)) {
          for (const row of rows) {
            for (const needle of personal) expect(row, `${table} holds ${needle}`).not.toContain(needle)
            if (!isClusterTable(table)) {
              for (const id of ids) expect(row, `${table} holds ${id}`).not.toContain(id)
            }
            if (row.includes(u.userId)) {
              const allowed = table === "erased_users" || isClusterTable(table) ||
                (table === "webhook_events" && JSON.parse(row).type === "user.erased")
              expect(allowed, `${table} names the user: ${row}`).toBe(true)
            }
          }
        }
        expect(dump["erased_users"]!.filter((row) => row.includes(u.userId))).toHaveLength(1)
        const events = dump["webhook_events"]!.map((row) => JSON.parse(row)).filter((e) => e.user_id === u.userId)
        expect(events).toHaveLength(1)
        expect(events[0].type).toBe("user.erased")
        expect(events[0].payload.data).toEqual({ userId: u.userId })

        // Once done: 404, and the same externalUserId is a new user.
        expectError(yield* send("POST", `/api/v1/users/${u.userId}/erase`, { bearer: u.apiKey }), 404, "NotFound")
        const recreated = yield* send("POST", "/api/v1/users", {
          bearer: u.apiKey,
          json: { externalUserId: u.externalUserId }
        })
        expect(recreated.status, preview(recreated)).toBe(201)
        expect(json(recreated).id).not.toBe(u.userId)
        expect(json(recreated).metadata).toEqual({})
        expectError(yield* send("GET", `/api/v1/users/${u.userId}`, { bearer: u.apiKey }), 404, "NotFound")
      }),
    280_000
  )

  it.effect(
    "a provider that keeps failing to revoke is given up after a few tries and the erasure still ends",
    () =>
      Effect.gen(function*() {
        const { apiKey, token, user } = yield* createUser(`erase-refused-${simulatedUser("u")}`)
        const { connectionId } = yield* connect(user.id, token, "Fitbit", simulatedUser("fitbit"))
        const revokes = Effect.map(simCalls("Fitbit", { path: "/revoke" }), (calls) =>
          calls.filter((call) => call.method === "POST" && call.fault === "serverError").length)
        const before = yield* revokes
        yield* sim("Fitbit", "POST", "faults", { path: "/revoke", kind: "serverError", count: 50 })
        const accepted = yield* send("POST", `/api/v1/users/${user.id}/erase`, { bearer: apiKey })
        expect(accepted.status, preview(accepted)).toBe(202)
        yield* eventually(
          tombstoneOf(user.id),
          (t) =>
            t?.completedAt != null,
          "the erasure to end",
          {
            within: "90 seconds",
            every: "500 millis"
          }
        )
        yield* sim("Fitbit", "DELETE", "faults")
        // The first try and 3 retries, then given up.
        expect((yield* revokes) - before).toBe(4)
        const dump = yield* dumpAll
        for (const [table, rows] of Object.entries(dump)) {
          if (isClusterTable(table)) continue
          for (const row of rows) expect(row, table).not.toContain(connectionId)
        }
      }),
    120_000
  )
})
