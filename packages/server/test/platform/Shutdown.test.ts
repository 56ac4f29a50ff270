/**
 * Graceful shutdown: the real server (`pulsebridge serve --sandbox`) runs as a child process and gets SIGTERM in
 * the middle of a four-month Dexcom backfill, with a provider call in flight. It exits on its own, with code 0, and no
 * step of its stop runs out of its time: the requests in flight finish (none is cut off at the drain's limit) and the
 * database closes (its thread is not stopped at its limit). Started again over the same data, the backfill resumes
 * where it stopped and ends complete.
 *
 * What the stop waits for is work (the requests in flight, the sync's step, the database's checkpoint), and work
 * takes as long as the machine's share of a core allows: a stop took 7 s on a quiet machine and more than 10 s
 * under a load of 11. So the test checks what the server decides (which waits end by themselves, which are cut off,
 * how it exits), and bounds the time only by the sum of the stop's own limits, which a stop that hangs exceeds.
 */
import { expect, it } from "@effect/vitest"
import { stopChild } from "@pulsebridge/testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { entityTerminationTimeout } from "../../src/platform/Cluster.js"
import { embeddedCloseTimeout } from "../../src/platform/Database.js"
import { drainTimeoutMs } from "../../src/platform/HttpServer.js"
import { backfillInFlight, resumeBackfill } from "../fixtures/Restart.js"

/** The longest a stop may take by its own rules: each of its waits up to its limit. */
const stopLimitMs = drainTimeoutMs + Duration.toMillis(entityTerminationTimeout) +
  Duration.toMillis(embeddedCloseTimeout)

it.live(
  "SIGTERM during a backfill exits with 0 without cutting any step of the stop off, and the backfill resumes after a restart",
  () =>
    Effect.gen(function*() {
      const running = yield* backfillInFlight("shutdown-user")
      const stopped = yield* stopChild(running.server, "SIGTERM")
      const output = running.server.output()
      expect(stopped, output).toMatchObject({ code: 0, signal: null })
      expect(output, "a request in flight was cut off by the drain's limit").not.toMatch(/request\(s\) still in flight/)
      expect(output, "the database was stopped at its limit").not.toMatch(/did not close within/)
      expect(stopped.ms, output).toBeLessThan(stopLimitMs)
      yield* resumeBackfill(running, () => Effect.void)
    }).pipe(Effect.scoped),
  { timeout: 400_000 }
)
