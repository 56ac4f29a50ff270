/**
 * WHOOP data: the normalisers on provider-shaped JSON (a cycle dated by the day the member wakes
 * into, the `start + 12 h` fallback, the running cycle, unscored cycles, sleep, recovery, workout
 * zones, kJ to kcal), `fetchWindow` against the served WHOOP simulator (every page of the four
 * collections, the snapshots, dates by the opening sleep, granted scopes only, failures), record by
 * record decoding (a bad record quarantined), padded `next_token`s passed back exactly, the cycle
 * read-by-id fallback, and `fetchWhoopNotified` for each webhook type.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import type { DailyLoadRecord, RecoveryRecord, SleepRecord, WorkoutRecord } from "@pulsebridge/providers"
import {
  activityTypeOfName,
  fetchWhoopNotified,
  normaliseWhoopCycle,
  normaliseWhoopRecovery,
  normaliseWhoopSleep,
  normaliseWhoopWorkout,
  WhoopCycle,
  whoopCycleDate,
  WhoopData,
  whoopOpeningSleep,
  WhoopRecovery,
  WhoopSleep,
  WhoopWorkout
} from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { credentials, endpoints, fakeHttp, json, oauth2Tokens } from "../fixtures/FakeHttp.js"
import { connect, NOW, withHttp } from "../fixtures/Simulated.js"

// ---- expectations written from the rules, independently of the normalisers ----

const DAY = 86_400_000

/** The date at `iso` shifted by a `±hh:mm` / `Z` offset. */
const offsetOf = (offset: string): number | null => {
  if (offset === "Z") return 0
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset)
  return m === null ? null : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]))
}

const localDateOf = (iso: string, offset: string): string => {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset)
  const minutes = m === null ? 0 : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]))
  return new Date(Date.parse(iso) + minutes * 60_000).toISOString().slice(0, 10)
}

/**
 * The day the member wakes into: the local date, at the cycle's offset, of the end of its opening
 * sleep, else of `start + 12 h`.
 */
const wakeDay = (c: any, openingSleep?: any): string =>
  openingSleep === undefined
    ? localDateOf(new Date(Date.parse(c.start) + 12 * 3_600_000).toISOString(), c.timezone_offset)
    : localDateOf(openingSleep.end, c.timezone_offset)

/** A cycle's values count only when it is SCORED (the running cycle included). */
const expectedCycle = (c: any, openingSleep?: any): DailyLoadRecord => {
  const score = c.score_state === "SCORED" ? c.score ?? null : null
  return {
    providerRecordId: String(c.id),
    date: wakeDay(c, openingSleep),
    windowKind: "PhysiologicalCycle",
    windowStart: new Date(c.start),
    windowEnd: c.end === undefined || c.end === null ? null : new Date(c.end),
    loadScore: score?.strain ?? null,
    loadScoreScale: "WhoopStrain0To21",
    energyKilocalories: score === null ? null : score.kilojoule / 4.184,
    averageHeartRate: score?.average_heart_rate ?? null,
    maxHeartRate: score?.max_heart_rate ?? null,
    distanceMeters: null,
    steps: null,
    zoneDurationsJson: "{}",
    sourceConfidence: "ProviderNative",
    scoreState: c.score_state,
    rawJson: expect.any(String) as unknown as string
  }
}

const expectedSleep = (s: any, cycleDate?: string): SleepRecord => {
  const st = s.score?.stage_summary
  const need = s.score?.sleep_needed
  return {
    providerRecordId: s.id,
    date: cycleDate ?? localDateOf(s.end, s.timezone_offset),
    start: new Date(s.start),
    end: new Date(s.end),
    utcOffsetMinutes: offsetOf(s.timezone_offset),
    nap: s.nap,
    scoreState: s.score_state,
    inBedMinutes: st === undefined ? null : st.total_in_bed_time_milli / 60_000,
    asleepMinutes: st === undefined ? null : st.total_light_sleep_time_milli / 60_000 +
      st.total_slow_wave_sleep_time_milli / 60_000 + st.total_rem_sleep_time_milli / 60_000,
    latencyMinutes: null,
    averageHeartRate: null,
    lowestHeartRate: null,
    hrvRmssdMs: null,
    spo2Percent: null,
    providerScore: s.score?.sleep_performance_percentage ?? null,
    providerScoreScale: s.score === undefined ? null : "WhoopSleepPerformance0To100",
    awakeMinutes: st === undefined ? null : st.total_awake_time_milli / 60_000,
    lightMinutes: st === undefined ? null : st.total_light_sleep_time_milli / 60_000,
    deepMinutes: st === undefined ? null : st.total_slow_wave_sleep_time_milli / 60_000,
    remMinutes: st === undefined ? null : st.total_rem_sleep_time_milli / 60_000,
    sleepNeedMinutes: need === undefined ? null : (need.baseline_milli + need.need_from_sleep_debt_milli +
      need.need_from_recent_strain_milli + need.need_from_recent_nap_milli) / 60_000,
    respiratoryRate: s.score?.respiratory_rate ?? null,
    performancePercent: s.score?.sleep_performance_percentage ?? null,
    consistencyPercent: s.score?.sleep_consistency_percentage ?? null,
    efficiencyPercent: s.score?.sleep_efficiency_percentage ?? null,
    disturbanceCount: st?.disturbance_count ?? null,
    rawJson: expect.any(String) as unknown as string
  }
}

const expectedRecovery = (r: any, date: string): RecoveryRecord => ({
  providerRecordId: String(r.cycle_id),
  sleepId: r.sleep_id,
  date,
  scoreState: r.score_state,
  calibrating: r.score?.user_calibrating ?? null,
  recoveryScore: r.score?.recovery_score ?? null,
  providerScoreScale: r.score === undefined ? null : "WhoopRecovery0To100",
  restingHeartRate: r.score?.resting_heart_rate ?? null,
  hrvRmssdMs: r.score?.hrv_rmssd_milli ?? null,
  spo2Percent: r.score?.spo2_percentage ?? null,
  respiratoryRate: null,
  skinTempCelsius: r.score?.skin_temp_celsius ?? null,
  skinTemperatureDeviationCelsius: null,
  rawJson: expect.any(String) as unknown as string
})

const expectedWorkout = (w: any): WorkoutRecord => {
  const z = w.score?.zone_durations
  return {
    providerRecordId: w.id,
    date: localDateOf(w.start, w.timezone_offset),
    start: new Date(w.start),
    end: new Date(w.end),
    utcOffsetMinutes: offsetOf(w.timezone_offset),
    activityType: activityTypeOfName(w.sport_name),
    sportName: w.sport_name,
    durationMinutes: (Date.parse(w.end) - Date.parse(w.start)) / 60_000,
    scoreState: w.score_state,
    strain: w.score?.strain ?? null,
    loadScoreScale: w.score === undefined ? null : "WhoopStrain0To21",
    steps: null,
    averageHeartRate: w.score?.average_heart_rate ?? null,
    maxHeartRate: w.score?.max_heart_rate ?? null,
    energyKilocalories: w.score === undefined ? null : w.score.kilojoule / 4.184,
    distanceMeters: w.score?.distance_meter ?? null,
    zoneDurationsJson: z === undefined ? "{}" : JSON.stringify({
      zone0: z.zone_zero_milli / 60_000,
      zone1: z.zone_one_milli / 60_000,
      zone2: z.zone_two_milli / 60_000,
      zone3: z.zone_three_milli / 60_000,
      zone4: z.zone_four_milli / 60_000,
      zone5: z.zone_five_milli / 60_000
    }),
    rawJson: expect.any(String) as unknown as string
  }
}

/** Through JSON, as WHOOP serves it. */
const served = (value: unknown): any => JSON.parse(JSON.stringify(value))

// ---- provider-shaped JSON ----

const scoredCycle = {
  id: 93845,
  user_id: 10129,
  created_at: "2022-04-24T11:25:44.774Z",
  updated_at: "2022-04-24T14:25:44.774Z",
  start: "2022-04-24T02:25:44.774Z",
  end: "2022-04-25T03:25:44.774Z",
  timezone_offset: "-05:00",
  score_state: "SCORED",
  score: { strain: 5.2961, kilojoule: 8288.297, average_heart_rate: 68, max_heart_rate: 141 }
}

const sleepJson = {
  id: "ecfc6a15-4661-442f-a9a4-f160dd7afae8",
  cycle_id: 93845,
  user_id: 10129,
  created_at: "2022-04-24T11:25:44.774Z",
  updated_at: "2022-04-24T14:25:44.774Z",
  start: "2022-04-24T02:25:44.774Z",
  end: "2022-04-24T10:25:44.774Z",
  timezone_offset: "+09:30",
  nap: false,
  score_state: "SCORED",
  score: {
    stage_summary: {
      total_in_bed_time_milli: 28_800_000,
      total_awake_time_milli: 1_800_000,
      total_no_data_time_milli: 0,
      total_light_sleep_time_milli: 14_400_000,
      total_slow_wave_sleep_time_milli: 6_000_000,
      total_rem_sleep_time_milli: 6_600_000,
      sleep_cycle_count: 4,
      disturbance_count: 12
    },
    sleep_needed: {
      baseline_milli: 27_000_000,
      need_from_sleep_debt_milli: 3_600_000,
      need_from_recent_strain_milli: 600_000,
      need_from_recent_nap_milli: -1_200_000
    },
    respiratory_rate: 16.11328125,
    sleep_performance_percentage: 98,
    sleep_consistency_percentage: 90,
    sleep_efficiency_percentage: 91.69533848
  }
}

/** A night as live v2 serves it: asleep at 21:48 on the 27th at -04:00, awake at 06:12 on the 28th. */
const eveningCycle = {
  id: 1_120_445_731,
  user_id: 10129,
  created_at: "2026-05-28T01:53:10.204Z",
  updated_at: "2026-05-29T02:31:47.118Z",
  start: "2026-05-28T01:48:21.440Z",
  end: "2026-05-29T02:27:05.871Z",
  timezone_offset: "-04:00",
  score_state: "SCORED",
  score: { strain: 11.4873, kilojoule: 9421.18, average_heart_rate: 71, max_heart_rate: 168 }
}
const eveningSleep = {
  ...sleepJson,
  id: "3b2f1c6e-9d0a-4c51-8f7e-2a6b4d9e0c13",
  cycle_id: eveningCycle.id,
  v1_id: null,
  created_at: "2026-05-28T10:19:44.913Z",
  updated_at: "2026-05-28T10:47:02.375Z",
  start: "2026-05-28T01:48:21.440Z",
  end: "2026-05-28T10:12:37.006Z",
  timezone_offset: "-04:00"
}

describe("WHOOP normalisers", () => {
  it("a cycle starting 21:48 at -04:00 on the 27th is the 28th, the day its sleep ends", () => {
    const cycle = Schema.decodeUnknownSync(WhoopCycle)(eveningCycle)
    const sleep = Schema.decodeUnknownSync(WhoopSleep)(eveningSleep)
    const record = normaliseWhoopCycle(cycle, sleep)
    expect(record).toEqual({ ...expectedCycle(eveningCycle, eveningSleep), date: "2026-05-28", loadScore: 11.4873 })
    expect(record.energyKilocalories).toBeCloseTo(9421.18 / 4.184, 9)
    expect(whoopCycleDate(cycle, sleep)).toBe("2026-05-28")
    // the sleep that opens it is found among the cycle's sleeps, naps left aside
    const nap = { ...sleep, id: "nap", nap: true, start: "2026-05-27T18:00:00.000Z" }
    expect(whoopOpeningSleep(cycle.id, [nap, sleep])).toBe(sleep)
    // its sleep lands on the same date, whether dated alone or by its cycle
    expect(normaliseWhoopSleep(sleep).date).toBe("2026-05-28")
    expect(normaliseWhoopSleep(sleep, record.date).date).toBe("2026-05-28")
    expect(JSON.parse(record.rawJson)).toEqual(eveningCycle)
  })

  it("a cycle without its sleep is dated by start + 12 h in its offset", () => {
    const record = normaliseWhoopCycle(Schema.decodeUnknownSync(WhoopCycle)(scoredCycle))
    // 02:25Z at -05:00 is 21:25 on the 23rd; twelve hours later it is the 24th
    expect(record).toEqual({
      ...expectedCycle(scoredCycle),
      date: "2022-04-24",
      energyKilocalories: 8288.297 / 4.184,
      loadScore: 5.2961
    })
    expect(record.energyKilocalories).toBeCloseTo(1980.95, 2)
    // a member asleep at 12:30 and awake at 20:00 wakes into the same day; the fallback would say the next
    const afternoon = { ...eveningCycle, start: "2026-05-27T16:30:00.000Z" }
    const sleep = { ...eveningSleep, start: afternoon.start, end: "2026-05-28T00:00:00.000Z" }
    const decoded = Schema.decodeUnknownSync(WhoopCycle)(afternoon)
    expect(normaliseWhoopCycle(decoded).date).toBe("2026-05-28")
    expect(normaliseWhoopCycle(decoded, Schema.decodeUnknownSync(WhoopSleep)(sleep)).date).toBe("2026-05-27")
  })

  it("the running cycle: SCORED, end null, its running strain kept", () => {
    const running = {
      ...eveningCycle,
      end: null,
      score: { strain: 6.0125, kilojoule: 4210.5, average_heart_rate: 66, max_heart_rate: 121 }
    }
    const record = normaliseWhoopCycle(Schema.decodeUnknownSync(WhoopCycle)(running))
    expect(record).toEqual(expectedCycle(running))
    expect(record).toMatchObject({ windowEnd: null, loadScore: 6.0125, scoreState: "SCORED" })
  })

  it("unscored cycles (PENDING_SCORE, UNSCORABLE, score null or absent) have no values", () => {
    for (const state of ["PENDING_SCORE", "UNSCORABLE"]) {
      for (
        const cycle of [{ ...scoredCycle, score_state: state, score: null }, { ...scoredCycle, score_state: state }]
      ) {
        const record = normaliseWhoopCycle(Schema.decodeUnknownSync(WhoopCycle)(cycle))
        expect(record).toMatchObject({
          loadScore: null,
          energyKilocalories: null,
          averageHeartRate: null,
          maxHeartRate: null,
          scoreState: state
        })
      }
    }
  })

  it("a sleep: milliseconds to minutes, need summed, dated by its end in its offset", () => {
    const record = normaliseWhoopSleep(Schema.decodeUnknownSync(WhoopSleep)(sleepJson))
    expect(record).toEqual({
      ...expectedSleep(sleepJson),
      // 10:25Z at +09:30 is 19:55 the same day
      date: "2022-04-24",
      inBedMinutes: 480,
      awakeMinutes: 30,
      lightMinutes: 240,
      deepMinutes: 100,
      remMinutes: 110,
      sleepNeedMinutes: 500,
      disturbanceCount: 12
    })
    const pending = normaliseWhoopSleep(
      Schema.decodeUnknownSync(WhoopSleep)({ ...sleepJson, score_state: "PENDING_SCORE", score: undefined })
    )
    expect(pending).toMatchObject({ inBedMinutes: null, sleepNeedMinutes: null, respiratoryRate: null })
  })

  it("a recovery takes the date it is given (its cycle's) and keeps optional fields null", () => {
    const recovery = {
      cycle_id: 93845,
      sleep_id: sleepJson.id,
      user_id: 10129,
      created_at: "2022-04-24T11:25:44.774Z",
      updated_at: "2022-04-24T14:25:44.774Z",
      score_state: "SCORED",
      score: { user_calibrating: false, recovery_score: 44, resting_heart_rate: 64, hrv_rmssd_milli: 31.813562 }
    }
    const record = normaliseWhoopRecovery(Schema.decodeUnknownSync(WhoopRecovery)(recovery), "2022-04-23")
    expect(record).toEqual(expectedRecovery(recovery, "2022-04-23"))
    expect(record).toMatchObject({ providerRecordId: "93845", spo2Percent: null, skinTempCelsius: null })
  })

  it("a workout: zones in minutes, energy in kcal, distance in metres", () => {
    const workout = {
      id: "ecfc6a15-4661-442f-a9a4-f160dd7afae8",
      user_id: 10129,
      start: "2022-04-24T02:25:44.774Z",
      end: "2022-04-24T03:25:44.774Z",
      timezone_offset: "Z",
      sport_name: "running",
      score_state: "SCORED",
      score: {
        strain: 8.2463,
        average_heart_rate: 123,
        max_heart_rate: 146,
        kilojoule: 1569.34033203125,
        percent_recorded: 100,
        distance_meter: 1772.77035916,
        zone_durations: {
          zone_zero_milli: 300_000,
          zone_one_milli: 600_000,
          zone_two_milli: 900_000,
          zone_three_milli: 900_000,
          zone_four_milli: 600_000,
          zone_five_milli: 300_000
        }
      }
    }
    const record = normaliseWhoopWorkout(Schema.decodeUnknownSync(WhoopWorkout)(workout))
    expect(record).toEqual(expectedWorkout(workout))
    expect(JSON.parse(record.zoneDurationsJson)).toEqual({
      zone0: 5,
      zone1: 10,
      zone2: 15,
      zone3: 15,
      zone4: 10,
      zone5: 5
    })
    expect(record.energyKilocalories).toBeCloseTo(375.08, 2)
  })

  // WHOOP v2 sleep and workout JSON as developer.whoop.com/api documents it (GET /v2/activity/sleep/{id},
  // /v2/activity/workout/{id}): a record carries one `timezone_offset`, that of its start.
  it("a nap is a sleep of its own, dated by its end; a night across a DST change keeps the offset WHOOP gives", () => {
    const nap = normaliseWhoopSleep(
      Schema.decodeUnknownSync(WhoopSleep)({
        ...sleepJson,
        id: "b3c4a1d2-0000-4000-8000-00000000a0a1",
        nap: true,
        start: "2022-04-24T05:10:00.000Z",
        end: "2022-04-24T05:40:00.000Z",
        timezone_offset: "-05:00"
      })
    )
    expect(nap).toMatchObject({ nap: true, date: "2022-04-24", utcOffsetMinutes: -300 })
    // Europe/Berlin's clocks went back at 01:00Z on 30 Oct 2022: asleep at 22:30 CEST (+02:00), awake at
    // 06:30 CET; WHOOP writes the start's offset, and the night is 9 hours long and belongs to the 30th.
    const dst = normaliseWhoopSleep(
      Schema.decodeUnknownSync(WhoopSleep)({
        ...sleepJson,
        id: "b3c4a1d2-0000-4000-8000-00000000a0a2",
        start: "2022-10-29T20:30:00.000Z",
        end: "2022-10-30T05:30:00.000Z",
        timezone_offset: "+02:00"
      })
    )
    expect(dst).toMatchObject({ date: "2022-10-30", utcOffsetMinutes: 120 })
    expect(dst.end.getTime() - dst.start.getTime()).toBe(9 * 3_600_000)
  })

  it("a workout WHOOP has not scored has no heart rate, energy or strain; its time and type stand", () => {
    const workout = normaliseWhoopWorkout(
      Schema.decodeUnknownSync(WhoopWorkout)({
        id: "0d4c5b6a-7e8f-4a9b-8c0d-1e2f3a4b5c6d",
        user_id: 10129,
        start: "2022-04-24T18:00:00.000Z",
        end: "2022-04-24T18:45:00.000Z",
        timezone_offset: "-04:00",
        sport_name: "weightlifting",
        score_state: "PENDING_SCORE"
      })
    )
    expect(workout).toMatchObject({
      activityType: "strength",
      sportName: "weightlifting",
      durationMinutes: 45,
      utcOffsetMinutes: -240,
      averageHeartRate: null,
      maxHeartRate: null,
      energyKilocalories: null,
      strain: null,
      loadScoreScale: null,
      zoneDurationsJson: "{}"
    })
  })

  it("refuses records without their key fields", () => {
    expect(() => Schema.decodeUnknownSync(WhoopCycle)({ ...scoredCycle, start: "yesterday" })).toThrow()
    expect(() => Schema.decodeUnknownSync(WhoopCycle)({ ...scoredCycle, timezone_offset: "EST" })).toThrow()
    expect(() => Schema.decodeUnknownSync(WhoopSleep)({ ...sleepJson, nap: undefined })).toThrow()
  })
})

// ---- against the simulator ----

const window = { from: "2025-05-20", to: "2025-06-14" }
const rangeStart = Date.parse("2025-05-18T00:00:00Z")
const rangeEnd = Date.parse(NOW)

describe("WhoopData.fetchWindow against the simulator", () => {
  it.scopedLive("reads every page of cycles, recoveries, sleeps and workouts, and today's snapshots", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connect("WHOOP")
      const batch = yield* WhoopData.fetchWindow(input(), window)
      const userId = Number(providerUserId)
      const records = (kind: "cycle" | "recovery" | "sleep" | "workout") =>
        served(sim.control.records(userId, kind, { start: rangeStart, end: rangeEnd })) as Array<any>

      const cycles = records("cycle")
      const sleeps = records("sleep")
      const opening = (c: any) => sleeps.find((s) => s.cycle_id === c.id && !s.nap)
      expect(batch.dailyLoad).toEqual(cycles.map((c) => expectedCycle(c, opening(c))))
      const dateOfCycle = new Map(batch.dailyLoad.map((c) => [c.providerRecordId, c.date]))
      expect(batch.recovery).toEqual(
        records("recovery").map((r) => expectedRecovery(r, dateOfCycle.get(String(r.cycle_id))!))
      )
      expect(batch.sleep).toEqual(sleeps.map((s) => expectedSleep(s, dateOfCycle.get(String(s.cycle_id)))))
      // the simulator's nights start in the evening: each cycle lands on the day its sleep ends
      const evening = cycles.filter((c) =>
        opening(c) !== undefined && localDateOf(c.start, c.timezone_offset) <
          localDateOf(opening(c).end, c.timezone_offset)
      )
      expect(evening.length).toBeGreaterThan(10)
      for (const c of evening) {
        const sleep = batch.sleep.find((s) => s.providerRecordId === opening(c).id)!
        const recovery = batch.recovery.find((r) => r.providerRecordId === String(c.id))
        expect(dateOfCycle.get(String(c.id))).toBe(sleep.date)
        if (recovery !== undefined) expect(recovery.date).toBe(sleep.date)
      }
      expect(batch.quarantined).toEqual([])
      expect(batch.workouts).toEqual(records("workout").map(expectedWorkout))
      batch.dailyLoad.forEach((record, i) => expect(JSON.parse(record.rawJson)).toEqual(cycles[i]))

      // the running cycle: SCORED, no end, the strain so far
      expect(batch.dailyLoad[0]).toMatchObject({ windowEnd: null, scoreState: "SCORED" })
      expect(batch.dailyLoad[0]!.loadScore).toBeGreaterThan(0)
      // the window's dates are covered
      const loadDates = new Set(batch.dailyLoad.map((r) => r.date))
      for (let ms = Date.parse(`${window.from}T00:00:00Z`); ms <= Date.parse(`${window.to}T00:00:00Z`); ms += DAY) {
        expect(loadDates.has(new Date(ms).toISOString().slice(0, 10))).toBe(true)
      }

      // pagination followed: 25 a page, nextToken sent back
      for (
        const [path, kind] of [["/developer/v2/cycle", "cycle"], ["/developer/v2/activity/sleep", "sleep"]] as const
      ) {
        const calls = sim.control.calls({ path })
        expect(calls).toHaveLength(Math.ceil(records(kind).length / 25))
        expect(calls.length).toBeGreaterThan(1)
        expect(calls.map((c) => c.params.limit)).toEqual(calls.map(() => "25"))
        expect(calls.slice(1).every((c) => c.params.nextToken !== undefined)).toBe(true)
        expect(calls[0]!.params).toMatchObject({ start: "2025-05-18T00:00:00.000Z", end: NOW })
        // the padded base64 tokens came back exactly as served
        expect(calls.slice(1).every((c) => /^[A-Za-z0-9+/]+={0,2}$/.test(c.params.nextToken!))).toBe(true)
      }
      // every recovery's cycle was in the batch: nothing read by id
      expect(sim.control.calls({ path: "/developer/v2/cycle/*" })).toHaveLength(0)

      expect(batch.profiles).toEqual([{
        providerRecordId: `${providerUserId}:2025-06-15`,
        firstName: "Data",
        lastName: "User",
        email: "data.user@sandbox.example",
        rawJson: expect.any(String)
      }])
      const body = yield* HttpClientRequest.get(`${input().endpoints.apiBaseUrl}/developer/v2/user/measurement/body`)
        .pipe(
          HttpClientRequest.bearerToken(input().tokens.accessToken),
          HttpClient.execute,
          Effect.flatMap((response) => response.json)
        ) as Effect.Effect<any, unknown, HttpClient.HttpClient>
      expect(batch.bodyMeasurements).toEqual([{
        measuredAt: new Date(NOW),
        bodyFatPercent: null,
        bmi: null,
        leanMassKilograms: null,
        providerRecordId: `${providerUserId}:2025-06-15`,
        heightMeters: body.height_meter,
        weightKilograms: body.weight_kilogram,
        maxHeartRate: body.max_heart_rate,
        rawJson: expect.any(String)
      }])
      expect(batch.dailyActivity).toEqual([])
    })))

  it.scopedLive("reads only what was granted; without read:cycles a recovery is dated by its sleep", () =>
    withHttp(Effect.gen(function*() {
      // the adapter reads the user id from the profile, so read:profile is always asked for
      const scopes = ["read:recovery", "read:sleep", "read:profile"]
      const { input, providerUserId, sim } = yield* connect("WHOOP", { scopes })
      expect(input().tokens.scopes.split(" ").sort()).toEqual(["offline", ...scopes].sort())
      const batch = yield* WhoopData.fetchWindow(input(), window)
      expect(batch.dailyLoad).toEqual([])
      expect(batch.workouts).toEqual([])
      expect(batch.profiles).toHaveLength(1)
      expect(batch.bodyMeasurements).toEqual([])
      const paths = new Set(sim.control.calls().map((c) => c.path))
      expect([...paths].sort()).toEqual([
        "/developer/v2/activity/sleep",
        "/developer/v2/recovery",
        "/developer/v2/user/profile/basic"
      ])
      const userId = Number(providerUserId)
      // without the cycle, a recovery takes the date of its sleep: the local date of its end
      const sleepDates = new Map(
        sim.control.records(userId, "sleep", { start: rangeStart, end: rangeEnd }).map((
          s: any
        ) => [s.id, localDateOf(s.end, s.timezone_offset)])
      )
      const recoveries = served(sim.control.records(userId, "recovery", { start: rangeStart, end: rangeEnd }))
      expect(recoveries.length).toBeGreaterThan(20)
      expect(batch.recovery).toEqual(recoveries.map((r: any) => expectedRecovery(r, sleepDates.get(r.sleep_id)!)))
    })))

  it.scopedLive("a 429 carries the reset; a 500 is status 500; a cut page is malformed; an expired token is 401", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim, tokens } = yield* connect("WHOOP")
      sim.control.injectFault({ path: "/developer/v2/recovery", kind: "rateLimit", retryAfterSeconds: 37 })
      const limited = yield* Effect.flip(WhoopData.fetchWindow(input(), window))
      expect(limited).toMatchObject({ _tag: "ProviderError", provider: "WHOOP", status: 429, retryAfterSeconds: 37 })

      sim.control.injectFault({ path: "/developer/v2/activity/workout", kind: "serverError" })
      expect(yield* Effect.flip(WhoopData.fetchWindow(input(), window))).toMatchObject({ status: 500 })

      sim.control.injectFault({ path: "/developer/v2/activity/sleep", kind: "malformedJson" })
      const malformed = yield* Effect.flip(WhoopData.fetchWindow(input(), window))
      expect(malformed.message).toContain("malformed response")

      sim.control.expireAccessTokens()
      const expired = yield* Effect.flip(WhoopData.fetchWindow(input(), window))
      expect(expired).toMatchObject({ status: 401, code: "invalid_token" })
      expect(expired.message).not.toContain(Redacted.value(tokens.accessToken))
    })))

  it.scopedLive("a window wholly after now reads nothing", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim } = yield* connect("WHOOP")
      // a window's reads start two days before it (a cycle may start the day before its date)
      const batch = yield* WhoopData.fetchWindow(input(), { from: "2025-06-18", to: "2025-06-20" })
      expect(batch.dailyLoad).toEqual([])
      expect(sim.control.calls()).toHaveLength(0)
    })))
})

describe("WHOOP recoveries whose cycle is outside the window", () => {
  it.effect("reads the cycle by id, dates the recovery by it, and adds it to the batch", () =>
    Effect.gen(function*() {
      const recovery = {
        cycle_id: 93845,
        sleep_id: sleepJson.id,
        user_id: 10129,
        score_state: "PENDING_SCORE"
      }
      const http = fakeHttp((sent) => {
        const path = sent.url.pathname
        if (path === "/developer/v2/recovery") return json(200, { records: [recovery] })
        if (path === "/developer/v2/cycle/93845") return json(200, scoredCycle)
        if (path === "/developer/v2/user/profile/basic") return json(200, { user_id: 10129 })
        if (path === "/developer/v2/user/measurement/body") return json(200, {})
        return json(200, { records: [], next_token: null })
      })
      const batch = yield* WhoopData.fetchWindow(
        { credentials, endpoints, tokens: oauth2Tokens({ scopes: "" }), providerUserId: "10129", now: new Date(NOW) },
        { from: "2025-06-01", to: "2025-06-02" }
      ).pipe(Effect.provide(http.layer))
      // no sleep of that cycle was read: start + 12 h
      expect(batch.recovery).toEqual([expectedRecovery(recovery, "2022-04-24")])
      expect(batch.dailyLoad).toEqual([expectedCycle(scoredCycle)])
      expect(http.sent.map((s) => s.url.pathname)).toContain("/developer/v2/cycle/93845")
      expect(batch.bodyMeasurements).toMatchObject([{ heightMeters: null, weightKilograms: null, maxHeartRate: null }])
    }))
})

describe("fetchWhoopNotified against the simulator", () => {
  it.scopedLive("sleep.updated and recovery.updated (which carries the sleep id) bring the sleep, cycle and recovery", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connect("WHOOP")
      const userId = Number(providerUserId)
      const sleep = served(sim.control.records(userId, "sleep", { start: rangeStart, end: rangeEnd }))
        .find((s: any) => !s.nap && s.score_state === "SCORED") as any
      const cycle = served(sim.control.records(userId, "cycle", { start: rangeStart, end: rangeEnd }))
        .find((c: any) => c.id === sleep.cycle_id)
      const recovery = served(sim.control.records(userId, "recovery", { start: rangeStart, end: rangeEnd }))
        .find((r: any) => r.cycle_id === sleep.cycle_id)
      const cycleDate = localDateOf(sleep.end, cycle.timezone_offset)
      for (const type of ["sleep.updated", "recovery.updated"]) {
        sim.control.clearCalls()
        const batch = yield* fetchWhoopNotified(input(), { type, id: sleep.id })
        expect(batch.sleep).toEqual([expectedSleep(sleep, cycleDate)])
        expect(batch.dailyLoad).toEqual([expectedCycle(cycle, sleep)])
        expect(batch.dailyLoad[0]!.date).toBe(cycleDate)
        expect(batch.recovery).toEqual([expectedRecovery(recovery, cycleDate)])
        expect(sim.control.calls().map((c) => c.path)).toEqual([
          `/developer/v2/activity/sleep/${sleep.id}`,
          `/developer/v2/cycle/${sleep.cycle_id}`,
          `/developer/v2/cycle/${sleep.cycle_id}/recovery`
        ])
      }
    })))

  it.scopedLive("workout.updated brings the workout; a gone resource, a deletion or an unknown type bring nothing", () =>
    withHttp(Effect.gen(function*() {
      const { input, providerUserId, sim } = yield* connect("WHOOP")
      const workout =
        served(sim.control.records(Number(providerUserId), "workout", { start: rangeStart, end: rangeEnd }))[0]
      const batch = yield* fetchWhoopNotified(input(), { type: "workout.updated", id: workout.id })
      expect(batch.workouts).toEqual([expectedWorkout(workout)])

      const gone = yield* fetchWhoopNotified(input(), {
        type: "sleep.updated",
        id: "00000000-0000-4000-8000-000000000000"
      })
      expect(gone.sleep).toEqual([])
      sim.control.clearCalls()
      for (const type of ["sleep.deleted", "workout.deleted", "recovery.deleted", "something.new"]) {
        const none = yield* fetchWhoopNotified(input(), { type, id: workout.id })
        expect([none.sleep, none.workouts, none.recovery, none.dailyLoad].every((l) => l.length === 0)).toBe(true)
      }
      expect(sim.control.calls()).toHaveLength(0)

      sim.control.injectFault({ path: "/developer/v2/activity/workout/*", kind: "rateLimit", retryAfterSeconds: 5 })
      const limited = yield* Effect.flip(fetchWhoopNotified(input(), { type: "workout.updated", id: workout.id }))
      expect(limited).toMatchObject({ status: 429, retryAfterSeconds: 5 })
    })))
})

const fakeInput = (scopes = "") => ({
  credentials,
  endpoints,
  tokens: oauth2Tokens({ scopes }),
  providerUserId: "10129",
  now: new Date("2026-06-01T12:00:00.000Z")
})

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

describe("WHOOP pages, record by record", () => {
  it.effect("one malformed record is quarantined with its raw JSON; the rest of the window is stored", () =>
    Effect.gen(function*() {
      const badCycle = { ...eveningCycle, id: 1_120_445_730, start: "yesterday evening" }
      const badSleep = { ...eveningSleep, id: "0d6b2a4e-1c3f-4e5a-9b7c-8d9e0f1a2b3c", nap: "no" }
      const badRecovery = { ...eveningRecovery, cycle_id: 1_120_445_729, score_state: 7 }
      const badWorkout = { id: "5f0c8a2e-7b1d-4c3e-a9f8-6e5d4c3b2a10", v1_id: null, start: "2026-05-28T12:00:00Z" }
      const http = fakeHttp((sent) => {
        switch (sent.url.pathname) {
          case "/developer/v2/cycle":
            return json(200, { records: [eveningCycle, badCycle], next_token: null })
          case "/developer/v2/recovery":
            return json(200, { records: [badRecovery, eveningRecovery], next_token: null })
          case "/developer/v2/activity/sleep":
            return json(200, { records: [badSleep, eveningSleep], next_token: null })
          case "/developer/v2/activity/workout":
            return json(200, { records: [badWorkout], next_token: null })
          case "/developer/v2/user/profile/basic":
            return json(200, { user_id: 10129 })
          default:
            return json(200, {})
        }
      })
      const batch = yield* WhoopData.fetchWindow(fakeInput(), { from: "2026-05-27", to: "2026-05-28" }).pipe(
        Effect.provide(http.layer)
      )
      expect(batch.dailyLoad).toEqual([expectedCycle(eveningCycle, eveningSleep)])
      expect(batch.sleep).toEqual([expectedSleep(eveningSleep, "2026-05-28")])
      expect(batch.recovery).toEqual([expectedRecovery(eveningRecovery, "2026-05-28")])
      expect(batch.workouts).toEqual([])
      expect(batch.quarantined.map((q) => [q.kind, q.providerRecordId])).toEqual([
        ["DailyLoad", "1120445730"],
        ["Recovery", "1120445729"],
        ["Sleep", badSleep.id],
        ["Workout", badWorkout.id]
      ])
      expect(JSON.parse(batch.quarantined[0]!.rawJson)).toEqual(badCycle)
      for (const q of batch.quarantined) expect(q.reason.length).toBeGreaterThan(0)
    }))

  it.effect("next_token values are padded base64, sent back exactly (percent-encoded)", () =>
    Effect.gen(function*() {
      const tokens = ["MTIzOjEyMzEyMw==", "NzE5Mj+xOjQ/Mg=="]
      const http = fakeHttp((sent) => {
        if (sent.url.pathname !== "/developer/v2/cycle") return json(200, { records: [], next_token: null })
        const token = sent.url.searchParams.get("nextToken")
        const page = token === null ? 0 : tokens.indexOf(token) + 1
        if (token !== null && page === 0) return json(400, { error: "invalid_request", status_code: 400 })
        return json(200, {
          records: page === 0 ? [eveningCycle] : [],
          ...(page < tokens.length ? { next_token: tokens[page] } : {})
        })
      })
      yield* WhoopData.fetchWindow(fakeInput("read:cycles"), { from: "2026-05-27", to: "2026-05-28" }).pipe(
        Effect.provide(http.layer)
      )
      const cycleCalls = http.sent.filter((s) => s.url.pathname === "/developer/v2/cycle")
      expect(cycleCalls.map((c) => c.url.searchParams.get("nextToken"))).toEqual([null, ...tokens])
      expect(cycleCalls[2]!.url.search).toContain("nextToken=NzE5Mj%2BxOjQ%2FMg%3D%3D")
    }))
})

describe("WHOOP notifications re-date a cycle by its sleep", () => {
  // asleep at 12:30 and awake at 20:00 (a night shift): start + 12 h would say the next day
  const shiftCycle = { ...eveningCycle, start: "2026-05-27T16:30:00.000Z", end: "2026-05-28T16:10:00.000Z" }
  const shiftSleep = { ...eveningSleep, start: shiftCycle.start, end: "2026-05-28T00:00:00.000Z" }
  const nap = {
    ...eveningSleep,
    id: "7c4d2e1f-0a9b-4c8d-b7e6-f5a4b3c2d1e0",
    nap: true,
    start: "2026-05-28T03:00:00.000Z",
    end: "2026-05-28T03:40:00.000Z"
  }
  const responder = (sent: { readonly url: URL }) => {
    switch (sent.url.pathname) {
      case `/developer/v2/activity/sleep/${shiftSleep.id}`:
        return json(200, shiftSleep)
      case `/developer/v2/activity/sleep/${nap.id}`:
        return json(200, nap)
      case `/developer/v2/cycle/${shiftCycle.id}`:
        return json(200, shiftCycle)
      case `/developer/v2/cycle/${shiftCycle.id}/sleep`:
        return json(200, shiftSleep)
      case `/developer/v2/cycle/${shiftCycle.id}/recovery`:
        return json(200, eveningRecovery)
      default:
        return json(404, { error: "not_found" })
    }
  }

  it.effect("a window without the sleep dates by start + 12 h; sleep.updated brings the sleep's date to all three", () =>
    Effect.gen(function*() {
      const early = normaliseWhoopCycle(Schema.decodeUnknownSync(WhoopCycle)(shiftCycle))
      expect(early.date).toBe("2026-05-28")
      const http = fakeHttp(responder)
      const batch = yield* fetchWhoopNotified(fakeInput(), { type: "sleep.updated", id: shiftSleep.id }).pipe(
        Effect.provide(http.layer)
      )
      expect(batch.dailyLoad).toEqual([{ ...expectedCycle(shiftCycle, shiftSleep), date: "2026-05-27" }])
      expect(batch.recovery).toEqual([expectedRecovery(eveningRecovery, "2026-05-27")])
      expect(batch.sleep).toEqual([expectedSleep(shiftSleep, "2026-05-27")])
    }))

  it.effect("a nap's event reads the cycle's own sleep to date the cycle; the nap takes the cycle's date", () =>
    Effect.gen(function*() {
      const http = fakeHttp(responder)
      const batch = yield* fetchWhoopNotified(fakeInput(), { type: "sleep.updated", id: nap.id }).pipe(
        Effect.provide(http.layer)
      )
      expect(http.sent.map((s) => s.url.pathname)).toEqual([
        `/developer/v2/activity/sleep/${nap.id}`,
        `/developer/v2/cycle/${shiftCycle.id}`,
        `/developer/v2/cycle/${shiftCycle.id}/sleep`,
        `/developer/v2/cycle/${shiftCycle.id}/recovery`
      ])
      expect(batch.dailyLoad.map((c) => c.date)).toEqual(["2026-05-27"])
      expect(batch.sleep.map((s) => [s.providerRecordId, s.date])).toEqual([
        [nap.id, "2026-05-27"],
        [shiftSleep.id, "2026-05-27"]
      ])
    }))

  it.effect("a malformed record read by id is quarantined, not a failure", () =>
    Effect.gen(function*() {
      const http = fakeHttp((sent) =>
        sent.url.pathname === `/developer/v2/activity/sleep/${shiftSleep.id}`
          ? json(200, { ...shiftSleep, end: 42 })
          : json(404, {})
      )
      const batch = yield* fetchWhoopNotified(fakeInput(), { type: "sleep.updated", id: shiftSleep.id }).pipe(
        Effect.provide(http.layer)
      )
      expect(batch.sleep).toEqual([])
      expect(batch.quarantined).toMatchObject([{ kind: "Sleep", providerRecordId: shiftSleep.id }])
    }))
})
