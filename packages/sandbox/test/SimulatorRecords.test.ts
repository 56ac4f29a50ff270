/**
 * The simulators' record helpers for assertions: `dexcomRecords` and the WHOOP control's
 * `records` give exactly what the HTTP endpoints serve, paging included.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { dexcomRecords, providerUserIds } from "../src/index.js"
import type { WhoopSimulator } from "../src/index.js"
import { bearer, dexcomConnect, get, HttpLive, ManualClock, served, whoopConnect } from "./simulatorHarness.js"

const HOUR = 3_600_000

describe("simulator record helpers", () => {
  it.scopedLive("dexcomRecords is what egvs, events and calibrations answer, delay and clipping included", () =>
    Effect.gen(function*() {
      const clock = new ManualClock("2025-06-15T12:00:00.000Z")
      const { base } = yield* served("Dexcom", clock, { seed: "records-seed" })
      const tokens = yield* dexcomConnect(base, "SandboxUser7")
      const userId = providerUserIds.dexcom("SandboxUser7")
      const start = Date.parse("2025-06-12T00:00:00Z")
      // ends after now: the last hour is not there yet (the data delay)
      const end = Date.parse("2025-06-15T18:00:00Z")
      for (const [path, kind] of [["egvs", "egv"], ["events", "event"], ["calibrations", "calibration"]] as const) {
        const reply = yield* get(
          `${base}/v3/users/self/${path}?startDate=2025-06-12T00:00:00&endDate=2025-06-15T18:00:00`,
          bearer(tokens.access)
        )
        expect(reply.status).toBe(200)
        const expected = dexcomRecords("records-seed", userId, kind, { start, end }, clock.ms)
        expect(reply.json().records).toEqual(expected)
        if (kind !== "calibration") expect(expected.length).toBeGreaterThan(0)
      }
      const egvs = dexcomRecords("records-seed", userId, "egv", { start, end }, clock.ms)
      expect(Date.parse(String(egvs[0]!["systemTime"]))).toBeLessThanOrEqual(clock.ms - HOUR)
      expect(Date.parse(String(egvs[egvs.length - 1]!["systemTime"]))).toBeGreaterThanOrEqual(start)
      // a different seed gives different values
      expect(dexcomRecords("other-seed", userId, "egv", { start, end }, clock.ms)).not.toEqual(egvs)
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("the WHOOP control's records are every page of a collection, in order", () =>
    Effect.gen(function*() {
      const clock = new ManualClock("2025-06-15T12:00:00.000Z")
      const { base, sim } = yield* served("WHOOP", clock)
      const tokens = yield* whoopConnect(base, "records-user")
      const userId = providerUserIds.whoop("records-user")
      const start = "2025-05-01T00:00:00.000Z"
      for (const kind of ["cycle", "recovery", "sleep", "workout"] as const) {
        const path = kind === "sleep" || kind === "workout" ? `activity/${kind}` : kind
        const served: Array<unknown> = []
        let next: string | undefined
        let pages = 0
        do {
          const query = new URLSearchParams({ start, limit: "25", ...(next === undefined ? {} : { nextToken: next }) })
          const reply = yield* get(`${base}/developer/v2/${path}?${query}`, bearer(tokens.access))
          expect(reply.status).toBe(200)
          served.push(...reply.json().records)
          next = reply.json().next_token
          pages++
        } while (next !== undefined)
        const records = (sim as WhoopSimulator).control.records(userId, kind, { start: Date.parse(start) })
        // through JSON, as served (`-0` becomes `0`)
        expect(JSON.parse(JSON.stringify(records))).toEqual(served)
        expect(records.length).toBeGreaterThan(25)
        expect(pages).toBe(Math.ceil(records.length / 25))
      }
      const cycles = (sim as WhoopSimulator).control.records(userId, "cycle", { start: Date.parse(start) })
      // newest first, and the newest is the running cycle: SCORED, end null, the strain so far
      expect(cycles[0]).toHaveProperty("end", null)
      expect(cycles[0]!["score_state"]).toBe("SCORED")
      expect(cycles[0]).toHaveProperty("score.strain")
    }).pipe(Effect.provide(HttpLive)))
})
