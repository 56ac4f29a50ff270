/**
 * WHOOP end to end through HTTP: cycles, their sleep and recovery on the day the member wakes
 * into (a cycle starting 21:48 at -04:00 on the 27th is the 28th; `start + 12 h` without the
 * sleep), the running cycle served with `windowEndUtc: null`, unscored cycles left out of
 * endpoints 12-13 until scored, a malformed record quarantined while the rest of its window is
 * stored, a record re-dated in place, and migration 0007 re-dating rows stored under the old
 * rule, with the scores following.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { ConnectionId, UserId } from "@pulsebridge/domain"
import type { CanonicalBatch, DailyLoadRecord, RecoveryRecord, SleepRecord } from "@pulsebridge/providers"
import { emptyBatch } from "@pulsebridge/providers"
import { providerUserIds } from "@pulsebridge/sandbox"
import * as Simulators from "@pulsebridge/sandbox"
import { addConnection, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ConnectionTokens } from "../../src/connections/ConnectionTokens.js"
import { ProviderAccess } from "../../src/connections/ProviderAccess.js"
import redateWhoop from "../../src/platform/migrations/0007_whoop_wake_day.js"
import { RecordStore } from "../../src/sync/RecordStore.js"
import { connect, sim, simulatedUser } from "../fixtures/Connect.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

// ---- the rule, written independently of the normaliser ----

const localDate = (iso: string, offset: string): string => {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset)
  const minutes = m === null ? 0 : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]))
  return new Date(Date.parse(iso) + minutes * 60_000).toISOString().slice(0, 10)
}

const get = (path: string, token: string) => send("GET", path, { bearer: token })

/** Every record of a simulator collection since `start`, through its own API with the connection's token. */
const simulatorRecords = (connectionId: string, path: string, start: string) =>
  Effect.gen(function*() {
    const stored = yield* (yield* ConnectionTokens).stored(connectionId)
    const out: Array<any> = []
    let next: string | undefined
    do {
      const query = new URLSearchParams({ start, limit: "25", ...(next === undefined ? {} : { nextToken: next }) })
      const reply = yield* send("GET", `/sandbox/whoop/developer/v2/${path}?${query}`, {
        bearer: Redacted.value(stored.accessToken)
      })
      expect(reply.status, preview(reply)).toBe(200)
      const page = json(reply) as any
      out.push(...page.records)
      next = page.next_token ?? undefined
    } while (next !== undefined)
    return out
  })

// ---- WHOOP-shaped records, as the normaliser stored them before 0007 ----

/** Asleep at 21:48 on 27 May at -04:00, awake at 06:12 on the 28th: the live v2 JSON. */
const eveningCycle = {
  id: 1_120_445_731,
  user_id: 10129,
  created_at: "2026-05-28T01:53:10.204Z",
  updated_at: "2026-05-29T02:31:47.118Z",
  start: "2026-05-28T01:48:21.440Z",
  end: "2026-05-29T03:10:05.871Z",
  timezone_offset: "-04:00",
  score_state: "SCORED",
  score: { strain: 11.4873, kilojoule: 9421.18, average_heart_rate: 71, max_heart_rate: 168 }
}
const eveningSleep = {
  id: "3b2f1c6e-9d0a-4c51-8f7e-2a6b4d9e0c13",
  cycle_id: eveningCycle.id,
  v1_id: null,
  user_id: 10129,
  created_at: "2026-05-28T10:19:44.913Z",
  updated_at: "2026-05-28T10:47:02.375Z",
  start: "2026-05-28T01:48:21.440Z",
  end: "2026-05-28T10:12:37.006Z",
  timezone_offset: "-04:00",
  nap: false,
  score_state: "SCORED",
  score: {
    stage_summary: {
      total_in_bed_time_milli: 30_256_000,
      total_awake_time_milli: 1_846_000,
      total_no_data_time_milli: 0,
      total_light_sleep_time_milli: 14_905_851,
      total_slow_wave_sleep_time_milli: 6_630_370,
      total_rem_sleep_time_milli: 6_873_779,
      sleep_cycle_count: 4,
      disturbance_count: 11
    },
    sleep_needed: {
      baseline_milli: 27_395_716,
      need_from_sleep_debt_milli: 352_230,
      need_from_recent_strain_milli: 208_595,
      need_from_recent_nap_milli: 0
    },
    respiratory_rate: 16.11328125,
    sleep_performance_percentage: 98,
    sleep_consistency_percentage: 90,
    sleep_efficiency_percentage: 93.9
  }
}
const eveningRecovery = {
  cycle_id: eveningCycle.id,
  sleep_id: eveningSleep.id,
  user_id: 10129,
  created_at: "2026-05-28T10:47:02.375Z",
  updated_at: "2026-05-28T10:47:02.375Z",
  score_state: "SCORED",
  score: {
    user_calibrating: false,
    recovery_score: 67,
    resting_heart_rate: 52,
    hrv_rmssd_milli: 71.204987,
    spo2_percentage: 96.125,
    skin_temp_celsius: 33.48
  }
}
/** The next cycle, 23:10 at -04:00 on the 28th, whose sleep was never read: start + 12 h is the 29th. */
const laterCycle = {
  ...eveningCycle,
  id: 1_120_445_732,
  created_at: "2026-05-29T03:15:00.000Z",
  start: "2026-05-29T03:10:05.871Z",
  end: "2026-05-30T02:55:41.002Z",
  score: { strain: 8.9312, kilojoule: 8804.77, average_heart_rate: 68, max_heart_rate: 151 }
}

const loadRecord = (cycle: typeof eveningCycle, date: string): DailyLoadRecord => ({
  providerRecordId: String(cycle.id),
  date,
  windowKind: "PhysiologicalCycle",
  windowStart: new Date(cycle.start),
  windowEnd: new Date(cycle.end),
  loadScore: cycle.score.strain,
  loadScoreScale: "WhoopStrain0To21",
  energyKilocalories: cycle.score.kilojoule / 4.184,
  averageHeartRate: cycle.score.average_heart_rate,
  maxHeartRate: cycle.score.max_heart_rate,
  distanceMeters: null,
  steps: null,
  zoneDurationsJson: "{}",
  sourceConfidence: "ProviderNative",
  scoreState: cycle.score_state,
  rawJson: JSON.stringify(cycle)
})

const sleepRecord = (date: string): SleepRecord => ({
  providerRecordId: eveningSleep.id,
  date,
  start: new Date(eveningSleep.start),
  end: new Date(eveningSleep.end),
  utcOffsetMinutes: -240,
  nap: false,
  scoreState: "SCORED",
  inBedMinutes: 30_256_000 / 60_000,
  asleepMinutes: (14_905_851 + 6_630_370 + 6_873_779) / 60_000,
  latencyMinutes: null,
  averageHeartRate: null,
  lowestHeartRate: null,
  hrvRmssdMs: null,
  spo2Percent: null,
  providerScore: 98,
  providerScoreScale: "WhoopSleepPerformance0To100",
  awakeMinutes: 1_846_000 / 60_000,
  lightMinutes: 14_905_851 / 60_000,
  deepMinutes: 6_630_370 / 60_000,
  remMinutes: 6_873_779 / 60_000,
  sleepNeedMinutes: (27_395_716 + 352_230 + 208_595) / 60_000,
  respiratoryRate: 16.11328125,
  performancePercent: 98,
  consistencyPercent: 90,
  efficiencyPercent: 93.9,
  disturbanceCount: 11,
  rawJson: JSON.stringify(eveningSleep)
})

const recoveryRecord = (date: string): RecoveryRecord => ({
  providerRecordId: String(eveningCycle.id),
  sleepId: eveningSleep.id,
  date,
  scoreState: "SCORED",
  calibrating: false,
  recoveryScore: 67,
  providerScoreScale: "WhoopRecovery0To100",
  restingHeartRate: 52,
  hrvRmssdMs: 71.204987,
  spo2Percent: 96.125,
  respiratoryRate: null,
  skinTempCelsius: 33.48,
  skinTemperatureDeviationCelsius: null,
  rawJson: JSON.stringify(eveningRecovery)
})

const store = (userId: string, connectionId: ConnectionId, batch: Partial<CanonicalBatch>) =>
  Effect.flatMap(
    RecordStore,
    (s) =>
      s.storeBatch(
        { connectionId, userId: userId as UserId, provider: "WHOOP" },
        { ...emptyBatch, ...batch },
        "2026-06-01"
      )
  )

const datesOf = (connectionId: string, table: "daily_load" | "recoveries" | "sleep_sessions") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string; date: string }>`
      select provider_record_id as id, date::text as date from ${sql(table)}
      where connection_id = ${connectionId} order by provider_record_id
    `
    return Object.fromEntries(rows.map((r) => [r.id, r.date]))
  })

layer(makeTestServer({ sandbox: true }), { timeout: "300 seconds", excludeTestServices: true })("WHOOP dates", (it) => {
  it.effect("synced from the simulator: each cycle on the day its sleep ends, its sleep and recovery with it", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser(`whoop-dates-${simulatedUser("u")}`)
      const { connectionId } = yield* connect(user.id, token, "WHOOP", simulatedUser("whoop"))
      yield* waitForSync(user.id, token, connectionId)
      const from = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10)
      const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
      const range = yield* get(`/api/v1/users/${user.id}/connections/activity-load?from=${from}&to=${to}`, token)
      expect(range.status, preview(range)).toBe(200)
      const served = json(range) as Array<any>

      const since = new Date(Date.now() - 14 * 86_400_000).toISOString()
      const cycles = yield* simulatorRecords(connectionId, "cycle", since)
      const sleeps = yield* simulatorRecords(connectionId, "activity/sleep", since)
      let evenings = 0
      for (const cycle of cycles) {
        const record = served.find((r) => Date.parse(r.windowStartUtc) === Date.parse(cycle.start))
        if (cycle.score_state !== "SCORED") {
          // pending or unscorable: left out of endpoint 12 until scored
          expect(record, `unscored cycle ${cycle.id}`).toBeUndefined()
          continue
        }
        const opening = sleeps.find((s) => s.cycle_id === cycle.id && !s.nap)
        if (opening === undefined) continue
        expect(record, `cycle ${cycle.id}`).toBeDefined()
        expect(record.date).toBe(localDate(opening.end, cycle.timezone_offset))
        if (localDate(cycle.start, cycle.timezone_offset) < record.date) evenings++
        if (cycle.end === null) {
          // the running cycle: served, with its strain so far and no end
          expect(record.windowEndUtc).toBeNull()
          expect(typeof record.loadScore).toBe("number")
          expect(record.date).toBe(localDate(opening.end, cycle.timezone_offset))
        }
      }
      expect(evenings).toBeGreaterThan(5)
      expect(served.some((r) => r.windowEndUtc === null)).toBe(true)
      for (const record of served) {
        for (const field of ["loadScore", "energyKilocalories", "averageHeartRate", "maxHeartRate"]) {
          expect(typeof record[field], `${field} of ${record.date}`).toBe("number")
        }
      }

      // the sleep and the recovery of one night carry their cycle's date
      const sql = yield* SqlClient.SqlClient
      const nights = yield* sql<{ cycle: string; sleep: string; recovery: string }>`
        select l.date::text as cycle, s.date::text as sleep, r.date::text as recovery
        from recoveries r
        join sleep_sessions s on s.connection_id = r.connection_id and s.provider_record_id = r.sleep_id
        join daily_load l on l.connection_id = r.connection_id and l.provider_record_id = r.provider_record_id
        where r.connection_id = ${connectionId}
      `
      expect(nights.length).toBeGreaterThan(10)
      for (const night of nights) expect([night.sleep, night.recovery]).toEqual([night.cycle, night.cycle])

      // the single read of the running cycle's date is the running cycle
      const running = served.find((r) => r.windowEndUtc === null)
      const single = yield* get(
        `/api/v1/users/${user.id}/connections/${connectionId}/activity-load/${running.date}`,
        token
      )
      expect(single.status, preview(single)).toBe(200)
      expect(json(single)).toMatchObject({ windowEndUtc: null, windowStartUtc: running.windowStartUtc })
    }))

  it.effect("a malformed cycle is quarantined and counted on the connection; the rest of the window is stored", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser(`whoop-odd-${simulatedUser("u")}`)
      const account = simulatedUser("whoop-odd")
      const userId = Number(providerUserIds.whoop(account))
      yield* sim("WHOOP", "POST", "malformed-records", { userId, kind: "cycle", daysAgo: 3 })
      const { connectionId } = yield* connect(user.id, token, "WHOOP", account)
      const synced = yield* waitForSync(user.id, token, connectionId)
      yield* sim("WHOOP", "DELETE", "malformed-records")
      // read in its page and again by id (for its recovery): one record held
      expect(synced.quarantinedRecords).toBe(1)
      const sql = yield* SqlClient.SqlClient
      const held = yield* sql<{ kind: string; providerRecordId: string; rawJson: string }>`
        select kind, provider_record_id, raw_json from quarantined_records where connection_id = ${connectionId}
      `
      expect(held).toHaveLength(1)
      expect(held[0]).toMatchObject({ kind: "DailyLoad" })
      expect(JSON.parse(held[0]!.rawJson)).toMatchObject({
        id: Number(held[0]!.providerRecordId),
        start: "not a date-time"
      })
      // every other cycle of the window is there; the malformed one is not
      const from = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10)
      const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
      const served = json(
        yield* get(`/api/v1/users/${user.id}/connections/activity-load?from=${from}&to=${to}`, token)
      ) as Array<any>
      expect(served.length).toBeGreaterThan(15)
      expect(yield* datesOf(connectionId, "daily_load")).not.toHaveProperty(held[0]!.providerRecordId)
      // its recovery is stored all the same, dated by its sleep
      expect(yield* datesOf(connectionId, "recoveries")).toHaveProperty(held[0]!.providerRecordId)
    }))

  it.effect("a signed sleep.updated re-dates a cycle and its recovery stored on another date", () =>
    Effect.gen(function*() {
      const { app, token, user } = yield* createUser(`whoop-late-sleep-${simulatedUser("u")}`)
      const { connectionId } = yield* connect(user.id, token, "WHOOP", simulatedUser("whoop-late"))
      const connection = yield* waitForSync(user.id, token, connectionId)
      const sql = yield* SqlClient.SqlClient
      const [night] = yield* sql<{ sleepId: string; cycleId: string; date: string }>`
        select s.provider_record_id as sleep_id, r.provider_record_id as cycle_id, s.date::text as date
        from sleep_sessions s join recoveries r on r.connection_id = s.connection_id and r.sleep_id = s.provider_record_id
        join daily_load l on l.connection_id = s.connection_id and l.provider_record_id = r.provider_record_id
        where s.connection_id = ${connectionId} and not s.nap and l.window_end is not null
          and l.load_score is not null
        order by s.start_at desc limit 1
      `
      // A scored cycle: a finished one is PENDING_SCORE for a while, one day in 30 UNSCORABLE, and
      // the single read (endpoint 13) answers only scored ones.
      expect(night).toBeDefined()
      // as if the cycle and its recovery had been stored before their sleep was read, a day off
      yield* sql`
        update daily_load set date = date - 1 where connection_id = ${connectionId} and provider_record_id = ${
        night!.cycleId
      }
      `
      yield* sql`
        update recoveries set date = date - 1 where connection_id = ${connectionId} and provider_record_id = ${
        night!.cycleId
      }
      `
      expect((yield* datesOf(connectionId, "daily_load"))[night!.cycleId]).not.toBe(night!.date)

      const secret = Redacted.value((yield* ProviderAccess).sandboxCredentials("WHOOP").clientSecret)
      const body = JSON.stringify({
        user_id: Number(connection.providerUserId),
        id: night!.sleepId,
        type: "sleep.updated",
        trace_id: "d0c5a7e2-4f1b-4e8a-9c3d-2b6a1f0e9d87"
      })
      const timestamp = String(Date.now())
      const delivered = yield* send("POST", `/webhooks/whoop/${app.id}`, {
        body,
        headers: {
          "x-whoop-signature": Simulators.whoopSignature(secret, timestamp, body),
          "x-whoop-signature-timestamp": timestamp
        }
      })
      expect(delivered.status, preview(delivered)).toBe(204)
      yield* eventually(
        datesOf(connectionId, "daily_load"),
        (dates) => dates[night!.cycleId] === night!.date,
        "the cycle re-dated",
        { within: "30 seconds" }
      )
      expect((yield* datesOf(connectionId, "recoveries"))[night!.cycleId]).toBe(night!.date)
      const single = yield* get(
        `/api/v1/users/${user.id}/connections/${connectionId}/activity-load/${night!.date}`,
        token
      )
      expect(single.status, preview(single)).toBe(200)
    }))

  it.effect("an unscored cycle is absent from endpoints 12 and 13, and present once WHOOP scores it", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("whoop-unscored")
      const whoop = yield* addConnection(user, "WHOOP")
      const base = `/api/v1/users/${user.id}/connections`
      for (const state of ["PENDING_SCORE", "UNSCORABLE"]) {
        const unscored = { ...laterCycle, score_state: state, score: null }
        yield* store(user.id, whoop, {
          dailyLoad: [{
            ...loadRecord(laterCycle, "2026-05-29"),
            loadScore: null,
            energyKilocalories: null,
            averageHeartRate: null,
            maxHeartRate: null,
            scoreState: state,
            rawJson: JSON.stringify(unscored)
          }]
        })
        expect(json(yield* get(`${base}/activity-load?from=2026-05-29&to=2026-05-29`, token))).toEqual([])
        expectError(yield* get(`${base}/${whoop}/activity-load/2026-05-29`, token), 404, "NotFound")
      }
      yield* store(user.id, whoop, { dailyLoad: [loadRecord(laterCycle, "2026-05-29")] })
      const scored = json(yield* get(`${base}/activity-load?from=2026-05-29&to=2026-05-29`, token)) as Array<any>
      expect(scored.map((r) => [r.date, r.loadScore])).toEqual([["2026-05-29", 8.9312]])
      const single = yield* get(`${base}/${whoop}/activity-load/2026-05-29`, token)
      expect(single.status, preview(single)).toBe(200)
      expect(json(single)).toMatchObject({ loadScore: 8.9312, windowEndUtc: "2026-05-30T02:55:41.002Z" })
    }))

  it.effect("a record stored again with a new date (its sleep read later) moves to that date", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("whoop-redated")
      const whoop = yield* addConnection(user, "WHOOP")
      const base = `/api/v1/users/${user.id}/connections`
      // read first without its sleep: start + 12 h (the 28th here too); then a sleep that ends on the 27th
      yield* store(user.id, whoop, { dailyLoad: [loadRecord(eveningCycle, "2026-05-28")] })
      yield* store(user.id, whoop, { dailyLoad: [loadRecord(eveningCycle, "2026-05-27")] })
      const served = json(yield* get(`${base}/activity-load?from=2026-05-26&to=2026-05-29`, token)) as Array<any>
      expect(served.map((r) => r.date)).toEqual(["2026-05-27"])
    }))

  it.effect("migration 0007 re-dates rows stored on the evening's date; endpoints 12-13 and the scores follow", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("whoop-migrated")
      const whoop = yield* addConnection(user, "WHOOP")
      const base = `/api/v1/users/${user.id}/connections`
      // as stored before: cycles and recovery on the local date of the cycle's start, sleep on its end
      yield* store(user.id, whoop, {
        dailyLoad: [loadRecord(eveningCycle, "2026-05-27"), loadRecord(laterCycle, "2026-05-28")],
        sleep: [sleepRecord("2026-05-28")],
        recovery: [recoveryRecord("2026-05-27")]
      })
      const before = json(yield* get(`${base}/activity-load?from=2026-05-26&to=2026-05-30`, token)) as Array<any>
      expect(before.map((r) => r.date)).toEqual(["2026-05-27", "2026-05-28"])
      const scoresBefore = yield* get(`/api/v1/scores/daily?from=2026-05-26&to=2026-05-30`, token)
      expect(scoresBefore.status, preview(scoresBefore)).toBe(200)
      expect((json(scoresBefore) as Array<any>).map((d) => d.date)).toEqual(["2026-05-28", "2026-05-27"])

      yield* redateWhoop
      const after = json(yield* get(`${base}/activity-load?from=2026-05-26&to=2026-05-30`, token)) as Array<any>
      // the 21:48 cycle is the 28th (its sleep ends that morning); the next has no sleep: start + 12 h
      expect(after.map((r) => [r.date, r.loadScore])).toEqual([["2026-05-28", 11.4873], ["2026-05-29", 8.9312]])
      expectError(yield* get(`${base}/${whoop}/activity-load/2026-05-27`, token), 404, "NotFound")
      const single = yield* get(`${base}/${whoop}/activity-load/2026-05-28`, token)
      expect(single.status, preview(single)).toBe(200)
      expect(json(single)).toMatchObject({ windowStartUtc: "2026-05-28T01:48:21.440Z", loadScore: 11.4873 })
      expect(yield* datesOf(whoop, "recoveries")).toEqual({ [String(eveningCycle.id)]: "2026-05-28" })
      expect(yield* datesOf(whoop, "sleep_sessions")).toEqual({ [eveningSleep.id]: "2026-05-28" })

      // scores are computed from the stored rows on each read: the evening's date has nothing left
      const scoresAfter = yield* get(`/api/v1/scores/daily?from=2026-05-26&to=2026-05-30`, token)
      expect((json(scoresAfter) as Array<any>).map((d) => d.date)).toEqual(["2026-05-29", "2026-05-28"])

      // running it again changes nothing
      yield* redateWhoop
      expect(yield* datesOf(whoop, "daily_load")).toEqual({
        [String(eveningCycle.id)]: "2026-05-28",
        [String(laterCycle.id)]: "2026-05-29"
      })
    }))
})
