/**
 * The export streams with flat memory: the real server in a child process, a user with a year of
 * Dexcom glucose (a 365-day backfill in the sandbox, about 105,000 readings), and the server's
 * resident memory sampled while the whole export is read. The peak growth must stay below the size
 * of the export (a server buffering it would need twice that at the very least), and the NDJSON parses
 * line by line with as many readings as the glucose read answers.
 */
import { HttpClient } from "@effect/platform"
import { expect, it } from "@effect/vitest"
import { childServerClient, freePort, startChildServer, tempDir } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, request, send } from "../fixtures/Http.js"
import { databaseEnv, rssOf } from "../fixtures/Restart.js"
import { waitForSync } from "../fixtures/Sync.js"

const mib = (bytes: number) => Math.round(bytes / 1024 / 1024 * 10) / 10

it.live(
  "exporting a year of glucose keeps the server's memory flat",
  () =>
    Effect.scoped(Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-export-")
      const env = { ...(yield* databaseEnv), BACKFILL_DAYS: "365", LOG_LEVEL: "Warn" }
      const port = yield* freePort
      const server = yield* startChildServer({ dataDir, port, args: ["--sandbox"], env })
      const pid = server.process.pid!
      yield* Effect.gen(function*() {
        const created = yield* send("POST", "/api/v1/users", {
          bearer: server.apiKey!,
          json: { externalUserId: simulatedUser("export-year") }
        })
        expect(created.status, preview(created)).toBe(201)
        const { id: userId, token } = json(created) as { id: string; token: string }
        const { connectionId } = yield* connect(userId, token, "Dexcom", simulatedUser("dexcom"))
        yield* waitForSync(userId, token, connectionId, { timeout: "280 seconds" })
        // Readings are dated by the device's clock, which may already be in tomorrow (UTC+14 at the
        // most), and the backfill's oldest window reaches past a year (its padding): two reads of
        // 366 days, the first ending tomorrow, cover them all.
        const tomorrow = addDays(localToday(new Date(), null), 1)
        const countReadings = Effect.gen(function*() {
          let n = 0
          for (
            const [from, until] of [
              [addDays(tomorrow, -365), tomorrow],
              [addDays(tomorrow, -731), addDays(tomorrow, -366)]
            ] as const
          ) {
            const glucose = yield* send(
              "GET",
              `/api/v1/users/${userId}/connections/glucose?from=${from}&to=${until}`,
              { bearer: token }
            )
            expect(glucose.status, preview(glucose)).toBe(200)
            n += (json(glucose) as any).readings.length as number
          }
          return n
        })
        const readings = yield* countReadings
        expect(readings).toBeGreaterThan(100_000)

        const client = yield* HttpClient.HttpClient
        /** Reads the whole export, sampling the server's resident memory meanwhile. */
        const exportOnce = Effect.gen(function*() {
          const baseline = rssOf(pid)
          let peak = baseline
          const sampler = yield* Effect.fork(
            Effect.sync(() => (peak = Math.max(peak, rssOf(pid)))).pipe(
              Effect.zipRight(Effect.sleep("20 millis")),
              Effect.forever
            )
          )
          const req = yield* request("GET", `/api/v1/users/${userId}/export?includeRaw=true`, {
            bearer: server.apiKey!
          })
          const counts: Record<string, number> = {}
          let bytes = 0
          const started = Date.now()
          yield* Effect.scoped(Effect.gen(function*() {
            const response = yield* client.execute(req)
            expect(response.status).toBe(200)
            yield* response.stream.pipe(
              Stream.tap((chunk) => Effect.sync(() => (bytes += chunk.length))),
              Stream.decodeText(),
              Stream.splitLines,
              Stream.runForEach((line) =>
                Effect.sync(() => {
                  const parsed = JSON.parse(line) as { type: string; data: unknown }
                  counts[parsed.type] = (counts[parsed.type] ?? 0) + 1
                })
              )
            )
          }))
          const seconds = (Date.now() - started) / 1000
          yield* Effect.sync(() => (peak = Math.max(peak, rssOf(pid))))
          yield* Fiber.interrupt(sampler)
          const growth = peak - baseline
          console.log(
            `export: ${counts["glucoseReading"]} readings, ${mib(bytes)} MiB of NDJSON in ${seconds.toFixed(1)} s; ` +
              `server RSS ${mib(baseline)} MiB before, peak ${mib(peak)} MiB (growth ${mib(growth)} MiB)`
          )
          expect(counts["user"]).toBe(1)
          expect(counts["connection"]).toBe(1)
          // A scheduled sync may store the newest readings meanwhile: the export holds at least what
          // was read before it and at most what is read after it.
          expect(counts["glucoseReading"]).toBeGreaterThanOrEqual(readings)
          expect(counts["glucoseReading"]).toBeLessThanOrEqual(yield* countReadings)
          expect(bytes).toBeGreaterThan(40 * 1024 * 1024)
          return { bytes, growth }
        })
        const { bytes, growth } = yield* exportOnce
        // Flat: the growth (garbage between collections, and the embedded database's own cache) stays
        // below the size of the body, while a server buffering the export would hold the body at least
        // twice (its lines, then their bytes). On a quiet machine it grows by a few MiB on PostgreSQL; how
        // much garbage piles up before a collection ends depends on the CPU the collector's threads get:
        // on PostgreSQL with a load average of 6 on two cores RSS grew by 76 MiB, and the embedded
        // database (in the server's process, with garbage of its own) moved it by 6 MiB one time and
        // 53 MiB the next. The bound is the body itself, which a buffering server cannot stay under.
        expect(growth).toBeLessThan(bytes)
      }).pipe(Effect.provide(childServerClient(dataDir, port)))
    })),
  600_000
)
