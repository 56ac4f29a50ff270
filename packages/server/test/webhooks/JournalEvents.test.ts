/**
 * The journal's events out, end to end with the sandbox analyser: a scan whose analysis completes
 * writes `journal.analysis.completed`, one that fails `journal.analysis.failed` with the reason the
 * entry shows; an edit that wins over a pending analysis, and manual entries, write none.
 */
import { expect, layer } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { addEndpoint, eventCount, sentTo } from "../fixtures/Events.js"
import { preview, send } from "../fixtures/Http.js"
import { makePng } from "../journal/fixtures/Images.js"
import {
  awaitProcessed,
  entriesPath,
  isSettled,
  pollEntry,
  pollUntil,
  scan,
  scanForm
} from "../journal/fixtures/Journal.js"

const sim = (method: "GET" | "POST", route: string, body?: unknown) =>
  send(method, `/sandbox/analyzer${route}`, body === undefined ? {} : { json: body })

layer(makeTestServer({ analyzer: "sandbox" }), { timeout: "180 seconds", excludeTestServices: true })(
  "journal events out",
  (it) => {
    it.effect("a completed and a failed analysis each write their event, in order, for the entry's user", () =>
      Effect.gen(function*() {
        const { app, token, user } = yield* createUser("events-journal")
        const endpoint = yield* addEndpoint(app.id)

        const manual = yield* send("POST", entriesPath(user.id), {
          bearer: token,
          json: { entryKind: "Meal", consumedAtUtc: "2026-01-05T10:00:00Z", nutrients: { caloriesKcal: 90 } }
        })
        expect(manual.status, preview(manual)).toBe(201)
        expect(yield* eventCount(app.id)).toBe(0)

        const meal = yield* scan(token, user.id, scanForm({ bytes: makePng(8, 8, 611), type: "image/png", name: "m" }))
        const completed = yield* pollEntry(token, user.id, meal.id, isSettled, "45 seconds")
        expect(completed.analysisStatus).toBe("Completed")

        const faulted = yield* sim("POST", "/_sim/faults", { kind: "notFood", count: 1 })
        expect(faulted.status, preview(faulted)).toBe(200)
        const cat = yield* scan(token, user.id, scanForm({ bytes: makePng(8, 8, 612), type: "image/png", name: "c" }))
        const failed = yield* pollEntry(token, user.id, cat.id, isSettled, "45 seconds")
        expect(failed.analysisStatus).toBe("Failed")

        const events = yield* sentTo(endpoint)
        expect(events.map((e) => [e.type, e.userId, e.data])).toEqual([
          ["journal.analysis.completed", user.id, { userId: user.id, entryId: meal.id }],
          ["journal.analysis.failed", user.id, { userId: user.id, entryId: cat.id, reason: failed.analysis.reason }]
        ])
      }))

    it.effect("an edit that wins over a pending analysis writes no analysis event", () =>
      Effect.gen(function*() {
        const { app, token, user } = yield* createUser("events-journal-edit")
        const endpoint = yield* addEndpoint(app.id)
        const held = yield* sim("POST", "/_sim/faults", { kind: "hold", count: 1 })
        expect(held.status, preview(held)).toBe(200)
        const entry = yield* scan(token, user.id, scanForm({ bytes: makePng(8, 8, 613), type: "image/png", name: "h" }))
        const calls = yield* pollUntil(
          Effect.map(sim("GET", "/_sim/calls"), (reply) => JSON.parse(reply.text)),
          (body) => body.held >= 1,
          { every: "50 millis", within: "20 seconds" }
        )
        if (calls.held < 1) expect.fail("the analyser never received the request")
        const edited = yield* send("PATCH", `${entriesPath(user.id)}/${entry.id}`, {
          bearer: token,
          json: { items: [{ name: "Soup", quantity: 1, unit: "bowl", nutrients: { caloriesKcal: 200 } }] }
        })
        expect(edited.status, preview(edited)).toBe(200)
        const released = yield* sim("POST", "/_sim/release")
        expect(released.status).toBe(204)
        yield* awaitProcessed(entry.id)
        expect(yield* sentTo(endpoint)).toEqual([])
        expect(yield* eventCount(app.id)).toBe(0)
      }))
  }
)
