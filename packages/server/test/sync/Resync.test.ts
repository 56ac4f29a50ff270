/**
 * Re-sync through HTTP (`POST /api/v1/users/{userId}/connections/{connectionId}/sync`): the recent
 * days again, or a range as a durable backfill whose progress the connection shows; every bad
 * input a 400 that reads nothing; the same credential rules as the other connection endpoints.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { DexcomData, dexcomDateParam, dexcomRanges } from "@pulsebridge/providers"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { windowsNewestFirst } from "../../src/sync/SyncEngine.js"
import { connect, listConnections, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import type { Reply } from "../fixtures/Http.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

const egvs = "/v3/users/self/egvs"

const providerUserOf = (connectionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ providerUserId: string }>`select provider_user_id from connections where id = ${connectionId}`
  ).pipe(
    Effect.map((rows) => rows[0]!.providerUserId)
  )

/** The `startDate` of every EGV read the simulator served for a provider user, oldest call first. */
const egvStarts = (providerUserId: string) =>
  Effect.map(
    simCalls("Dexcom", { path: egvs, userId: providerUserId }),
    (calls) => calls.map((c: any) => c.params.startDate as string)
  )

/** The EGV reads a backfill of `from`..`to` makes, by `startDate`. */
const expectedStarts = (from: string, to: string) =>
  windowsNewestFirst(from, to, DexcomData.windowDays).flatMap((w) =>
    dexcomRanges(w, new Date()).map((r) => dexcomDateParam(r.start))
  )

const resync = (userId: string, token: string, connectionId: string, body?: unknown) =>
  send("POST", `/api/v1/users/${userId}/connections/${connectionId}/sync`, {
    bearer: token,
    ...(body === undefined ? {} : { json: body })
  })

const connectionOf = (userId: string, token: string, connectionId: string) =>
  Effect.map(listConnections(userId, token), (list) => list.find((c: any) => c.id === connectionId))

const readingDays = (userId: string, token: string, from: string, to: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", `/api/v1/users/${userId}/connections/glucose?from=${from}&to=${to}`, {
      bearer: token
    })
    expect(reply.status, preview(reply)).toBe(200)
    return new Set((json(reply) as any).readings.map((r: any) => r.date as string))
  })

const expectStatus = (reply: Reply, status: number, tag?: string) => {
  expect(reply.status, preview(reply)).toBe(status)
  if (tag !== undefined) expect((json(reply) as any)._tag, preview(reply)).toBe(tag)
}

/** A user with a Dexcom connection whose connect-time backfill is done. */
const connectedDexcom = (label: string) =>
  Effect.gen(function*() {
    const { apiKey, token, user } = yield* createUser(`${label}-${simulatedUser("u")}`)
    const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
    yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
    return { apiKey, token, userId: user.id, connectionId, providerUserId: yield* providerUserOf(connectionId) }
  })

layer(makeTestServer({ sandbox: true, backfillDays: 7 }), { timeout: "300 seconds", excludeTestServices: true })(
  "re-sync",
  (it) => {
    it.effect(
      "a range is read as a backfill of exactly those days, with progress shown until it ends",
      () =>
        Effect.gen(function*() {
          const { connectionId, providerUserId, token, userId } = yield* connectedDexcom("resync-range")
          const today = localToday(new Date(), null)
          const from = addDays(today, -200)
          const to = addDays(today, -60)
          expect((yield* readingDays(userId, token, from, to)).size, "nothing of the range before").toBe(0)
          const before = (yield* egvStarts(providerUserId)).length
          // Slow answers keep the backfill going long enough to be seen mid-way.
          yield* sim("Dexcom", "DELETE", "faults")
          yield* sim("Dexcom", "POST", "faults", { path: egvs, kind: "slow", delayMs: 800, count: 4 })

          const accepted = yield* resync(userId, token, connectionId, { from, to })
          expectStatus(accepted, 202)
          expect(json(accepted)).toEqual({ connectionId, kind: "Backfill", from, to })

          const total = windowsNewestFirst(from, to, DexcomData.windowDays).length
          const midway = yield* eventually(
            connectionOf(userId, token, connectionId),
            (c) => c.syncProgress !== null && c.syncProgress.windowsDone >= 1,
            "the backfill's progress",
            { every: "50 millis", within: "60 seconds" }
          )
          expect(midway.syncState).toBe("Backfilling")
          expect(midway.syncProgress.windowsTotal).toBe(total)
          expect(midway.syncProgress.windowsDone).toBeLessThan(total)
          expect(midway.syncProgress.oldestDateReached >= from).toBe(true)
          expect(midway.syncProgress.oldestDateReached < to).toBe(true)

          const done = yield* eventually(
            connectionOf(userId, token, connectionId),
            (c) => c.syncProgress === null && c.syncState === "Idle",
            "the end of the backfill",
            { within: "90 seconds" }
          )
          expect(done.syncError).toBeNull()
          const read = (yield* egvStarts(providerUserId)).slice(before)
          expect(read.sort()).toEqual(expectedStarts(from, to).sort())
          const oldest = yield* readingDays(userId, token, addDays(from, -3), addDays(from, 3))
          expect(oldest.has(from), "the first day of the range is in").toBe(true)
          expect(oldest.has(addDays(from, -3)), "nothing older than the padding").toBe(false)
          const newest = yield* readingDays(userId, token, addDays(to, -3), addDays(to, 3))
          expect(newest.has(to), "the last day of the range is in").toBe(true)
          expect(newest.has(addDays(to, 3)), "nothing newer than the padding").toBe(false)
        }),
      180_000
    )

    it.effect(
      "without a body, or with an empty object (what a typed client sends), the recent days are read again",
      () =>
        Effect.gen(function*() {
          const { connectionId, providerUserId, token, userId } = yield* connectedDexcom("resync-recent")
          const today = localToday(new Date(), null)
          const recent = { connectionId, kind: "Recent", from: addDays(today, -2), to: today }
          for (const body of [undefined, {}]) {
            const first = yield* connectionOf(userId, token, connectionId)
            const before = (yield* egvStarts(providerUserId)).length
            const accepted = yield* resync(userId, token, connectionId, body)
            expectStatus(accepted, 202)
            expect(json(accepted), JSON.stringify(body)).toEqual(recent)
            yield* waitForSync(userId, token, connectionId, { since: new Date(Date.parse(first.lastSyncedAt) + 1) })
            const read = (yield* egvStarts(providerUserId)).slice(before)
            expect(read, JSON.stringify(body)).toEqual(expectedStarts(addDays(today, -2), today))
          }
        }),
      180_000
    )

    it.effect("every bad input is a 400 and reads nothing", () =>
      Effect.gen(function*() {
        const { connectionId, providerUserId, token, userId } = yield* connectedDexcom("resync-bad")
        const first = yield* connectionOf(userId, token, connectionId)
        const before = (yield* egvStarts(providerUserId)).length
        const today = localToday(new Date(), null)
        const bad: Array<unknown> = [
          { from: addDays(today, -3), to: addDays(today, 1) },
          { from: addDays(today, -2), to: addDays(today, -5) },
          { from: addDays(today, -365), to: addDays(today, -300) },
          { from: "2026-02-30", to: today },
          { from: "yesterday", to: today },
          { from: addDays(today, -5) },
          { to: today },
          // A misspelt range is not an empty one: it is refused, not read as the recent days.
          { form: addDays(today, -5), to: today },
          { since: addDays(today, -5) },
          []
        ]
        for (const body of bad) {
          const reply = yield* resync(userId, token, connectionId, body)
          expect(reply.status, `${JSON.stringify(body)}: ${preview(reply)}`).toBe(400)
        }
        const malformed = yield* send("POST", `/api/v1/users/${userId}/connections/${connectionId}/sync`, {
          bearer: token,
          body: "{not json",
          contentType: "application/json"
        })
        expectStatus(malformed, 400)
        expect(yield* connectionOf(userId, token, connectionId)).toEqual(first)
        // Work runs in order per connection: a recent re-sync that completes shows nothing else was queued.
        expectStatus(yield* resync(userId, token, connectionId), 202)
        yield* waitForSync(userId, token, connectionId, { since: new Date(Date.parse(first.lastSyncedAt) + 1) })
        const read = (yield* egvStarts(providerUserId)).slice(before)
        expect(read).toEqual(expectedStarts(addDays(today, -2), today))
      }), 180_000)

    it.effect(
      "credentials: another user's token 403, another user's or an unknown connection 404",
      () =>
        Effect.gen(function*() {
          const a = yield* connectedDexcom("resync-a")
          const b = yield* connectedDexcom("resync-b")
          const before = (yield* egvStarts(b.providerUserId)).length
          expectStatus(yield* resync(b.userId, a.token, b.connectionId), 403)
          expectStatus(yield* resync(a.userId, a.token, b.connectionId), 404, "NotFound")
          expectStatus(yield* resync(a.userId, a.token, crypto.randomUUID()), 404, "NotFound")
          expectStatus(yield* resync(a.userId, a.apiKey, a.connectionId), 401)
          expectStatus(
            yield* send("POST", `/api/v1/users/${a.userId}/connections/${a.connectionId}/sync`, {}),
            401
          )
          // Nothing was queued for b: a recent re-sync of b's own reads only the recent days.
          const first = yield* connectionOf(b.userId, b.token, b.connectionId)
          expectStatus(yield* resync(b.userId, b.token, b.connectionId), 202)
          yield* waitForSync(b.userId, b.token, b.connectionId, { since: new Date(Date.parse(first.lastSyncedAt) + 1) })
          const today = localToday(new Date(), null)
          expect((yield* egvStarts(b.providerUserId)).slice(before)).toEqual(expectedStarts(addDays(today, -2), today))
        }),
      180_000
    )

    it.effect(
      "a connection waiting for reauthorization is a 409 with its reason; a disconnected one 404",
      () =>
        Effect.gen(function*() {
          const { connectionId, token, userId } = yield* connectedDexcom("resync-states")
          const sql = yield* SqlClient.SqlClient
          yield* sql`
          update connections set status = 'Reauthorize', status_reason = 'Dexcom revoked access'
          where id = ${connectionId}
        `
          const refused = yield* resync(userId, token, connectionId, {
            from: addDays(localToday(new Date(), null), -10),
            to: localToday(new Date(), null)
          })
          expectStatus(refused, 409, "Conflict")
          expect((json(refused) as any).message).toMatch(/Reauthorize: Dexcom revoked access/)
          expectStatus(yield* resync(userId, token, connectionId), 409, "Conflict")
          yield* sql`update connections set status = 'Active', status_reason = null where id = ${connectionId}`
          const deleted = yield* send("DELETE", `/api/v1/users/${userId}/connections/${connectionId}`, {
            bearer: token
          })
          expectStatus(deleted, 204)
          expectStatus(yield* resync(userId, token, connectionId), 404, "NotFound")
        }),
      180_000
    )
  }
)
