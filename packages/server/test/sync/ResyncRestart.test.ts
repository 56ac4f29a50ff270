/**
 * A re-sync backfill survives SIGKILL: the server runs as a child process, is killed in the middle
 * of a backfill the app asked for, and started again over the same data dir and database. The
 * backfill resumes at the first window it had not stored, reads the rest of the range only, and ends.
 */
import { expect, it } from "@effect/vitest"
import { DexcomData, dexcomDateParam, dexcomRanges } from "@pulsebridge/providers"
import { childServerClient, freePort, killChild, startChildServer, tempDir } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { windowsNewestFirst } from "../../src/sync/SyncEngine.js"
import { connect, listConnections, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { databaseEnv } from "../fixtures/Restart.js"
import { waitForSync } from "../fixtures/Sync.js"

const egvs = "/v3/users/self/egvs"

it.live(
  "a re-sync backfill killed with SIGKILL resumes after a restart at its cursor and reads only the rest",
  () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-resync-")
      const env = { ...(yield* databaseEnv), BACKFILL_DAYS: "7", LOG_LEVEL: "Warn" }
      const today = localToday(new Date(), null)
      const from = addDays(today, -300)
      const to = addDays(today, -30)
      const windows = windowsNewestFirst(from, to, DexcomData.windowDays)
      const startOf = (window: { from: string; to: string }) =>
        dexcomRanges(window, new Date()).map((r) => dexcomDateParam(r.start))

      const port = yield* freePort
      const server = yield* startChildServer({ dataDir, port, args: ["--sandbox"], env })
      expect(server.apiKey, server.output()).toBeDefined()
      const stopped = yield* Effect.gen(function*() {
        const created = yield* send("POST", "/api/v1/users", {
          bearer: server.apiKey!,
          json: { externalUserId: "resync-restart" }
        })
        expect(created.status, preview(created)).toBe(201)
        const { id: userId, token } = json(created) as { id: string; token: string }
        const { connectionId } = yield* connect(userId, token, "Dexcom", simulatedUser("dexcom"))
        yield* waitForSync(userId, token, connectionId, { timeout: "120 seconds" })
        yield* sim("Dexcom", "POST", "faults", { path: egvs, kind: "slow", delayMs: 1500, count: 20 })
        const accepted = yield* send("POST", `/api/v1/users/${userId}/connections/${connectionId}/sync`, {
          bearer: token,
          json: { from, to }
        })
        expect(accepted.status, preview(accepted)).toBe(202)
        const midway = yield* eventually(
          Effect.map(listConnections(userId, token), (list) => list[0]),
          (c) => c.syncProgress !== null && c.syncProgress.windowsDone >= 2,
          "two windows stored",
          { within: "90 seconds" }
        )
        expect(midway.syncProgress.windowsDone).toBeLessThan(windows.length)
        return { userId, token, connectionId, done: midway.syncProgress.windowsDone as number }
      }).pipe(Effect.provide(childServerClient(dataDir, port)))
      yield* killChild(server)

      const again = yield* freePort
      yield* startChildServer({ dataDir, port: again, args: ["--sandbox"], env })
      yield* Effect.gen(function*() {
        const finished = yield* eventually(
          Effect.map(listConnections(stopped.userId, stopped.token), (list) => list[0]),
          (c) => c.syncProgress === null && c.syncState === "Idle",
          "the backfill to end after the restart",
          { within: "240 seconds" }
        )
        expect(finished.syncError).toBeNull()
        // The simulator restarted with the server: every read it served since is one this run made.
        const read = (yield* simCalls("Dexcom", { path: egvs })).map((c: any) => c.params.startDate as string)
        for (const window of windows.slice(0, stopped.done)) {
          for (const start of startOf(window)) {
            expect(read, `window ${window.from} stored before the kill`).not.toContain(start)
          }
        }
        for (const window of windows.slice(stopped.done)) {
          for (const start of startOf(window)) {
            expect(read, `window ${window.from} read after the restart`).toContain(start)
          }
        }
      }).pipe(Effect.provide(childServerClient(dataDir, again)))
    }).pipe(Effect.scoped),
  { timeout: 400_000 }
)
