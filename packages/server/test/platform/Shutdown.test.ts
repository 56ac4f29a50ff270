/**
 * Graceful shutdown: the real server (`pulsebridge serve --sandbox`) runs as a child process and gets SIGTERM in
 * the middle of a year-long Dexcom backfill. It exits on its own, with code 0, within 10 s; started again over
 * the same data, the backfill resumes where it stopped and ends complete.
 */
import { expect, it } from "@effect/vitest"
import { stopChild } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { backfillInFlight, resumeBackfill } from "../fixtures/Restart.js"

it.live(
  "SIGTERM during a backfill exits with 0 within 10 s, and the backfill resumes after a restart",
  () =>
    Effect.gen(function*() {
      const running = yield* backfillInFlight("shutdown-user")
      const stopped = yield* stopChild(running.server, "SIGTERM")
      expect(stopped, running.server.output()).toMatchObject({ code: 0, signal: null })
      expect(stopped.ms, running.server.output()).toBeLessThan(10_000)
      yield* resumeBackfill(running, () => Effect.void)
    }).pipe(Effect.scoped),
  { timeout: 400_000 }
)
