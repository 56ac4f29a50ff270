/**
 * Graceful shutdown: the real server (`pulsebridge serve --sandbox`) runs as a child process and gets SIGTERM in
 * the middle of a year-long Dexcom backfill. It exits on its own, with code 0, within 10 s; started again over
 * the same data, the backfill resumes where it stopped and ends complete.
 */
import { expect, it } from "@effect/vitest"
import { addDays, localToday } from "@pulsebridge/server/sync/SyncEngine"
import { childServerClient, freePort, freshDatabase, startChildServer, stopChild, tempDir } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { connect, listConnections, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

const databaseEnv = Effect.gen(function*() {
  const url = process.env["DATABASE_URL"]
  return url === undefined || url === "" ? {} : { DATABASE_URL: yield* freshDatabase(url) }
})

it.live(
  "SIGTERM during a backfill exits with 0 within 10 s, and the backfill resumes after a restart",
  () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-shutdown-")
      const env = { ...(yield* databaseEnv), BACKFILL_DAYS: "365", LOG_LEVEL: "Warn" }
      const port = yield* freePort
      const first = yield* startChildServer({ dataDir, port, args: ["--sandbox"], env })
      expect(first.apiKey, first.output()).toBeDefined()

      const { connectionId, token, userId } = yield* Effect.gen(function*() {
        const created = yield* send("POST", "/api/v1/users", {
          bearer: first.apiKey!,
          json: { externalUserId: "shutdown-user" }
        })
        expect(created.status, preview(created)).toBe(201)
        const { id: userId, token } = json(created) as { id: string; token: string }
        // Slow provider answers keep the backfill going, with a provider call in flight when SIGTERM comes.
        yield* sim("Dexcom", "POST", "faults", { path: "/v3/users/self/egvs", kind: "slow", delayMs: 1500, count: 6 })
        const { connectionId } = yield* connect(userId, token, "Dexcom", simulatedUser("dexcom"))
        const to = localToday(new Date(), null)
        const recentReadings = send(
          "GET",
          `/api/v1/users/${userId}/connections/glucose?from=${addDays(to, -6)}&to=${to}`,
          { bearer: token }
        ).pipe(Effect.map((recent) => (json(recent) as any).readings?.length as number ?? 0))
        yield* eventually(recentReadings, (count) => count > 0, "the newest window", { within: "60 seconds" })
        const [connection] = yield* listConnections(userId, token)
        expect(connection.syncState, "stopped in the middle of the backfill").toBe("Backfilling")
        return { connectionId, token, userId }
      }).pipe(Effect.provide(childServerClient(dataDir, port)))

      const stopped = yield* stopChild(first, "SIGTERM")
      expect(stopped, first.output()).toMatchObject({ code: 0, signal: null })
      expect(stopped.ms, first.output()).toBeLessThan(10_000)

      const secondPort = yield* freePort
      yield* startChildServer({ dataDir, port: secondPort, args: ["--sandbox"], env })
      yield* Effect.gen(function*() {
        const connection = yield* waitForSync(userId, token, connectionId, { timeout: "240 seconds" })
        expect(connection.syncState).not.toBe("Backfilling")
        const calls = yield* simCalls("Dexcom", { path: "/v3/users/self/egvs" })
        expect(calls.length, "the backfill resumed instead of starting over").toBeLessThan(Math.ceil(365 / 28))
        expect(calls.length, "the backfill went on after the restart").toBeGreaterThan(0)
      }).pipe(Effect.provide(childServerClient(dataDir, secondPort)))
    }).pipe(Effect.scoped),
  { timeout: 400_000 }
)
