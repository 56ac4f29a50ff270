/**
 * Soft delete and reactivation through HTTP, as they reach the sync: deleting a user stops its
 * connections' provider reads at once (a backfill under way included) and marks them `Stopped`;
 * creating the user again syncs them at once and finishes the backfill that was cut short.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { connect, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

const egvs = "/v3/users/self/egvs"

const syncStateOf = (connectionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ state: string; lastError: string | null; backfillCursor: string | null }>`
      select state, last_error, backfill_cursor::text as backfill_cursor
      from sync_state where connection_id = ${connectionId}
    `
  ).pipe(Effect.map((rows) => rows[0]!))

const providerUserOf = (connectionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ providerUserId: string }>`select provider_user_id from connections where id = ${connectionId}`
  ).pipe(
    Effect.map((rows) => rows[0]!.providerUserId)
  )

const egvCalls = (providerUserId: string) =>
  Effect.map(simCalls("Dexcom", { path: egvs, userId: providerUserId }), (calls) => calls.length)

// A long history and no periodic sync in sight: whatever syncs after reactivation was asked for by it.
layer(makeTestServer({ sandbox: true, backfillDays: 120, syncCron: "0 0 1 1 *" }), {
  timeout: "300 seconds",
  excludeTestServices: true
})("soft delete", (it) => {
  it.effect(
    "deleting a user stops a backfill under way at once; creating it again resumes it at once",
    () =>
      Effect.gen(function*() {
        const externalUserId = `soft-delete-${simulatedUser("u")}`
        const { apiKey, token, user } = yield* createUser(externalUserId)
        yield* sim("Dexcom", "DELETE", "faults")
        yield* sim("Dexcom", "POST", "faults", { path: egvs, kind: "slow", delayMs: 700, count: 100 })
        const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
        const providerUserId = yield* providerUserOf(connectionId)
        yield* eventually(
          syncStateOf(connectionId),
          (s) => s?.state === "Backfilling" && s.backfillCursor !== null,
          "the backfill",
          { within: "60 seconds" }
        )
        yield* eventually(egvCalls(providerUserId), (n) => n >= 2, "a few windows read", { within: "60 seconds" })

        const deleted = yield* send("DELETE", `/api/v1/users/${user.id}`, { bearer: apiKey })
        expect(deleted.status, preview(deleted)).toBe(204)
        // Marked before the answer: no waiting.
        const stopped = yield* syncStateOf(connectionId)
        expect(stopped.state).toBe("Stopped")
        expect(stopped.lastError).toBe("user is inactive")
        expect(stopped.backfillCursor, "the backfill is left unfinished").not.toBeNull()
        // The user's token is revoked with the deletion.
        const listed = yield* send("GET", `/api/v1/users/${user.id}/connections`, { bearer: token })
        expect(listed.status, preview(listed)).toBe(401)

        // Reads already in flight at the 204 may still land (each is one slow call); none starts after.
        const atDelete = yield* egvCalls(providerUserId)
        yield* Effect.sleep("2 seconds")
        const settled = yield* egvCalls(providerUserId)
        expect(settled).toBeLessThanOrEqual(atDelete + 2)
        yield* Effect.sleep("2 seconds")
        expect(yield* egvCalls(providerUserId), "no provider read after the deletion").toBe(settled)
        expect((yield* syncStateOf(connectionId)).state).toBe("Stopped")

        yield* sim("Dexcom", "DELETE", "faults")
        const again = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId } })
        expect(again.status, preview(again)).toBe(200)
        const { token: newToken } = json(again) as { token: string }
        // The periodic sync runs once a year here, so only the reactivation can finish it.
        const done = yield* waitForSync(user.id, newToken, connectionId, { timeout: "120 seconds" })
        expect(done.syncError).toBeNull()
        expect(done.syncProgress).toBeNull()
        expect((yield* syncStateOf(connectionId)).backfillCursor).toBeNull()
        expect(yield* egvCalls(providerUserId)).toBeGreaterThan(settled)
      }),
    200_000
  )
})
