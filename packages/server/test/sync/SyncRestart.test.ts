/**
 * Durability of the sync: the server runs as a child process (`pulsebridge serve --sandbox`), is
 * killed with SIGKILL in the middle of a four-month Dexcom backfill, and started again over the
 * same data dir and database. The backfill resumes where it stopped (it does not start over) and
 * ends complete, without duplicates.
 */
import { expect, it } from "@effect/vitest"
import * as Simulators from "@pulsebridge/sandbox"
import { killChild } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { json, preview, send } from "../fixtures/Http.js"
import { backfillDays, backfillInFlight, resumeBackfill } from "../fixtures/Restart.js"

it.live(
  "a backfill killed with SIGKILL resumes after a restart and ends complete without duplicates",
  () =>
    Effect.gen(function*() {
      const running = yield* backfillInFlight("restart-user")
      yield* killChild(running.server)
      yield* resumeBackfill(running, (connection) =>
        Effect.gen(function*() {
          const to = localToday(new Date(), null)
          const reply = yield* send(
            "GET",
            `/api/v1/users/${running.userId}/connections/glucose?from=${addDays(to, -backfillDays)}&to=${to}`,
            { bearer: running.token }
          )
          expect(reply.status, preview(reply)).toBe(200)
          const readings = (json(reply) as any).readings as Array<{ recordId: string; systemTime: string }>
          const ids = new Set(readings.map((r) => r.recordId))
          expect(ids.size, "no duplicates").toBe(readings.length)
          // The backfill's days but its first and its last, which the window's edges and the device's clock may cut.
          const start = Date.parse(`${addDays(to, -(backfillDays - 2))}T00:00:00Z`)
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
        }))
    }).pipe(Effect.scoped),
  { timeout: 400_000 }
)
