/**
 * The Garmin simulator's sleeps, activities, HRV, pulse ox and body compositions: their shapes and
 * units as the Health API v1.2.2 (7.3, 7.4, 7.7, 7.10) and the Activity API v1.2.3 (7.1) write them,
 * how often they come and what they leave out, their determinism, and their pulls by upload window,
 * backfills, pushes and pings.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { GarminSummaryType } from "../src/garmin/Summaries.js"
import { garminSummariesOf } from "../src/garmin/Summaries.js"
import { CLIENT, garminConnect, HttpLive, ManualClock, receiver, sendSigned, served } from "./simulatorHarness.js"

const SEED = "pulsebridge"
const users = ["a".repeat(32), "b".repeat(32), "c".repeat(32), "d".repeat(32)]
const may = Array.from({ length: 31 }, (_, i) => `2025-05-${String(i + 1).padStart(2, "0")}`)
const of = (user: string, type: GarminSummaryType, dates: ReadonlyArray<string> = may) =>
  dates.flatMap((date) => garminSummariesOf(SEED, user, type, date).map((item) => ({ date, ...item })))
const localDate = (seconds: number, offset: number) => new Date((seconds + offset) * 1000).toISOString().slice(0, 10)

// 2025-06-10T00:00:00Z; the clock stands at 2025-06-15T12:00Z
const JUNE_10 = 1_749_513_600

describe("Garmin simulator summaries", () => {
  it("a sleep every night, ending the morning of its calendarDate, some without a score, a nap now and then", () => {
    for (const user of users) {
      const nights = of(user, "sleeps")
      expect(nights).toHaveLength(31)
      for (const { date, summary, summaryAt, uploadAt } of nights) {
        const start = summary["startTimeInSeconds"] as number
        const offset = summary["startTimeOffsetInSeconds"] as number
        const duration = summary["durationInSeconds"] as number
        expect(summary["calendarDate"]).toBe(date)
        expect(localDate(start + duration, offset)).toBe(date)
        expect(duration).toBeGreaterThan(4 * 3600)
        const stages = [
          "deepSleepDurationInSeconds",
          "lightSleepDurationInSeconds",
          "remSleepInSeconds",
          "awakeDurationInSeconds"
        ]
          .reduce((sum, key) => sum + (summary[key] as number), 0)
        expect(stages).toBe(duration)
        expect(summaryAt).toBe(start)
        expect(uploadAt).toBeGreaterThan(start + duration)
      }
    }
    const all = users.flatMap((user) => of(user, "sleeps")).map((n) => n.summary)
    const unscored = all.filter((s) => !("overallSleepScore" in s))
    expect(unscored.length).toBeGreaterThan(0)
    expect(unscored.length).toBeLessThan(all.length / 3)
    for (const s of all.filter((s) => "overallSleepScore" in s)) {
      const score = s["overallSleepScore"] as { value: number; qualifierKey: string }
      expect(score.value).toBeGreaterThanOrEqual(0)
      expect(score.value).toBeLessThanOrEqual(100)
      expect(["EXCELLENT", "GOOD", "FAIR", "POOR"]).toContain(score.qualifierKey)
    }
    const naps = all.flatMap((s) => (s["naps"] as Array<Record<string, number>> | undefined) ?? [])
    expect(naps.length).toBeGreaterThan(0)
    for (const nap of naps) expect(nap["napDurationInSeconds"]).toBeLessThanOrEqual(3600)
  })

  it("an activity most days, some without heart rate, dated by their local start; Garmin's type names", () => {
    for (const user of users) {
      const activities = of(user, "activities")
      const days = new Set(activities.map((a) => a.date))
      expect(days.size).toBeGreaterThanOrEqual(16)
      for (const { date, summary } of activities) {
        expect(localDate(summary["startTimeInSeconds"] as number, summary["startTimeOffsetInSeconds"] as number)).toBe(
          date
        )
        expect(summary["activityType"]).toMatch(/^[A-Z_]+$/)
        expect(summary["summaryId"]).toBe(String(summary["activityId"]))
        expect(summary["durationInSeconds"]).toBeGreaterThanOrEqual(20 * 60)
      }
    }
    const all = users.flatMap((user) => of(user, "activities")).map((a) => a.summary)
    const withoutHeartRate = all.filter((a) => !("averageHeartRateInBeatsPerMinute" in a))
    expect(withoutHeartRate.length).toBeGreaterThan(0)
    expect(withoutHeartRate.length).toBeLessThan(all.length / 2)
  })

  it("HRV and pulse ox every day, a weigh-in at least weekly in grams; all deterministic from the seed", () => {
    for (const user of users) {
      expect(new Set(of(user, "hrv").map((h) => h.summary["calendarDate"]))).toEqual(new Set(may))
      const pulseOx = of(user, "pulseox")
      expect(new Set(pulseOx.filter((p) => p.summary["onDemand"] === false).map((p) => p.date))).toEqual(new Set(may))
      for (const { summary } of pulseOx) {
        for (const value of Object.values(summary["timeOffsetSpo2Values"] as Record<string, number>)) {
          expect(value).toBeGreaterThanOrEqual(80)
          expect(value).toBeLessThanOrEqual(100)
        }
      }
      const bodies = of(user, "bodyComps")
      // every week of the month has a weigh-in
      for (let week = 0; week < 4; week++) {
        expect(bodies.some((b) => b.date >= may[week * 7]! && b.date <= may[week * 7 + 6]!)).toBe(true)
      }
      for (const { date, summary } of bodies) {
        expect(Number.isInteger(summary["weightInGrams"])).toBe(true)
        expect(summary["weightInGrams"]).toBeGreaterThan(40_000)
        expect(
          localDate(summary["measurementTimeInSeconds"] as number, summary["measurementTimeOffsetInSeconds"] as number)
        )
          .toBe(date)
      }
    }
    // a scale sends every field, a weight entered by hand only the weight
    const bodies = users.flatMap((user) => of(user, "bodyComps")).map((b) => b.summary)
    expect(bodies.some((b) => "bodyFatInPercent" in b && "muscleMassInGrams" in b)).toBe(true)
    expect(bodies.some((b) => !("bodyFatInPercent" in b))).toBe(true)
    expect(of(users[0]!, "hrv")).toEqual(of(users[0]!, "hrv"))
    expect(garminSummariesOf("other-seed", users[0]!, "sleeps", "2025-05-10")).not.toEqual(
      garminSummariesOf(SEED, users[0]!, "sleeps", "2025-05-10")
    )
  })

  it.scopedLive("each type is pulled by upload window, backfilled by its own path and limit, pushed and pinged", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Garmin", new ManualClock())
      const uat = yield* garminConnect(base)
      const userId = (yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat)).json().userId
      const window = `uploadStartTimeInSeconds=${JUNE_10}&uploadEndTimeInSeconds=${JUNE_10 + 86_400}`
      for (const path of ["sleeps", "activities", "hrv", "pulseOx", "bodyComps"]) {
        const pulled = yield* sendSigned("GET", `${base}/wellness-api/rest/${path}?${window}`, uat)
        expect(pulled.status, path).toBe(200)
        for (const item of pulled.json()) expect(item).toMatchObject({ userId, userAccessToken: uat.key })
        if (path === "sleeps" || path === "hrv") expect(pulled.json().length).toBeGreaterThanOrEqual(1)
        const tooLong = yield* sendSigned(
          "GET",
          `${base}/wellness-api/rest/${path}?uploadStartTimeInSeconds=${JUNE_10}&uploadEndTimeInSeconds=${
            JUNE_10 + 86_401
          }`,
          uat
        )
        expect(tooLong.status).toBe(400)
      }
      // nothing uploaded after now
      const later = yield* sendSigned(
        "GET",
        `${base}/wellness-api/rest/sleeps?uploadStartTimeInSeconds=${JUNE_10 + 6 * 86_400}&uploadEndTimeInSeconds=${
          JUNE_10 + 7 * 86_400
        }`,
        uat
      )
      expect(later.json()).toEqual([])

      const backfill = (path: string, days: number) =>
        sendSigned(
          "GET",
          `${base}/wellness-api/rest/backfill/${path}?summaryStartTimeInSeconds=${
            JUNE_10 - days * 86_400
          }&summaryEndTimeInSeconds=${JUNE_10}`,
          uat
        )
      expect((yield* backfill("activities", 31)).status).toBe(400)
      expect((yield* backfill("sleeps", 31)).status).toBe(202)
      expect((yield* backfill("sleeps", 31)).status).toBe(409)
      expect((yield* backfill("pulseOx", 5)).status).toBe(202)
      expect((yield* backfill("epochs", 5)).status).toBe(400)
      expect(sim.control.pendingBackfills().map((b) => b.summaryType)).toEqual(["sleeps", "pulseox"])
      const hook = yield* receiver(() => 200)
      const deliveries = yield* sim.control.deliverBackfills(hook.url)
      expect(deliveries.map((d) => d.status)).toEqual([200, 200])
      const sleeps = JSON.parse(hook.received[0]!.body).sleeps
      expect(sleeps.length).toBeGreaterThanOrEqual(30)
      for (const sleep of sleeps) {
        expect(sleep.startTimeInSeconds).toBeGreaterThanOrEqual(JUNE_10 - 31 * 86_400)
        expect(sleep.startTimeInSeconds).toBeLessThan(JUNE_10)
      }
      const pulseOx = JSON.parse(hook.received[1]!.body).pulseox
      expect(pulseOx.length).toBeGreaterThanOrEqual(4)
      expect(hook.received[1]!.headers["garmin-client-id"]).toBe(CLIENT.clientId)

      yield* sim.control.pushSummaries(hook.url, {
        userId,
        summaryType: "bodyComps",
        dates: ["2025-06-01", "2025-06-14"]
      })
      expect(Object.keys(JSON.parse(hook.received[2]!.body))).toEqual(["bodyComps"])
      yield* sim.control.pingSummaries(hook.url, {
        userId,
        summaryType: "hrv",
        uploadStartTimeInSeconds: JUNE_10,
        uploadEndTimeInSeconds: JUNE_10 + 86_400
      })
      const ping = JSON.parse(hook.received[3]!.body).hrv[0]
      expect(ping.callbackURL.startsWith(`${base}/wellness-api/rest/hrv?`)).toBe(true)
      const pulled = yield* sendSigned("GET", ping.callbackURL, uat)
      expect(pulled.json()).toEqual(
        (yield* sendSigned("GET", `${base}/wellness-api/rest/hrv?${window}`, uat)).json()
      )
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("activities need ACTIVITY_EXPORT, the Health API's types HEALTH_EXPORT (412 otherwise)", () =>
    Effect.gen(function*() {
      const { base, sim } = yield* served("Garmin", new ManualClock())
      const uat = yield* garminConnect(base)
      const userId = (yield* sendSigned("GET", `${base}/wellness-api/rest/user/id`, uat)).json().userId
      const hook = yield* receiver(() => 200)
      yield* sim.control.changePermissions(hook.url, { userId, permissions: ["HEALTH_EXPORT"] })
      const window = `uploadStartTimeInSeconds=${JUNE_10}&uploadEndTimeInSeconds=${JUNE_10 + 86_400}`
      const activities = yield* sendSigned("GET", `${base}/wellness-api/rest/activities?${window}`, uat)
      expect(activities.status).toBe(412)
      expect((yield* sendSigned("GET", `${base}/wellness-api/rest/sleeps?${window}`, uat)).status).toBe(200)
      yield* sim.control.changePermissions(hook.url, { userId, permissions: ["ACTIVITY_EXPORT"] })
      expect((yield* sendSigned("GET", `${base}/wellness-api/rest/activities?${window}`, uat)).status).toBe(200)
      expect((yield* sendSigned("GET", `${base}/wellness-api/rest/bodyComps?${window}`, uat)).status).toBe(412)
    }).pipe(Effect.provide(HttpLive)))
})
