/**
 * An erasure survives a crash: the real server in a child process is killed with SIGKILL while the
 * erasure waits on a slow provider revocation (after the 202), and the erasure finishes after a
 * restart over the same data, without anyone asking again.
 */
import { expect, it } from "@effect/vitest"
import { childServerClient, freePort, killChild, startChildServer, tempDir } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { connect, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { databaseEnv } from "../fixtures/Restart.js"
import { waitForSync } from "../fixtures/Sync.js"

const whoopRevoke = "/developer/v2/user/access"

it.live(
  "an erasure cut short by SIGKILL finishes after a restart",
  () =>
    Effect.scoped(Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-erasure-")
      const env = { ...(yield* databaseEnv), LOG_LEVEL: "Warn" }
      const port = yield* freePort
      const server = yield* startChildServer({ dataDir, port, args: ["--sandbox"], env })
      const apiKey = server.apiKey!
      expect(apiKey, server.output()).toBeDefined()
      const externalUserId = `erase-restart-${simulatedUser("u")}`
      const userId = yield* Effect.gen(function*() {
        const created = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId } })
        expect(created.status, preview(created)).toBe(201)
        const { id, token } = json(created) as { id: string; token: string }
        const { connectionId } = yield* connect(id, token, "WHOOP", simulatedUser("whoop"))
        yield* waitForSync(id, token, connectionId, { timeout: "120 seconds" })
        // The revocation hangs far longer than the test waits: the kill comes while it is in flight.
        yield* sim("WHOOP", "POST", "faults", { path: whoopRevoke, kind: "slow", delayMs: 120_000, count: 1 })
        const accepted = yield* send("POST", `/api/v1/users/${id}/erase`, { bearer: apiKey })
        expect(accepted.status, preview(accepted)).toBe(202)
        // Wait until the revocation has reached the provider: the simulator takes the fault as it arrives.
        yield* eventually(
          Effect.map(sim("WHOOP", "GET", "faults"), (body) => body.faults.length as number),
          (n) => n === 0,
          "the revocation in flight",
          { within: "30 seconds" }
        )
        const stillRunning = yield* send("POST", `/api/v1/users/${id}/erase`, { bearer: apiKey })
        expect(stillRunning.status, "still under way at the kill").toBe(202)
        return id
      }).pipe(Effect.provide(childServerClient(dataDir, port)))
      yield* killChild(server)

      const port2 = yield* freePort
      const server2 = yield* startChildServer({ dataDir, port: port2, args: ["--sandbox"], env })
      yield* Effect.gen(function*() {
        // Nobody asks again: the restarted worker resumes it. 202 while under way, 404 once done.
        const erase = Effect.map(send("POST", `/api/v1/users/${userId}/erase`, { bearer: apiKey }), (r) => r.status)
        const status = yield* eventually(erase, (s) => s === 404, "the erasure to finish after the restart", {
          within: "120 seconds",
          every: "500 millis"
        })
        expect(status).toBe(404)
        expect(
          (yield* simCalls("WHOOP", { path: whoopRevoke })).length,
          "the restarted erasure revoked the grant"
        ).toBeGreaterThan(0)
        expectError(yield* send("GET", `/api/v1/users/${userId}`, { bearer: apiKey }), 404)
        const again = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId } })
        expect(again.status, preview(again)).toBe(201)
        expect(json(again).id).not.toBe(userId)
        // Nothing went wrong in the resumed run (no defect, no revocation given up).
        expect(server2.output()).not.toMatch(/level=(ERROR|FATAL)/)
      }).pipe(Effect.provide(childServerClient(dataDir, port2)))
    })),
  300_000
)
