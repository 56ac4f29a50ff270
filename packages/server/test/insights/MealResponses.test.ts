/**
 * The glucose response to meals through HTTP against the real server and database: on the full journal
 * entry (endpoint 19, and the entry a creation or a correction answers) and in the meal-responses range
 * read, with values worked out by hand from readings stored through the sync's own store; recomputed when
 * later readings land (Pending, then Complete); gaps, other meals in the window, water, other users'
 * data and disconnected connections; validation of the range and the credential rules.
 */
import { expect, layer } from "@effect/vitest"
import type { ConnectionId, UserId } from "@pulsebridge/domain"
import type { CanonicalBatch } from "@pulsebridge/providers"
import { emptyBatch } from "@pulsebridge/providers"
import { addConnection, apiClient, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { RecordStore } from "../../src/sync/RecordStore.js"
import {
  expectError,
  expectOwnTokenOnly,
  expectUserRangeReadDocumented,
  json,
  preview,
  send
} from "../fixtures/Http.js"

const MIN = 60_000

/** Readings every 5 minutes from `fromMin` to `toMin` minutes after `at`, valued by `f`, stored as the sync does. */
const storeCurve = (
  userId: string,
  connectionId: ConnectionId,
  at: number,
  fromMin: number,
  toMin: number,
  f: (minute: number) => number | null
) => {
  const readings: Array<CanonicalBatch["glucoseReadings"][number]> = []
  for (let m = fromMin; m <= toMin; m += 5) {
    const instant = new Date(at + m * MIN)
    const value = f(m)
    readings.push({
      providerRecordId: `egv-${instant.getTime()}`,
      date: instant.toISOString().slice(0, 10),
      systemTime: instant,
      displayTime: instant,
      value,
      trend: "Flat",
      trendRate: 0,
      unit: "mg/dL",
      rateUnit: "mg/dL/min",
      status: value === 401 ? "High" : null,
      transmitterId: "tx",
      rawJson: "{}"
    })
  }
  return Effect.flatMap(RecordStore, (s) =>
    s.storeBatch(
      { connectionId, userId: userId as UserId, provider: "Dexcom" },
      { ...emptyBatch, glucoseReadings: readings },
      "2026-03-01"
    ))
}

/** 100 before the entry; +1 mg/dL a minute to 160 at 60 min; back down to 100 at 120 min; 90 from 150 min. */
const triangle = (m: number) =>
  m <= 0 ? 100 : m <= 60 ? 100 + m : m <= 120 ? 220 - m : m <= 150 ? 100 - (m - 120) / 3 : 90

const entriesPath = (userId: string) => `/api/v1/users/${userId}/journal-entries`
const responsesPath = (userId: string, query: string) => `/api/v1/users/${userId}/insights/meal-responses?${query}`

const createEntry = (token: string, userId: string, body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const reply = yield* send("POST", entriesPath(userId), { bearer: token, json: body })
    expect(reply.status, preview(reply)).toBe(201)
    return json(reply)
  })

const getEntry = (token: string, userId: string, entryId: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", `${entriesPath(userId)}/${entryId}`, { bearer: token })
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply)
  })

const mealResponses = (token: string, userId: string, query: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", responsesPath(userId, query), { bearer: token })
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply) as Array<any>
  })

// On the real clock: whether a window's readings may still arrive depends on the time now.
layer(makeTestServer(), { timeout: "120 seconds", excludeTestServices: true })("meal responses", (it) => {
  it.effect("a meal on a known curve: baseline 100, peak 160 after 60 min, rise 60, iAUC 3600, back after 120 min", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("insights-known-curve")
      const dexcom = yield* addConnection(user, "Dexcom")
      const at = Date.parse("2026-03-02T12:00:00Z")
      yield* storeCurve(user.id, dexcom, at, -120, 300, triangle)
      const meal = yield* createEntry(token, user.id, {
        entryKind: "Meal",
        consumedAtUtc: "2026-03-02T12:00:00Z",
        timezone: "Europe/Paris",
        title: "Pasta",
        nutrients: { caloriesKcal: 600, carbsGrams: 80 }
      })
      const expected = {
        status: "Complete",
        reason: null,
        detail: null,
        connectionId: dexcom,
        provider: "Dexcom",
        unit: "mg/dL",
        baselineMgDl: 100,
        peakMgDl: 160,
        peakAtUtc: "2026-03-02T13:00:00.000Z",
        timeToPeakMinutes: 60,
        riseMgDl: 60,
        // the triangle of base 120 minutes and height 60 mg/dL above the baseline
        iauc2hMgDlMin: 3600,
        returnToBaselineMinutes: 120,
        readingCount: 43,
        flags: [],
        overlappingEntryIds: []
      }
      // the creation answers the full entry, with its response already
      expect(meal.glucoseResponse).toEqual(expected)
      expect((yield* getEntry(token, user.id, meal.id)).glucoseResponse).toEqual(expected)

      // water has none; a coffee at the peak is another entry inside the meal's window
      const water = yield* createEntry(token, user.id, { entryKind: "Water", consumedAtUtc: "2026-03-02T12:10:00Z" })
      expect(water.glucoseResponse).toBeNull()
      const coffee = yield* createEntry(token, user.id, {
        entryKind: "Coffee",
        consumedAtUtc: "2026-03-02T13:00:00Z",
        nutrients: { caffeineMg: 80 }
      })
      const flagged = (yield* getEntry(token, user.id, meal.id)).glucoseResponse
      expect(flagged).toEqual({ ...expected, flags: ["otherEntryInWindow"], overlappingEntryIds: [coffee.id] })
      // the coffee's own response: baseline from 12:30 to 13:00 (130 to 160 by 5, mean 145); after it 155, 150,
      // 145: peak 155 at 5 minutes, back at 15; area (15 + 10) / 2 x 5 + (10 + 5) / 2 x 5 + 5 / 2 x 5 = 112.5. The
      // meal at 12:00 is before the coffee's window (from 12:30).
      expect(coffee.glucoseResponse).toMatchObject({
        status: "Complete",
        baselineMgDl: 145,
        peakMgDl: 155,
        timeToPeakMinutes: 5,
        riseMgDl: 10,
        iauc2hMgDlMin: 112.5,
        returnToBaselineMinutes: 15,
        flags: [],
        overlappingEntryIds: []
      })

      // the range read: the meal and the coffee of that journal date (not the water), with titles and nutrients
      const range = yield* mealResponses(token, user.id, "from=2026-03-02&to=2026-03-02")
      expect(range.map((r) => [r.entryId, r.entryKind, r.title])).toEqual([
        [meal.id, "Meal", "Pasta"],
        [coffee.id, "Coffee", "Coffee"]
      ])
      expect(range[0]).toEqual({
        entryId: meal.id,
        entryKind: "Meal",
        title: "Pasta",
        consumedAtUtc: "2026-03-02T12:00:00.000Z",
        journalDate: "2026-03-02",
        timezone: "Europe/Paris",
        nutrients: { ...meal.nutrients },
        glucoseResponse: flagged
      })
      expect(range[0].nutrients).toMatchObject({ caloriesKcal: 600, carbsGrams: 80, fatGrams: null })
      expect(yield* mealResponses(token, user.id, "from=2026-03-03&to=2026-03-10")).toEqual([])

      // a correction that moves the meal a day later, where there is no glucose data: none
      const moved = yield* send("PATCH", `${entriesPath(user.id)}/${meal.id}`, {
        bearer: token,
        json: { consumedAtUtc: "2026-03-03T12:00:00Z" }
      })
      expect(moved.status, preview(moved)).toBe(200)
      expect(json(moved).glucoseResponse).toBeNull()
      expect((yield* mealResponses(token, user.id, "from=2026-03-01&to=2026-03-05")).map((r) => r.entryId)).toEqual([
        coffee.id
      ])
    }))

  it.effect("a recent meal is Pending until its readings land, then computed from them", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("insights-late-data")
      const dexcom = yield* addConnection(user, "Dexcom")
      // four hours ago, on a five-minute mark
      const at = Math.floor((Date.now() - 4 * 60 * MIN) / (5 * MIN)) * 5 * MIN
      const consumedAtUtc = new Date(at).toISOString()
      const date = consumedAtUtc.slice(0, 10)

      // before any reading of the window, a user with a glucose connection waits for it
      const meal = yield* createEntry(token, user.id, { entryKind: "Meal", consumedAtUtc, title: "Rice" })
      expect(meal.glucoseResponse).toMatchObject({
        status: "Pending",
        reason: "awaitingData",
        connectionId: null,
        readingCount: 0,
        riseMgDl: null
      })

      // the first 90 minutes arrive: still Pending, no figure from half a curve
      yield* storeCurve(user.id, dexcom, at, -60, 90, triangle)
      const half = (yield* getEntry(token, user.id, meal.id)).glucoseResponse
      expect(half).toMatchObject({
        status: "Pending",
        reason: "awaitingData",
        connectionId: dexcom,
        readingCount: 25,
        baselineMgDl: null,
        peakMgDl: null,
        iauc2hMgDlMin: null
      })
      const listed = yield* mealResponses(token, user.id, `from=${date}&to=${date}`)
      expect(listed.map((r) => r.glucoseResponse.status)).toEqual(["Pending"])

      // the rest lands: the next read computes it
      yield* storeCurve(user.id, dexcom, at, 95, 200, triangle)
      const complete = (yield* getEntry(token, user.id, meal.id)).glucoseResponse
      expect(complete).toMatchObject({
        status: "Complete",
        baselineMgDl: 100,
        riseMgDl: 60,
        iauc2hMgDlMin: 3600,
        returnToBaselineMinutes: 120
      })
      expect((yield* mealResponses(token, user.id, `from=${date}&to=${date}`))[0].glucoseResponse).toEqual(complete)
    }))

  it.effect("gaps and missing baselines are null figures with the reason; sensor limits are flagged", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("insights-gaps")
      const dexcom = yield* addConnection(user, "Dexcom")
      const day = Date.parse("2026-02-10T00:00:00Z")
      // 08:00: readings stop 35 to 65 minutes after the meal
      yield* storeCurve(user.id, dexcom, day + 8 * 60 * MIN, -30, 180, (m) => m > 35 && m < 65 ? null : triangle(m))
      // 13:00: no reading in the half hour before
      yield* storeCurve(user.id, dexcom, day + 13 * 60 * MIN, 0, 180, triangle)
      // 18:00: a peak at the sensor's limit
      yield* storeCurve(user.id, dexcom, day + 18 * 60 * MIN, -30, 180, (m) => m === 60 ? 401 : triangle(m))
      const gap = yield* createEntry(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-02-10T08:00:00Z" })
      const noBaseline = yield* createEntry(token, user.id, {
        entryKind: "Drink",
        consumedAtUtc: "2026-02-10T13:00:00Z"
      })
      const limit = yield* createEntry(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-02-10T18:00:00Z" })
      expect(gap.glucoseResponse).toMatchObject({
        status: "Insufficient",
        reason: "gap",
        detail: "no reading from 2026-02-10T08:35Z to 2026-02-10T09:05Z (30 minutes)",
        riseMgDl: null,
        iauc2hMgDlMin: null
      })
      expect(noBaseline.glucoseResponse).toMatchObject({ status: "Insufficient", reason: "noBaseline", peakMgDl: null })
      expect(limit.glucoseResponse).toMatchObject({ status: "Complete", peakMgDl: 401, flags: ["sensorLimit"] })
      const range = yield* mealResponses(token, user.id, "from=2026-02-10&to=2026-02-10")
      expect(range.map((r) => [r.entryId, r.glucoseResponse.reason])).toEqual([
        [gap.id, "gap"],
        [noBaseline.id, "noBaseline"],
        [limit.id, null]
      ])
    }))

  it.effect("only the user's own readings of connections not disconnected count", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("insights-own-data")
      const other = yield* createUser("insights-other-data")
      const at = Date.parse("2026-04-01T12:00:00Z")
      // another user's readings at that time
      yield* storeCurve(other.user.id, yield* addConnection(other.user, "Dexcom"), at, -30, 180, triangle)
      // a disconnected Dexcom of the user
      const disconnected = yield* addConnection(user, "Dexcom", { status: "Disconnected" })
      yield* storeCurve(user.id, disconnected, at, -30, 180, triangle)
      const meal = yield* createEntry(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-04-01T12:00:00Z" })
      expect(meal.glucoseResponse).toBeNull()
      expect(yield* mealResponses(token, user.id, "from=2026-04-01&to=2026-04-01")).toEqual([])
      // the other user's own meal is answered from its own readings
      const theirs = yield* createEntry(other.token, other.user.id, {
        entryKind: "Meal",
        consumedAtUtc: "2026-04-01T12:00:00Z"
      })
      expect(theirs.glucoseResponse).toMatchObject({ status: "Complete", riseMgDl: 60 })
    }))

  it.effect("the range is validated like every range read: 400 JSON for bad dates, from after to, over 366 days", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("insights-validation")
      for (
        const query of [
          "from=2026-03-02&to=2026-03-01",
          "from=2026-01-01&to=2027-01-02",
          "from=2026-02-30&to=2026-03-01",
          "from=yesterday&to=2026-03-01",
          "from=2026-03-01",
          ""
        ]
      ) {
        const reply = yield* send("GET", responsesPath(user.id, query), { bearer: token })
        expect(reply.status, `${query}: ${preview(reply)}`).toBe(400)
        expect(typeof json(reply)._tag).toBe("string")
      }
      // 366 days inclusive is the longest range
      expect(yield* mealResponses(token, user.id, "from=2026-01-01&to=2027-01-01")).toEqual([])
      expectError(
        yield* send("GET", `/api/v1/users/not-a-uuid/insights/meal-responses?from=2026-01-01&to=2026-01-02`, {
          bearer: token
        }),
        400
      )
    }))

  it.effect("meal responses need the user's own token: 401 without one, with a bad one or an API key, 403 for another user", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("insights-credentials")
      const other = yield* createUser("insights-credentials-other")
      yield* expectOwnTokenOnly(
        { apiKey, token, userId: user.id, otherId: other.user.id },
        (userId) => responsesPath(userId, "from=2026-01-01&to=2026-01-31")
      )
    }))

  it.effect("the OpenAPI document and the typed client carry the read and the entry's glucoseResponse", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/openapi.json")
      expect(reply.status).toBe(200)
      const doc = json(reply)
      expectUserRangeReadDocumented(doc, "/api/v1/users/{userId}/insights/meal-responses")
      expect(Object.keys(doc.components.schemas)).toEqual(
        expect.arrayContaining(["GlucoseResponse", "MealResponse", "GlucoseResponseReason", "GlucoseResponseFlag"])
      )
      expect(doc.components.schemas.JournalEntry.required).toContain("glucoseResponse")
      expect(doc.components.schemas.JournalEntrySummary.properties.glucoseResponse).toBeUndefined()

      const { token, user } = yield* createUser("insights-client")
      const dexcom = yield* addConnection(user, "Dexcom")
      const at = Date.parse("2026-05-04T07:30:00Z")
      yield* storeCurve(user.id, dexcom, at, -30, 180, triangle)
      yield* createEntry(token, user.id, { entryKind: "Meal", consumedAtUtc: "2026-05-04T07:30:00Z" })
      const client = yield* apiClient(token)
      const typed = yield* client.insights.mealResponses({
        path: { userId: user.id },
        urlParams: { from: "2026-05-04", to: "2026-05-04" }
      })
      expect(typed).toHaveLength(1)
      expect(typed[0]!.glucoseResponse.peakAtUtc).toEqual(new Date("2026-05-04T08:30:00Z"))
      expect(typed[0]!.glucoseResponse.iauc2hMgDlMin).toBe(3600)
    }))
})
