/**
 * Durability of the sync: the server runs as a child process (`pulsebridge serve --sandbox`), is
 * killed with SIGKILL in the middle of a year-long Dexcom backfill, and started again over the
 * same data dir and database. The backfill resumes where it stopped (it does not start over) and
 * ends complete, without duplicates.
 */
import { expect, it } from "@effect/vitest"
import * as Simulators from "@pulsebridge/sandbox"
import { addDays, localToday } from "@pulsebridge/server/sync/SyncEngine"
import { childServerClient, freePort, freshDatabase, killChild, startChildServer, tempDir } from "@pulsebridge/testing"
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
  "a backfill killed with SIGKILL resumes after a restart and ends complete without duplicates",
  () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-restart-")
      const env = { ...(yield* databaseEnv), BACKFILL_DAYS: "365", LOG_LEVEL: "Warn" }
      const port = yield* freePort
      const first = yield* startChildServer({ dataDir, port, args: ["--sandbox"], env })
      expect(first.apiKey, first.output()).toBeDefined()

      const { connectionId, token, userId } = yield* Effect.gen(function*() {
        const created = yield* send("POST", "/api/v1/users", {
          bearer: first.apiKey!,
          json: { externalUserId: "restart-user" }
        })
        expect(created.status, preview(created)).toBe(201)
        const { id: userId, token } = json(created) as { id: string; token: string }
        // Slow provider answers keep the backfill going long enough to be killed in the middle.
        yield* sim("Dexcom", "POST", "faults", { path: "/v3/users/self/egvs", kind: "slow", delayMs: 1500, count: 6 })
        const { connectionId } = yield* connect(userId, token, "Dexcom", simulatedUser("dexcom"))
        const to = localToday(new Date(), null)
        // Wait until the newest window is stored, then kill the server while older ones are pending.
        const recentReadings = send(
          "GET",
          `/api/v1/users/${userId}/connections/glucose?from=${addDays(to, -6)}&to=${to}`,
          { bearer: token }
        ).pipe(Effect.map((recent) => {
          expect(recent.status, preview(recent)).toBe(200)
          return (json(recent) as any).readings.length as number
        }))
        yield* eventually(recentReadings, (count) => count > 0, "the newest window", { within: "60 seconds" })
        const [connection] = yield* listConnections(userId, token)
        expect(connection.syncState, "killed in the middle of the backfill").toBe("Backfilling")
        return { connectionId, token, userId }
      }).pipe(Effect.provide(childServerClient(dataDir, port)))
      yield* killChild(first)

      const secondPort = yield* freePort
      yield* startChildServer({ dataDir, port: secondPort, args: ["--sandbox"], env })
      yield* Effect.gen(function*() {
        const connection = yield* waitForSync(userId, token, connectionId, { timeout: "240 seconds" })
        // The simulator restarted with the server: every window it served since is one this run read.
        const calls = yield* simCalls("Dexcom", { path: "/v3/users/self/egvs" })
        const windows = Math.ceil(365 / 28)
        expect(calls.length, "the backfill resumed instead of starting over").toBeLessThan(windows)
        expect(calls.length).toBeGreaterThan(0)

        const to = localToday(new Date(), null)
        const reply = yield* send(
          "GET",
          `/api/v1/users/${userId}/connections/glucose?from=${addDays(to, -365)}&to=${to}`,
          { bearer: token }
        )
        expect(reply.status, preview(reply)).toBe(200)
        const readings = (json(reply) as any).readings as Array<{ recordId: string; systemTime: string }>
        const ids = new Set(readings.map((r) => r.recordId))
        expect(ids.size, "no duplicates").toBe(readings.length)
        const start = Date.parse(`${addDays(to, -363)}T00:00:00Z`)
        const end = Date.parse(`${addDays(to, -1)}T00:00:00Z`)
        const served = Simulators.dexcomRecords(
          "pulsebridge-sandbox",
          connection.providerUserId,
          "egv",
          { start, end },
          Date.now()
        )
        const stored = readings.filter((r) => {
          const t = Date.parse(r.systemTime)
          return t >= start && t < end
        })
        expect(stored.length, "complete").toBe(served.length)
        for (const egv of served) expect(ids.has(egv["recordId"] as string)).toBe(true)
      }).pipe(Effect.provide(childServerClient(dataDir, secondPort)))
    }).pipe(Effect.scoped),
  { timeout: 400_000 }
)
