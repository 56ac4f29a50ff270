/**
 * The journal's events out, end to end with the sandbox analyser: a scan whose analysis completes
 * writes `journal.analysis.completed`, one that fails `journal.analysis.failed` with the reason the
 * entry shows; an edit that wins over a pending analysis, and manual entries, write none of these.
 * An entry the sleep score reads (caffeine, a meal) writes `scores.updated` for the nights it can move
 * when it is recorded, corrected or analysed; water and snacks write nothing.
 */
import { expect, layer } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import type { SentEvent } from "../fixtures/Events.js"
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

const analysisEvents = (events: ReadonlyArray<SentEvent>) => events.filter((e) => e.type.startsWith("journal."))
const scoreDates = (events: ReadonlyArray<SentEvent>) =>
  events.filter((e) => e.type === "scores.updated").map((e) => e.data.dates as ReadonlyArray<string>)

/** The four days `scores.updated` names for an entry of journal date `date`: the day before to two days after. */
const nightsOf = (date: string) =>
  [-1, 0, 1, 2].map((offset) =>
    new Date(Date.parse(`${date}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10)
  )

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
        // Each scan is a meal from the start (its energy unknown): recorded, then analysed, the first moves the
        // scores twice; the manual 90 kcal meal is a snack and moves none.
        const today = meal.journalDate as string
        expect(scoreDates(events)).toEqual([nightsOf(today), nightsOf(today), nightsOf(today)])
        expect(analysisEvents(events).map((e) => [e.type, e.userId, e.data])).toEqual([
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
        const events = yield* sentTo(endpoint)
        expect(analysisEvents(events)).toEqual([])
        // The scan's meal and its correction move the scores; nothing else was written.
        expect(scoreDates(events)).toHaveLength(2)
        expect(yield* eventCount(app.id)).toBe(2)
      }))

    it.effect("an entry the sleep score reads writes scores.updated for the nights it can move; water and snacks none", () =>
      Effect.gen(function*() {
        const { app, token, user } = yield* createUser("events-journal-scores")
        const endpoint = yield* addEndpoint(app.id)
        const record = (json: Record<string, unknown>) =>
          Effect.map(send("POST", entriesPath(user.id), { bearer: token, json }), (reply) => {
            expect(reply.status, preview(reply)).toBe(201)
            return JSON.parse(reply.text) as { id: string }
          })
        yield* record({ entryKind: "Water", consumedAtUtc: "2026-01-05T09:00:00Z", nutrients: { volumeMl: 500 } })
        yield* record({ entryKind: "Meal", consumedAtUtc: "2026-01-05T10:00:00Z", nutrients: { caloriesKcal: 80 } })
        yield* record({ entryKind: "Drink", consumedAtUtc: "2026-01-05T11:00:00Z", title: "Juice" })
        expect(yield* eventCount(app.id)).toBe(0)

        const coffee = yield* record({ entryKind: "Coffee", consumedAtUtc: "2026-01-05T20:00:00Z" })
        expect(scoreDates(yield* sentTo(endpoint))).toEqual([nightsOf("2026-01-05")])

        // Moved to another day: the nights of the old day and of the new one.
        const moved = yield* send("PATCH", `${entriesPath(user.id)}/${coffee.id}`, {
          bearer: token,
          json: { consumedAtUtc: "2026-01-10T07:30:00Z" }
        })
        expect(moved.status, preview(moved)).toBe(200)
        const events = yield* sentTo(endpoint)
        expect(events.map((e) => [e.type, e.userId])).toEqual([["scores.updated", user.id], [
          "scores.updated",
          user.id
        ]])
        expect(scoreDates(events)[1]).toEqual([...nightsOf("2026-01-05"), ...nightsOf("2026-01-10")])
      }))
  }
)
