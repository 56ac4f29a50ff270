/**
 * The sync engine end to end against the sandbox simulators: connecting a provider backfills
 * its last 30 days, and endpoints 10-14 serve exactly what the simulator served, with the
 * spec's dates, units and ids.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { Provider } from "@pulsebridge/domain"
import * as Simulators from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ConnectionTokens } from "../../src/connections/ConnectionTokens.js"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { connect, sim, simCalls, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"

const today = () => localToday(new Date(), null)

/** Reads a simulator's own data endpoint with the connection's access token. */
const fromSimulator = (connectionId: string, path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const tokens = yield* ConnectionTokens
    const stored = yield* tokens.stored(connectionId)
    const reply = yield* send("GET", path, {
      bearer: Redacted.value(stored.accessToken),
      headers
    })
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply) as any
  })

/** One civil day of one data type, as the Google Health API simulator rolls it up for the connection. */
const rolledUp = (connectionId: string, dataType: string, date: string) =>
  Effect.gen(function*() {
    const tokens = yield* ConnectionTokens
    const stored = yield* tokens.stored(connectionId)
    const civil = (d: string) => ({
      date: { year: Number(d.slice(0, 4)), month: Number(d.slice(5, 7)), day: Number(d.slice(8, 10)) }
    })
    const reply = yield* send("POST", `/sandbox/fitbit/v4/users/me/dataTypes/${dataType}/dataPoints:dailyRollUp`, {
      bearer: Redacted.value(stored.accessToken),
      json: { range: { start: civil(date), end: civil(addDays(date, 1)) }, windowSizeDays: 1 }
    })
    expect(reply.status, preview(reply)).toBe(200)
    return (json(reply) as any).rollupDataPoints[0]
  })

const connectAndSync = (provider: Provider) =>
  Effect.gen(function*() {
    const { token, user } = yield* createUser(`sync-${provider}-${simulatedUser("u")}`)
    const { connectionId } = yield* connect(user.id, token, provider, simulatedUser(provider.toLowerCase()))
    const connection = yield* waitForSync(user.id, token, connectionId)
    return { token, user, connectionId, connection }
  })

const range = (userId: string, token: string, endpoint: string, from: string, to: string, provider?: Provider) =>
  Effect.gen(function*() {
    const query = new URLSearchParams({ from, to, ...(provider === undefined ? {} : { provider }) })
    const reply = yield* send("GET", `/api/v1/users/${userId}/connections/${endpoint}?${query}`, { bearer: token })
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply) as any
  })

layer(makeTestServer({ sandbox: true }), { timeout: "300 seconds", excludeTestServices: true })("sync", (it) => {
  it.effect("Fitbit: connecting backfills 30 days and endpoints 10 and 11 serve the simulator's summaries", () =>
    Effect.gen(function*() {
      const { connection, connectionId, token, user } = yield* connectAndSync("Fitbit")
      expect(connection.syncState).toBe("Idle")
      expect(connection.lastSyncedAt).not.toBeNull()
      const to = today()
      const from = addDays(to, -29)
      const days = yield* range(user.id, token, "activity", from, to)
      expect(days.length).toBeGreaterThanOrEqual(29)
      for (const day of days) {
        expect(Object.keys(day).sort()).toEqual([
          "caloriesOut",
          "connectionId",
          "date",
          "distanceMeters",
          "floorsClimbed",
          "lightActiveMinutes",
          "moderateActiveMinutes",
          "provider",
          "sedentaryMinutes",
          "steps",
          "vigorousActiveMinutes"
        ])
        expect(day.connectionId).toBe(connectionId)
        expect(day.provider).toBe("Fitbit")
      }
      expect(days.map((d: any) => d.date)).toEqual([...days.map((d: any) => d.date)].sort())

      const date = addDays(to, -3)
      const steps = yield* rolledUp(connectionId, "steps", date)
      const distance = yield* rolledUp(connectionId, "distance", date)
      const calories = yield* rolledUp(connectionId, "total-calories", date)
      const levels = (yield* rolledUp(connectionId, "active-minutes", date)).activeMinutes
        .activeMinutesRollupByActivityLevel as Array<{ activityLevel: string; activeMinutesSum: string }>
      const minutes = (level: string) => Number(levels.find((l) => l.activityLevel === level)?.activeMinutesSum ?? 0)
      const sedentary = yield* rolledUp(connectionId, "sedentary-period", date)
      const floors = yield* rolledUp(connectionId, "floors", date)
      const totalKm = Number(distance.distance.millimetersSum) / 1_000_000
      const day = days.find((d: any) => d.date === date)
      expect(day).toEqual({
        connectionId,
        provider: "Fitbit",
        date,
        steps: Number(steps.steps.countSum),
        caloriesOut: calories.totalCalories.kcalSum,
        distanceMeters: expect.closeTo(totalKm * 1000, 6),
        lightActiveMinutes: minutes("LIGHT"),
        moderateActiveMinutes: minutes("MODERATE"),
        vigorousActiveMinutes: minutes("VIGOROUS"),
        sedentaryMinutes: Number(sedentary.sedentaryPeriod.durationSum.slice(0, -1)) / 60,
        floorsClimbed: Number(floors.floors.countSum ?? 0)
      })

      const single = yield* send("GET", `/api/v1/users/${user.id}/connections/${connectionId}/activity/${date}`, {
        bearer: token
      })
      expect(single.status, preview(single)).toBe(200)
      const body = json(single) as any
      expect(body).toEqual({
        steps: Number(steps.steps.countSum),
        caloriesOut: calories.totalCalories.kcalSum,
        distance: expect.closeTo(totalKm, 9),
        fairlyActiveMinutes: minutes("MODERATE"),
        veryActiveMinutes: minutes("VIGOROUS"),
        rawJson: expect.any(String)
      })
      // the raw record is Google's points of the day, by data type
      expect(JSON.parse(body.rawJson).steps).toEqual(steps)
    }))

  it.effect("Garmin: the backfill pulls the dailies the simulator generated, in the user's calendar dates", () =>
    Effect.gen(function*() {
      const { connection, connectionId, token, user } = yield* connectAndSync("Garmin")
      const to = today()
      const days = yield* range(user.id, token, "activity", addDays(to, -29), to, "Garmin")
      expect(days.length).toBeGreaterThanOrEqual(28)
      for (const date of [addDays(to, -3), addDays(to, -10), addDays(to, -20)]) {
        const daily = Simulators.garminDaily("pulsebridge-sandbox", connection.providerUserId, date, 1) as any
        const day = days.find((d: any) => d.date === date)
        expect(day, date).toEqual({
          connectionId,
          provider: "Garmin",
          date,
          steps: daily.steps,
          caloriesOut: daily.activeKilocalories + daily.bmrKilocalories,
          distanceMeters: daily.distanceInMeters,
          lightActiveMinutes: expect.any(Number),
          moderateActiveMinutes: daily.moderateIntensityDurationInSeconds / 60,
          vigorousActiveMinutes: daily.vigorousIntensityDurationInSeconds / 60,
          sedentaryMinutes: expect.any(Number),
          floorsClimbed: daily.floorsClimbed ?? 0
        })
      }
      const date = addDays(to, -3)
      const single = yield* send("GET", `/api/v1/users/${user.id}/connections/${connectionId}/activity/${date}`, {
        bearer: token
      })
      expect(single.status, preview(single)).toBe(200)
      const daily = Simulators.garminDaily("pulsebridge-sandbox", connection.providerUserId, date, 1) as any
      const body = json(single) as any
      expect(body.distance).toBeCloseTo(daily.distanceInMeters / 1000, 9)
      const raw = JSON.parse(body.rawJson)
      expect(raw).toMatchObject({ summaryId: daily.summaryId })
      // About one daily in four comes without calendarDate (its date is derived); the raw JSON stays as sent.
      expect(raw.calendarDate).toBe(daily.calendarDate)
    }))

  it.effect("WHOOP: cycles become daily load records (strain 0-21, kcal from kJ) in endpoints 12 and 13", () =>
    Effect.gen(function*() {
      const { connectionId, token, user } = yield* connectAndSync("WHOOP")
      const to = today()
      // Through tomorrow: a cycle that began this evening is dated the day the member wakes into.
      const records = yield* range(user.id, token, "activity-load", addDays(to, -29), addDays(to, 1))
      expect(records.length).toBeGreaterThanOrEqual(25)
      const start = new Date(Date.parse(`${addDays(to, -10)}T00:00:00Z`)).toISOString()
      const page = yield* fromSimulator(connectionId, `/sandbox/whoop/developer/v2/cycle?start=${start}&limit=25`)
      expect(page.records.length).toBeGreaterThan(5)
      for (const cycle of page.records) {
        const record = records.find((r: any) => Date.parse(r.windowStartUtc) === Date.parse(cycle.start))
        // contract types kept: a cycle WHOOP has not scored is left out until it is
        if (cycle.score_state !== "SCORED") {
          expect(record, `unscored cycle ${cycle.id}`).toBeUndefined()
          continue
        }
        expect(record, `cycle ${cycle.id}`).toBeDefined()
        expect(record).toMatchObject({
          connectionId,
          provider: "WHOOP",
          windowKind: "PhysiologicalCycle",
          loadScoreScale: "WhoopStrain0To21",
          sourceConfidence: "ProviderNative"
        })
        expect(record.loadScore).toBeGreaterThanOrEqual(0)
        expect(record.loadScore).toBeLessThanOrEqual(21)
        if (cycle.end === null) {
          // the running cycle: its strain so far when it was read, served with no end
          expect(record.windowEndUtc).toBeNull()
          expect(record.loadScore).toBeLessThanOrEqual(cycle.score.strain)
        } else {
          expect(record.loadScore).toBe(cycle.score.strain)
          expect(record.energyKilocalories).toBeCloseTo(cycle.score.kilojoule / 4.184, 9)
          expect(record.averageHeartRate).toBe(cycle.score.average_heart_rate)
          expect(record.maxHeartRate).toBe(cycle.score.max_heart_rate)
          expect(Date.parse(record.windowEndUtc)).toBe(Date.parse(cycle.end))
        }
        expect(() => JSON.parse(record.zoneDurationsJson)).not.toThrow()
      }
      const [first] = records
      const single = yield* send(
        "GET",
        `/api/v1/users/${user.id}/connections/${connectionId}/activity-load/${first.date}`,
        { bearer: token }
      )
      expect(single.status, preview(single)).toBe(200)
      const { connectionId: _c, provider: _p, ...withoutOwner } = first
      expect(json(single)).toEqual(withoutOwner)

      const activity = yield* send(
        "GET",
        `/api/v1/users/${user.id}/connections/${connectionId}/activity/${first.date}`,
        {
          bearer: token
        }
      )
      expect(activity.status, preview(activity)).toBe(404)
    }))

  it.effect("Dexcom: 30 days of 5-minute readings arrive, values (nulls included) exactly as served", () =>
    Effect.gen(function*() {
      const { connection, connectionId, token, user } = yield* connectAndSync("Dexcom")
      const to = today()
      const data = yield* range(user.id, token, "glucose", addDays(to, -31), to)
      expect(Object.keys(data).sort()).toEqual(["calibrations", "events", "readings"])
      expect(data.readings.length).toBeGreaterThan(28 * 288 - 400)
      const ids = new Set(data.readings.map((r: any) => r.recordId))
      expect(ids.size).toBe(data.readings.length)
      const dayStart = Date.parse(`${addDays(to, -5)}T00:00:00Z`)
      const served = Simulators.dexcomRecords(
        "pulsebridge-sandbox",
        connection.providerUserId,
        "egv",
        { start: dayStart, end: dayStart + 86_400_000 },
        Date.now()
      ) as Array<any>
      expect(served.length).toBe(288)
      const byId = new Map(data.readings.map((r: any) => [r.recordId, r]))
      for (const egv of served) {
        const reading: any = byId.get(egv.recordId)
        expect(reading, egv.recordId).toBeDefined()
        expect(Date.parse(reading.systemTime)).toBe(Date.parse(egv.systemTime))
        expect(reading.value).toBe(egv.value)
        expect(reading.trendRate).toBe(egv.trendRate)
        expect(reading.unit).toBe(egv.unit)
        expect(reading.rateUnit).toBe(egv.rateUnit)
        expect(reading.transmitterId).toBe(egv.transmitterId)
        expect(reading.date).toBe(egv.displayTime.slice(0, 10))
        expect(reading.provider).toBe("Dexcom")
        expect(reading.connectionId).toBe(connectionId)
        expect(reading.trend === null ? null : reading.trend.toLowerCase()).toBe(
          egv.trend === null ? null : egv.trend.toLowerCase()
        )
      }
      expect(data.readings.some((r: any) => r.value === null), "null values stay null").toBe(true)
      for (const list of [data.readings, data.events, data.calibrations]) {
        const keys = list.map((r: any) => `${r.date} ${r.provider}`)
        expect(keys).toEqual([...keys].sort())
      }
    }))

  const faults = [
    { kind: "rateLimit", count: 2, retryAfterSeconds: 1 },
    { kind: "serverError", count: 2 },
    { kind: "slow", count: 1, delayMs: 11_000 },
    { kind: "expiredToken", count: 1 },
    { kind: "malformedJson", count: 2 }
  ] as const
  for (const fault of faults) {
    it.effect(`Dexcom: a backfill through ${fault.kind} faults ends complete, without duplicates`, () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`fault-${fault.kind}-${simulatedUser("u")}`)
        yield* sim("Dexcom", "DELETE", "faults")
        yield* sim("Dexcom", "POST", "faults", { path: "/v3/users/self/egvs", ...fault })
        const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
        const connection = yield* waitForSync(user.id, token, connectionId)
        const remaining = yield* sim("Dexcom", "GET", "faults")
        expect(remaining.faults, "every injected fault was hit").toEqual([])
        const calls = yield* simCalls("Dexcom", { path: "/v3/users/self/egvs" })
        expect(calls.filter((c) => c.fault === fault.kind).length).toBe(fault.count)

        const to = today()
        // A reading's date is the device's wall-clock day: a device east of UTC is already in tomorrow.
        const data = yield* range(user.id, token, "glucose", addDays(to, -31), addDays(to, 1))
        const start = Date.parse(`${addDays(to, -27)}T00:00:00Z`)
        const end = Date.parse(`${addDays(to, -1)}T00:00:00Z`)
        const served = Simulators.dexcomRecords(
          "pulsebridge-sandbox",
          connection.providerUserId,
          "egv",
          { start, end },
          Date.now()
        ) as Array<any>
        const stored = new Set(
          data.readings.filter((r: any) => {
            const t = Date.parse(r.systemTime)
            return t >= start && t < end
          }).map((r: any) => r.recordId)
        )
        expect(stored.size).toBe(served.length)
        for (const egv of served) expect(stored.has(egv.recordId), egv.recordId).toBe(true)

        const sql = yield* SqlClient.SqlClient
        const [counts] = yield* sql<{ total: number; distinctIds: number }>`
          select count(*)::int as total, count(distinct provider_record_id)::int as distinct_ids
          from glucose_readings where connection_id = ${connectionId}
        `
        expect(counts!.total).toBe(counts!.distinctIds)
        expect(counts!.total).toBe(data.readings.length)
      }))
  }
})
