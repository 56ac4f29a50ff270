/**
 * The sync over a connection's life, in the sandbox with a fast schedule: the periodic sync
 * re-reads connections on its own, a rate limit shows on the connection and then resumes, and
 * disconnecting or deleting the user stops the work (also a backfill under way).
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { connect, listConnections, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { preview, send } from "../fixtures/Http.js"
import { eventually as poll } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

const syncStateOf = (connectionId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ state: string; lastError: string | null }>`
      select state, last_error from sync_state where connection_id = ${connectionId}
    `).pipe(Effect.map((rows) => rows[0]))

const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: string) =>
  poll(check, done, what, { within: "60 seconds" })

/** The EGV reads the simulator served for one connection's provider user. */
const egvCalls = (connectionId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<
      { providerUserId: string }
    >`select provider_user_id from connections where id = ${connectionId}`
    const calls = yield* simCalls("Dexcom", { path: "/v3/users/self/egvs", userId: row!.providerUserId })
    return calls.length
  })

// Every 2 seconds, so a test sees the periodic sync run; 90 days of history, so a backfill lasts a while.
layer(makeTestServer({ sandbox: true, syncCron: "*/2 * * * * *", backfillDays: 90 }), {
  timeout: "300 seconds",
  excludeTestServices: true
})("sync lifecycle", (it) => {
  it.effect("the periodic sync re-reads a connection without being asked", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser(`periodic-${simulatedUser("u")}`)
      const { connectionId } = yield* connect(user.id, token, "WHOOP", simulatedUser("whoop"))
      const first = yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
      const after = new Date(new Date(first.lastSyncedAt).getTime() + 1)
      const again = yield* waitForSync(user.id, token, connectionId, { since: after, timeout: "30 seconds" })
      expect(new Date(again.lastSyncedAt).getTime()).toBeGreaterThan(new Date(first.lastSyncedAt).getTime())
    }), 180_000)

  it.effect(
    "a rate limit shows as RateLimited with its end, then the sync resumes and finishes",
    () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`ratelimited-${simulatedUser("u")}`)
        yield* sim("Dexcom", "DELETE", "faults")
        yield* sim("Dexcom", "POST", "faults", {
          path: "/v3/users/self/egvs",
          kind: "rateLimit",
          count: 1,
          retryAfterSeconds: 3
        })
        const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
        const limited = yield* eventually(
          Effect.map(listConnections(user.id, token), (list) => list.find((c: any) => c.id === connectionId)),
          (c) => c.syncState === "RateLimited",
          "the RateLimited state"
        )
        expect(Date.parse(limited.rateLimitedUntil)).toBeGreaterThan(Date.now() - 1000)
        expect(limited.syncError).toBeNull()
        const done = yield* waitForSync(user.id, token, connectionId, { timeout: "180 seconds" })
        expect(done.rateLimitedUntil).toBeNull()
      }),
    180_000
  )

  it.effect("disconnecting stops a backfill under way; nothing more is read for it", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser(`disconnect-${simulatedUser("u")}`)
      yield* sim("Dexcom", "DELETE", "faults")
      yield* sim("Dexcom", "POST", "faults", { path: "/v3/users/self/egvs", kind: "slow", delayMs: 1000, count: 3 })
      const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
      yield* eventually(syncStateOf(connectionId), (s) => s?.state === "Backfilling", "the backfill")
      const deleted = yield* send("DELETE", `/api/v1/users/${user.id}/connections/${connectionId}`, { bearer: token })
      expect(deleted.status, preview(deleted)).toBe(204)
      const stopped = yield* eventually(syncStateOf(connectionId), (s) => s?.state === "Stopped", "Stopped")
      expect(stopped!.lastError).toMatch(/Disconnected/)
      const calls = yield* egvCalls(connectionId)
      yield* Effect.sleep("3 seconds")
      // At most the window already in flight when the stop was seen.
      expect(yield* egvCalls(connectionId)).toBeLessThanOrEqual(calls + 1)
    }), 180_000)

  it.effect("deleting the user stops the sync of its connections", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser(`user-deleted-${simulatedUser("u")}`)
      const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
      yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
      const deleted = yield* send("DELETE", `/api/v1/users/${user.id}`, { bearer: apiKey })
      expect(deleted.status, preview(deleted)).toBe(204)
      const stopped = yield* eventually(syncStateOf(connectionId), (s) => s?.state === "Stopped", "Stopped")
      expect(stopped!.lastError).toMatch(/inactive/)
      // The periodic sync leaves it alone from now on.
      yield* Effect.sleep("3 seconds")
      expect((yield* syncStateOf(connectionId))!.state).toBe("Stopped")
    }), 180_000)
})
