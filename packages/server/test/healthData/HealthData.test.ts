/**
 * Endpoints 10-14 over HTTP against canonical rows stored through the sync's own store: range
 * reads across providers (sorted by date then provider, `provider` filter, disconnected
 * connections left out), single reads by connection and date (404 for absent days, another
 * user's connection and providers without that kind of data), credentials and validation.
 */
import { SqlClient } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import type { ConnectionId, Provider, UserId } from "@pulsebridge/domain"
import type { CanonicalBatch } from "@pulsebridge/providers"
import { emptyBatch } from "@pulsebridge/providers"
import { addConnection, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { RecordStore } from "../../src/sync/RecordStore.js"
import { expectError, json, preview, send, unknownId } from "../fixtures/Http.js"

const store = (userId: string, connectionId: ConnectionId, provider: Provider, batch: Partial<CanonicalBatch>) =>
  Effect.flatMap(
    RecordStore,
    (s) => s.storeBatch({ connectionId, userId: userId as UserId, provider }, { ...emptyBatch, ...batch }, "2026-03-01")
  )

const activity = (date: string, steps: number) => ({
  providerRecordId: `day-${date}`,
  date,
  steps,
  caloriesOut: 2100.5,
  activeCalories: 400,
  distanceMeters: 5230,
  lightActiveMinutes: 120,
  moderateActiveMinutes: 20,
  vigorousActiveMinutes: 10,
  sedentaryMinutes: 700,
  floorsClimbed: 4,
  restingHeartRate: 58,
  rawJson: JSON.stringify({ date, steps })
})

/** A load window; `scored: false` is a cycle WHOOP has not scored (no values yet). */
const cycle = (id: string, date: string, end: string | null, scored = true) => ({
  providerRecordId: id,
  date,
  windowKind: "PhysiologicalCycle" as const,
  windowStart: new Date(`${date}T06:00:00.000Z`),
  windowEnd: end === null ? null : new Date(end),
  loadScore: scored ? 12.5 : null,
  loadScoreScale: "WhoopStrain0To21" as const,
  energyKilocalories: scored ? 2000 : null,
  averageHeartRate: scored ? 70 : null,
  maxHeartRate: scored ? 160 : null,
  distanceMeters: null,
  steps: null,
  zoneDurationsJson: "{}",
  sourceConfidence: "ProviderNative" as const,
  scoreState: scored ? "SCORED" : "PENDING_SCORE",
  rawJson: JSON.stringify({ id, scored })
})

const reading = (id: string, at: string, value: number | null) => ({
  providerRecordId: id,
  date: at.slice(0, 10),
  systemTime: new Date(at),
  displayTime: new Date(at),
  value,
  trend: value === null ? null : "Flat",
  trendRate: value === null ? null : 0.1,
  unit: "mg/dL",
  rateUnit: "mg/dL/min",
  status: null,
  transmitterId: "tx",
  rawJson: JSON.stringify({ id })
})

const get = (path: string, token: string) => send("GET", path, { bearer: token })

it.layer(makeTestServer(), { timeout: "120 seconds" })("health data reads", (it) => {
  it.effect("endpoint 10 merges Fitbit and Garmin sorted by date then provider, and filters by provider", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("reads-activity")
      const fitbit = yield* addConnection(user, "Fitbit")
      const garmin = yield* addConnection(user, "Garmin")
      yield* store(user.id, garmin, "Garmin", {
        dailyActivity: [activity("2026-03-02", 200), activity("2026-03-01", 100)]
      })
      yield* store(user.id, fitbit, "Fitbit", {
        dailyActivity: [activity("2026-03-01", 300), activity("2026-02-20", 1)]
      })

      const reply = yield* get(`/api/v1/users/${user.id}/connections/activity?from=2026-03-01&to=2026-03-02`, token)
      expect(reply.status, preview(reply)).toBe(200)
      const days = json(reply) as Array<any>
      expect(days.map((d) => [d.date, d.provider, d.steps])).toEqual([
        ["2026-03-01", "Fitbit", 300],
        ["2026-03-01", "Garmin", 100],
        ["2026-03-02", "Garmin", 200]
      ])
      expect(days[0]).toEqual({
        connectionId: fitbit,
        provider: "Fitbit",
        date: "2026-03-01",
        steps: 300,
        caloriesOut: 2100.5,
        distanceMeters: 5230,
        lightActiveMinutes: 120,
        moderateActiveMinutes: 20,
        vigorousActiveMinutes: 10,
        sedentaryMinutes: 700,
        floorsClimbed: 4
      })

      const filtered = yield* get(
        `/api/v1/users/${user.id}/connections/activity?from=2026-01-01&to=2026-12-31&provider=Fitbit`,
        token
      )
      expect((json(filtered) as Array<any>).map((d) => d.date)).toEqual(["2026-02-20", "2026-03-01"])
      const none = yield* get(
        `/api/v1/users/${user.id}/connections/activity?from=2026-03-01&to=2026-03-02&provider=Dexcom`,
        token
      )
      expect(json(none)).toEqual([])
    }))

  it.effect("storing the same records again changes nothing; a changed record updates in place", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("reads-idempotent")
      const garmin = yield* addConnection(user, "Garmin")
      yield* store(user.id, garmin, "Garmin", { dailyActivity: [activity("2026-03-01", 100)] })
      yield* store(user.id, garmin, "Garmin", { dailyActivity: [activity("2026-03-01", 100)] })
      yield* store(user.id, garmin, "Garmin", { dailyActivity: [activity("2026-03-01", 150)] })
      const reply = yield* get(`/api/v1/users/${user.id}/connections/activity?from=2026-03-01&to=2026-03-01`, token)
      expect((json(reply) as Array<any>).map((d) => d.steps)).toEqual([150])
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ count: number }>`
        select count(*)::int as count from daily_activity where connection_id = ${garmin}
      `
      expect(row!.count).toBe(1)
    }))

  it.effect("endpoint 11 gives distance in kilometres with the raw JSON, and 404s where it should", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("reads-single")
      const fitbit = yield* addConnection(user, "Fitbit")
      const whoop = yield* addConnection(user, "WHOOP")
      yield* store(user.id, fitbit, "Fitbit", { dailyActivity: [activity("2026-03-01", 300)] })
      yield* store(user.id, whoop, "WHOOP", { dailyLoad: [cycle("1", "2026-03-01", "2026-03-02T06:00:00.000Z")] })
      const base = `/api/v1/users/${user.id}/connections`

      const ok = yield* get(`${base}/${fitbit}/activity/2026-03-01`, token)
      expect(ok.status, preview(ok)).toBe(200)
      expect(json(ok)).toEqual({
        steps: 300,
        caloriesOut: 2100.5,
        distance: 5.23,
        fairlyActiveMinutes: 20,
        veryActiveMinutes: 10,
        rawJson: JSON.stringify({ date: "2026-03-01", steps: 300 })
      })
      expectError(yield* get(`${base}/${fitbit}/activity/2026-03-02`, token), 404, "NotFound")
      expectError(yield* get(`${base}/${whoop}/activity/2026-03-01`, token), 404, "NotFound")
      expectError(yield* get(`${base}/${unknownId()}/activity/2026-03-01`, token), 404, "NotFound")

      const other = yield* createUser("reads-single-other")
      const theirs = yield* addConnection(other.user, "Fitbit")
      yield* store(other.user.id, theirs, "Fitbit", { dailyActivity: [activity("2026-03-01", 999)] })
      expectError(yield* get(`${base}/${theirs}/activity/2026-03-01`, token), 404, "NotFound")
      expectError(yield* get(`${base}/${theirs}/activity-load/2026-03-01`, token), 404, "NotFound")
    }))

  it.effect("endpoints 12 and 13 serve scored load records, the running cycle with windowEndUtc null", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("reads-load")
      const whoop = yield* addConnection(user, "WHOOP")
      yield* store(user.id, whoop, "WHOOP", {
        dailyLoad: [
          cycle("2", "2026-03-02", null),
          cycle("1", "2026-03-01", "2026-03-02T06:00:00.000Z"),
          cycle("0", "2026-02-28", "2026-03-01T06:00:00.000Z", false)
        ]
      })
      const base = `/api/v1/users/${user.id}/connections`
      const range = yield* get(`${base}/activity-load?from=2026-03-01&to=2026-03-02&provider=WHOOP`, token)
      expect(range.status, preview(range)).toBe(200)
      const records = json(range) as Array<any>
      expect(records.map((r) => r.date)).toEqual(["2026-03-01", "2026-03-02"])
      expect(records[0]).toEqual({
        connectionId: whoop,
        provider: "WHOOP",
        date: "2026-03-01",
        windowKind: "PhysiologicalCycle",
        windowStartUtc: "2026-03-01T06:00:00.000Z",
        windowEndUtc: "2026-03-02T06:00:00.000Z",
        loadScore: 12.5,
        loadScoreScale: "WhoopStrain0To21",
        energyKilocalories: 2000,
        averageHeartRate: 70,
        maxHeartRate: 160,
        distanceMeters: null,
        steps: null,
        zoneDurationsJson: "{}",
        sourceConfidence: "ProviderNative"
      })
      const single = yield* get(`${base}/${whoop}/activity-load/2026-03-02`, token)
      expect(single.status, preview(single)).toBe(200)
      const body = json(single) as any
      expect(body.connectionId).toBeUndefined()
      expect(body.provider).toBeUndefined()
      expect(body).toMatchObject({ windowEndUtc: null, loadScore: 12.5, energyKilocalories: 2000 })
      expectError(yield* get(`${base}/${whoop}/activity-load/2026-03-03`, token), 404, "NotFound")
      // not scored yet: absent from both reads
      const withUnscored = yield* get(`${base}/activity-load?from=2026-02-28&to=2026-03-02&provider=WHOOP`, token)
      expect((json(withUnscored) as Array<any>).map((r) => r.date)).toEqual(["2026-03-01", "2026-03-02"])
      expectError(yield* get(`${base}/${whoop}/activity-load/2026-02-28`, token), 404, "NotFound")
    }))

  it.effect("endpoint 14 returns readings, events (not deleted ones) and calibrations; null values stay null", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("reads-glucose")
      const dexcom = yield* addConnection(user, "Dexcom")
      yield* store(user.id, dexcom, "Dexcom", {
        glucoseReadings: [
          reading("r2", "2026-03-01T10:05:00.000Z", null),
          reading("r1", "2026-03-01T10:00:00.000Z", 110)
        ],
        glucoseEvents: [{
          providerRecordId: "e1",
          date: "2026-03-01",
          systemTime: new Date("2026-03-01T12:00:00.000Z"),
          displayTime: new Date("2026-03-01T12:00:00.000Z"),
          eventStatus: "Created",
          eventType: "Exercise",
          eventSubType: null,
          value: 30,
          unit: "minutes",
          rawJson: "{}"
        }, {
          providerRecordId: "e2",
          date: "2026-03-01",
          systemTime: new Date("2026-03-01T13:00:00.000Z"),
          displayTime: new Date("2026-03-01T13:00:00.000Z"),
          eventStatus: "Deleted",
          eventType: "Carbs",
          eventSubType: null,
          value: 40,
          unit: "grams",
          rawJson: "{}"
        }],
        glucoseCalibrations: [{
          providerRecordId: "c1",
          date: "2026-03-01",
          systemTime: new Date("2026-03-01T07:00:00.000Z"),
          displayTime: new Date("2026-03-01T07:00:00.000Z"),
          value: 105,
          unit: "mg/dL",
          rawJson: "{}"
        }]
      })
      const reply = yield* get(`/api/v1/users/${user.id}/connections/glucose?from=2026-03-01&to=2026-03-01`, token)
      expect(reply.status, preview(reply)).toBe(200)
      const data = json(reply) as any
      expect(data.readings.map((r: any) => [r.recordId, r.value])).toEqual([["r1", 110], ["r2", null]])
      expect(data.readings[0]).toEqual({
        connectionId: dexcom,
        provider: "Dexcom",
        date: "2026-03-01",
        systemTime: "2026-03-01T10:00:00.000Z",
        displayTime: "2026-03-01T10:00:00.000Z",
        value: 110,
        trend: "Flat",
        trendRate: 0.1,
        unit: "mg/dL",
        rateUnit: "mg/dL/min",
        status: null,
        transmitterId: "tx",
        recordId: "r1"
      })
      expect(data.events).toEqual([{
        connectionId: dexcom,
        provider: "Dexcom",
        date: "2026-03-01",
        systemTime: "2026-03-01T12:00:00.000Z",
        displayTime: "2026-03-01T12:00:00.000Z",
        eventType: "Exercise",
        eventSubType: null,
        value: 30,
        unit: "minutes",
        eventId: "e1"
      }])
      expect(data.calibrations).toEqual([{
        connectionId: dexcom,
        provider: "Dexcom",
        date: "2026-03-01",
        systemTime: "2026-03-01T07:00:00.000Z",
        displayTime: "2026-03-01T07:00:00.000Z",
        value: 105,
        unit: "mg/dL"
      }])
      const filtered = yield* get(
        `/api/v1/users/${user.id}/connections/glucose?from=2026-03-01&to=2026-03-01&provider=Fitbit`,
        token
      )
      expect(json(filtered)).toEqual({ readings: [], events: [], calibrations: [] })
      const empty = yield* get(`/api/v1/users/${user.id}/connections/glucose?from=2026-03-02&to=2026-03-02`, token)
      expect(json(empty)).toEqual({ readings: [], events: [], calibrations: [] })
    }))

  it.effect("a disconnected connection's data is left out of range reads", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("reads-disconnected")
      const gone = yield* addConnection(user, "Fitbit", { status: "Disconnected" })
      yield* store(user.id, gone, "Fitbit", { dailyActivity: [activity("2026-03-01", 300)] })
      const reply = yield* get(`/api/v1/users/${user.id}/connections/activity?from=2026-03-01&to=2026-03-01`, token)
      expect(json(reply)).toEqual([])
    }))

  it.effect("range reads need the user's own token and valid dates", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("reads-auth")
      const other = yield* createUser("reads-auth-other")
      for (const endpoint of ["activity", "activity-load", "glucose"]) {
        const path = `/api/v1/users/${user.id}/connections/${endpoint}?from=2026-03-01&to=2026-03-02`
        expectError(yield* send("GET", path), 401, "Unauthorized")
        expectError(yield* get(path, apiKey), 401, "Unauthorized")
        expectError(yield* get(path, other.token), 403, "Forbidden")
        const base = `/api/v1/users/${user.id}/connections/${endpoint}`
        for (
          const query of [
            "from=2026-03-02&to=2026-03-01",
            "from=2025-01-01&to=2026-01-02",
            "from=2026-3-1&to=2026-03-02",
            "from=2026-03-01",
            "from=2026-03-01&to=2026-03-02&provider=Polar"
          ]
        ) {
          const reply = yield* get(`${base}?${query}`, token)
          expect(reply.status, `${endpoint}?${query}: ${preview(reply)}`).toBe(400)
        }
      }
    }))
})
