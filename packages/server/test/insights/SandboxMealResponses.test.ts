/**
 * Meal responses in the sandbox, through HTTP: a user connects the simulated Dexcom, logs a meal at the
 * simulated account's usual lunch time, and the journal entry and the meal-responses read show the rise
 * of the simulator's curve; a meal logged now waits for its readings (Pending).
 */
import { expect, layer } from "@effect/vitest"
import * as Simulators from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"

/** The seed sandbox mode gives the simulators. */
const seed = "pulsebridge-sandbox"
const MIN = 60_000
const DAY = 86_400_000

layer(makeTestServer({ sandbox: true }), { timeout: "300 seconds", excludeTestServices: true })(
  "sandbox meals",
  (it) => {
    it.effect("a meal logged at the simulated account's usual lunch time shows the rise of its glucose", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`insights-sandbox-${Date.now()}`)
        const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("insights-meal"))
        const connection = yield* waitForSync(user.id, token, connectionId)

        // yesterday, in the account's own time zone, at its usual lunch time
        const { meals, offsetMinutes } = Simulators.dexcomUsualMealTimes(seed, connection.providerUserId)
        const lunch = meals.find((m) => m.name === "lunch")!
        const localToday = Math.floor((Date.now() + offsetMinutes * MIN) / DAY)
        const at = (localToday - 1) * DAY - offsetMinutes * MIN + lunch.minutes * MIN
        const created = yield* send("POST", `/api/v1/users/${user.id}/journal-entries`, {
          bearer: token,
          json: {
            entryKind: "Meal",
            consumedAtUtc: new Date(at).toISOString(),
            title: "Lunch",
            nutrients: { carbsGrams: 60 }
          }
        })
        expect(created.status, preview(created)).toBe(201)
        const meal = json(created)

        const read = yield* send("GET", `/api/v1/users/${user.id}/journal-entries/${meal.id}`, { bearer: token })
        expect(read.status, preview(read)).toBe(200)
        const response = json(read).glucoseResponse
        expect(response, JSON.stringify(response)).toMatchObject({
          status: "Complete",
          reason: null,
          connectionId,
          provider: "Dexcom",
          unit: "mg/dL"
        })
        // the simulator's meals rise 40-130 mg/dL, starting 10 minutes after a meal taken within 10 minutes of
        // the usual time
        expect(response.riseMgDl).toBeGreaterThan(20)
        expect(response.timeToPeakMinutes).toBeGreaterThan(10)
        expect(response.timeToPeakMinutes).toBeLessThanOrEqual(180)
        expect(response.iauc2hMgDlMin).toBeGreaterThan(0)
        // The 5-minute readings from 30 minutes before to 3 hours after (43 slots) that the simulator served a
        // value for: it leaves about 1% of slots empty, at random by account, so the count is the served one.
        const served = Simulators.dexcomRecords(
          seed,
          connection.providerUserId,
          "egv",
          { start: at - 30 * MIN, end: at + 180 * MIN + 1 },
          Date.now()
        ).filter((egv: any) => {
          const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(egv.systemTime) ? egv.systemTime : `${egv.systemTime}Z`)
          return egv.value !== null && t >= at - 30 * MIN && t <= at + 180 * MIN
        })
        expect(served.length).toBeGreaterThanOrEqual(38)
        expect(response.readingCount).toBe(served.length)

        const range = yield* send(
          "GET",
          `/api/v1/users/${user.id}/insights/meal-responses?from=${meal.journalDate}&to=${meal.journalDate}`,
          { bearer: token }
        )
        expect(range.status, preview(range)).toBe(200)
        expect(json(range)).toEqual([
          expect.objectContaining({ entryId: meal.id, title: "Lunch", glucoseResponse: response })
        ])
        expect(json(range)[0].nutrients.carbsGrams).toBe(60)

        // a meal logged now: the simulator's data comes an hour late, so its window waits
        const now = yield* send("POST", `/api/v1/users/${user.id}/journal-entries`, {
          bearer: token,
          json: { entryKind: "Meal", consumedAtUtc: new Date().toISOString() }
        })
        expect(now.status, preview(now)).toBe(201)
        expect(json(now).glucoseResponse).toMatchObject({ status: "Pending", reason: "awaitingData", riseMgDl: null })
      }))
  }
)
