/**
 * Endpoints 21 and 22 end to end in the sandbox: a user connects WHOOP and Fitbit, the backfill
 * fills the canonical tables, and the scores of the backfilled days come back with their factor
 * breakdown, most recent first; weekly scores over ISO weeks. Also credentials and validation.
 */
import { expect, layer } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"

const isScore = (value: unknown) => value === null || (typeof value === "number" && value >= 0 && value <= 100)

layer(makeTestServer({ sandbox: true }), { timeout: "300 seconds", excludeTestServices: true })("scores", (it) => {
  it.effect("after connecting WHOOP and Fitbit, daily and weekly scores cover the backfilled days", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser(`scores-${simulatedUser("u")}`)
      const whoop = yield* connect(user.id, token, "WHOOP", simulatedUser("whoop"))
      const fitbit = yield* connect(user.id, token, "Fitbit", simulatedUser("fitbit"))
      yield* waitForSync(user.id, token, whoop.connectionId)
      yield* waitForSync(user.id, token, fitbit.connectionId)

      const to = localToday(new Date(), null)
      const from = addDays(to, -27)
      const daily = yield* send("GET", `/api/v1/scores/daily?from=${from}&to=${to}`, { bearer: token })
      expect(daily.status, preview(daily)).toBe(200)
      const days = json(daily) as Array<any>
      expect(days.length).toBeGreaterThanOrEqual(25)
      const dates = days.map((d) => d.date)
      expect(dates).toEqual([...dates].sort().reverse())
      for (const day of days) {
        expect(day.date >= from && day.date <= to).toBe(true)
        for (const key of ["sleepScore", "activityScore", "recoveryScore", "overallScore"]) {
          expect(isScore(day[key]), `${day.date} ${key}=${day[key]}`).toBe(true)
        }
        expect(Object.keys(day.components).sort()).toEqual([
          "activity",
          "algorithmVersion",
          "overall",
          "recovery",
          "sleep"
        ])
        for (const pillar of ["sleep", "activity", "recovery"]) {
          expect(day.components[pillar].score).toBe(day[`${pillar}Score`])
          expect(Array.isArray(day.components[pillar].factors)).toBe(true)
        }
        expect(day.components.overall.score).toBe(day.overallScore)
      }
      // With both providers, the days in the middle of the backfill have all three pillars.
      const middle = days.filter((d) => d.date <= addDays(to, -3) && d.date >= addDays(to, -20))
      expect(middle.some((d) => d.sleepScore !== null && d.activityScore !== null && d.overallScore !== null)).toBe(
        true
      )
      const activityFactors = middle.flatMap((d) => d.components.activity.factors)
      expect(activityFactors.some((f: any) => f.state === "scored")).toBe(true)

      const weekly = yield* send("GET", `/api/v1/scores/weekly?from=${from}&to=${to}`, { bearer: token })
      expect(weekly.status, preview(weekly)).toBe(200)
      const weeks = json(weekly) as Array<any>
      expect(weeks.length).toBeGreaterThanOrEqual(3)
      const starts = weeks.map((w) => w.weekStartDate)
      expect(starts).toEqual([...starts].sort().reverse())
      for (const week of weeks) {
        expect(new Date(`${week.weekStartDate}T00:00:00Z`).getUTCDay(), "ISO weeks start on Monday").toBe(1)
        expect(week.daysWithData).toBeGreaterThanOrEqual(0)
        expect(week.daysWithData).toBeLessThanOrEqual(7)
        for (const key of ["sleepScore", "activityScore", "recoveryScore", "overallScore"]) {
          expect(isScore(week[key])).toBe(true)
        }
      }
    }))

  it.effect("a user without data gets an empty list; ranges are validated; a user token is needed", () =>
    Effect.gen(function*() {
      const { apiKey, token } = yield* createUser(`scores-empty-${simulatedUser("u")}`)
      const empty = yield* send("GET", "/api/v1/scores/daily?from=2026-01-01&to=2026-01-31", { bearer: token })
      expect(empty.status, preview(empty)).toBe(200)
      expect(json(empty)).toEqual([])
      const emptyWeeks = yield* send("GET", "/api/v1/scores/weekly?from=2026-01-01&to=2026-01-31", { bearer: token })
      expect(json(emptyWeeks)).toEqual([])
      for (const path of ["/api/v1/scores/daily", "/api/v1/scores/weekly"]) {
        expectError(yield* send("GET", `${path}?from=2026-01-01&to=2026-01-31`), 401, "Unauthorized")
        expectError(
          yield* send("GET", `${path}?from=2026-01-01&to=2026-01-31`, { bearer: apiKey }),
          401,
          "Unauthorized"
        )
        for (const query of ["from=2026-02-01&to=2026-01-01", "from=2025-01-01&to=2026-01-05", "from=2026-01-01"]) {
          const reply = yield* send("GET", `${path}?${query}`, { bearer: token })
          expect(reply.status, `${path}?${query}: ${preview(reply)}`).toBe(400)
        }
      }
    }))
})
