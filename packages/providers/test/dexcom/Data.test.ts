/**
 * Dexcom data: the normalisers on provider-shaped JSON (display times with and without offset,
 * null values, PascalCase enumerations, string event values), and `fetchWindow` against the
 * served Dexcom simulator: the v3 envelope, ranges of at most 30 days, exact records for phone and
 * receiver users, and each failure the engine reacts to.
 */
import { describe, expect, it } from "@effect/vitest"
import type { GlucoseCalibrationRecord, GlucoseEventRecord, GlucoseReadingRecord } from "@pulsebridge/providers"
import {
  DexcomCalibration,
  DexcomData,
  DexcomEgv,
  DexcomEvent,
  dexcomEventValue,
  dexcomPascalCase,
  dexcomRanges,
  normaliseDexcomCalibration,
  normaliseDexcomEgv,
  normaliseDexcomEvent
} from "@pulsebridge/providers"
import { dexcomRecords, providerUserIds } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { connect, NOW, withHttp } from "../fixtures/Simulated.js"

// ---- expectations written from the rules, independently of the normalisers ----

const DAY = 86_400_000
const pascal = (s: string | null): string | null => s === null ? null : s[0]!.toUpperCase() + s.slice(1)
const HALF_HOUR = 1_800_000
/** `systemTime`: an instant written with an offset or `Z`, or without one (UTC). */
const instant = (text: string): Date => new Date(/[+-]\d{2}:\d{2}$|Z$/.test(text) ? text : `${text}Z`)
/**
 * `displayTime`: at its written offset (the simulator writes offset seconds as `:00`), else the
 * wall clock at the offset `displayTime - systemTime` rounded to half an hour.
 */
const displayInstant = (e: any): Date => {
  const withOffset = /^(.*[+-]\d{2}:\d{2})(?::00)?$/.exec(e.displayTime)
  if (withOffset !== null) return new Date(withOffset[1]!)
  const wall = Date.parse(`${e.displayTime.replace(/Z$/, "")}Z`)
  const offset = Math.round((wall - instant(e.systemTime).getTime()) / HALF_HOUR) * HALF_HOUR
  return new Date(wall - offset)
}

const expectedEgv = (e: any): GlucoseReadingRecord => ({
  providerRecordId: e.recordId,
  date: e.displayTime.slice(0, 10),
  systemTime: instant(e.systemTime),
  displayTime: displayInstant(e),
  value: e.value,
  trend: pascal(e.trend),
  trendRate: e.trendRate,
  unit: e.unit,
  rateUnit: e.rateUnit,
  status: pascal(e.status),
  transmitterId: e.transmitterId,
  rawJson: expect.any(String) as unknown as string
})

const expectedEvent = (e: any): GlucoseEventRecord => ({
  providerRecordId: e.recordId,
  date: e.displayTime.slice(0, 10),
  systemTime: instant(e.systemTime),
  displayTime: displayInstant(e),
  eventStatus: pascal(e.eventStatus),
  eventType: pascal(e.eventType)!,
  eventSubType: pascal(e.eventSubType),
  value: Number(e.value),
  unit: e.unit,
  rawJson: expect.any(String) as unknown as string
})

const expectedCalibration = (c: any): GlucoseCalibrationRecord => ({
  providerRecordId: c.recordId,
  date: c.displayTime.slice(0, 10),
  systemTime: instant(c.systemTime),
  displayTime: displayInstant(c),
  value: c.value,
  unit: c.unit,
  rawJson: expect.any(String) as unknown as string
})

// ---- provider-shaped JSON ----

const egv = {
  recordId: "3f17180d-5a7e-8450-09c8-cb7e76447107",
  systemTime: "2022-02-06T09:12:35+00:00",
  displayTime: "2022-02-06T01:12:35-08:00",
  transmitterId: "d55d01d0341ed0ba2cd99b322e8c5b609254f47d10c7cd12b99b4922effeba44",
  transmitterTicks: 5796742,
  value: 122,
  status: null,
  trend: "flat",
  trendRate: -0.5,
  unit: "mg/dL",
  rateUnit: "mg/dL/min",
  displayDevice: "iOS",
  transmitterGeneration: "g7"
}

describe("Dexcom normalisers", () => {
  it("an EGV: the date as the device showed it, both times as UTC instants, the trend in PascalCase", () => {
    const record = normaliseDexcomEgv(Schema.decodeUnknownSync(DexcomEgv)(egv))
    expect(record).toEqual({
      providerRecordId: egv.recordId,
      date: "2022-02-06",
      systemTime: new Date("2022-02-06T09:12:35Z"),
      displayTime: new Date("2022-02-06T09:12:35Z"),
      value: 122,
      trend: "Flat",
      trendRate: -0.5,
      unit: "mg/dL",
      rateUnit: "mg/dL/min",
      status: null,
      transmitterId: egv.transmitterId,
      rawJson: expect.any(String)
    })
    expect(JSON.parse(record.rawJson)).toEqual(egv)
  })

  it("a reading without a value keeps null; a receiver's time without offset is its wall clock at the inferred offset", () => {
    const receiver = {
      ...egv,
      systemTime: "2022-02-06T09:12:35",
      displayTime: "2022-02-05T23:12:35",
      value: null,
      trend: null,
      trendRate: null,
      status: "low",
      displayDevice: "receiver"
    }
    const record = normaliseDexcomEgv(Schema.decodeUnknownSync(DexcomEgv)(receiver))
    // the receiver showed 23:12 on the 5th while it was 09:12 UTC on the 6th: UTC-10:00
    expect(record).toMatchObject({
      date: "2022-02-05",
      systemTime: new Date("2022-02-06T09:12:35Z"),
      displayTime: new Date("2022-02-06T09:12:35Z"),
      value: null,
      trend: null,
      trendRate: null,
      status: "Low"
    })
  })

  it("maps camelCase enumerations to PascalCase and event values to numbers", () => {
    expect(["fortyFiveUp", "doubleDown", "notComputable", "rateOutOfRange", "ok"].map(dexcomPascalCase)).toEqual([
      "FortyFiveUp",
      "DoubleDown",
      "NotComputable",
      "RateOutOfRange",
      "Ok"
    ])
    expect(dexcomPascalCase(null)).toBeNull()
    expect(["45", " 2.5 ", 12, "", "lots", null, undefined].map(dexcomEventValue)).toEqual([
      45,
      2.5,
      12,
      null,
      null,
      null,
      null
    ])
    const event = {
      recordId: "8f6e1d7a-2d84-4b53-a0ab-000000000001",
      systemTime: "2022-02-06T18:05:00+00:00",
      displayTime: "2022-02-06T19:05:00+01:00",
      eventStatus: "created",
      eventType: "exercise",
      eventSubType: "medium",
      value: "30",
      unit: "minutes",
      transmitterGeneration: "g6",
      displayDevice: "android"
    }
    expect(normaliseDexcomEvent(Schema.decodeUnknownSync(DexcomEvent)(event))).toEqual({
      ...expectedEvent(event),
      eventType: "Exercise",
      eventSubType: "Medium",
      eventStatus: "Created",
      value: 30
    })
    const numeric = normaliseDexcomEvent(
      Schema.decodeUnknownSync(DexcomEvent)({ ...event, eventType: "carbs", eventSubType: null, value: 42, unit: null })
    )
    expect(numeric).toMatchObject({ eventType: "Carbs", eventSubType: null, value: 42, unit: null })
    const calibration = {
      recordId: "c1",
      systemTime: "2022-02-06T07:00:00+00:00",
      displayTime: "2022-02-06T16:00:00+09:00",
      unit: "mg/dL",
      value: 104
    }
    expect(normaliseDexcomCalibration(Schema.decodeUnknownSync(DexcomCalibration)(calibration))).toEqual(
      expectedCalibration(calibration)
    )
  })

  it("refuses records without their key fields", () => {
    expect(() => Schema.decodeUnknownSync(DexcomEgv)({ ...egv, systemTime: "soon" })).toThrow()
    expect(() => Schema.decodeUnknownSync(DexcomEgv)({ ...egv, recordId: undefined })).toThrow()
    expect(() => Schema.decodeUnknownSync(DexcomEgv)({ ...egv, value: "122" })).toThrow()
  })
})

describe("dexcomRanges", () => {
  it("pads a day each side, caps at now, and cuts at 30 days", () => {
    const now = new Date(NOW)
    expect(dexcomRanges({ from: "2025-05-01", to: "2025-05-28" }, now)).toEqual([
      { start: Date.parse("2025-04-30T00:00:00Z"), end: Date.parse("2025-05-30T00:00:00Z") }
    ])
    expect(dexcomRanges({ from: "2025-06-10", to: "2025-06-20" }, now)).toEqual([
      { start: Date.parse("2025-06-09T00:00:00Z"), end: Date.parse(NOW) }
    ])
    const long = dexcomRanges({ from: "2025-03-01", to: "2025-04-29" }, now)
    expect(long.map((r) => (r.end - r.start) / DAY)).toEqual([30, 30, 2])
    expect(dexcomRanges({ from: "2025-06-17", to: "2025-06-18" }, now)).toEqual([])
  })
})

// ---- against the simulator ----

const kinds = [["egvs", "egv"], ["events", "event"], ["calibrations", "calibration"]] as const

describe("DexcomData.fetchWindow against the simulator", () => {
  it.scopedLive("reads a 28-day window in one request per endpoint, exactly as the simulator serves it", () =>
    withHttp(Effect.gen(function*() {
      const { input, seed, sim } = yield* connect("Dexcom", { user: "data-user" })
      const userId = providerUserIds.dexcom("data-user")
      const batch = yield* DexcomData.fetchWindow(input(), { from: "2025-05-18", to: "2025-06-14" })
      const range = { start: Date.parse("2025-05-17T00:00:00Z"), end: Date.parse(NOW) }
      const served = (kind: "egv" | "event" | "calibration") =>
        JSON.parse(JSON.stringify(dexcomRecords(seed, userId, kind, range, Date.parse(NOW)))) as Array<any>

      const egvs = served("egv")
      // a phone: display times carry the user's offset
      expect(egvs[0].displayTime).toMatch(/-05:00$/)
      expect(batch.glucoseReadings).toHaveLength(egvs.length)
      expect(egvs.length).toBeGreaterThan(8000)
      expect(batch.glucoseReadings).toEqual(egvs.map(expectedEgv))
      expect(batch.glucoseReadings.some((r) => r.value === null)).toBe(true)
      expect(batch.glucoseReadings.filter((r) => r.value === null).every((r) => r.trend === null)).toBe(true)
      expect(JSON.parse(batch.glucoseReadings[0]!.rawJson)).toEqual(egvs[0])
      expect(batch.glucoseEvents).toEqual(served("event").map(expectedEvent))
      expect(batch.glucoseEvents.length).toBeGreaterThan(50)
      expect(batch.glucoseCalibrations).toEqual(served("calibration").map(expectedCalibration))

      for (const [path] of kinds) {
        const calls = sim.control.calls({ path: `/v3/users/self/${path}` })
        expect(calls.map((c) => [c.status, c.params.startDate, c.params.endDate])).toEqual([
          [200, "2025-05-17T00:00:00", "2025-06-15T12:00:00"]
        ])
      }
    })))

  it.scopedLive("a receiver's display time has no offset: its date as written, its instant at the inferred offset", () =>
    withHttp(Effect.gen(function*() {
      // with this seed the user reads a receiver in UTC+8
      const { input, seed } = yield* connect("Dexcom", { user: "dexcom-user-21" })
      const userId = providerUserIds.dexcom("dexcom-user-21")
      const batch = yield* DexcomData.fetchWindow(input(), { from: "2025-06-10", to: "2025-06-12" })
      const range = { start: Date.parse("2025-06-09T00:00:00Z"), end: Date.parse("2025-06-14T00:00:00Z") }
      const egvs = JSON.parse(JSON.stringify(dexcomRecords(seed, userId, "egv", range, Date.parse(NOW)))) as Array<any>
      expect(egvs[0].displayDevice).toBe("receiver")
      expect(egvs[0].displayTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
      expect(batch.glucoseReadings).toEqual(egvs.map(expectedEgv))
      // in the evening the device's day is already the next UTC day
      expect(batch.glucoseReadings.some((r) => r.date !== r.systemTime.toISOString().slice(0, 10))).toBe(true)
      // the receiver's clock agrees with its system time: the same instant, not eight hours off
      for (const r of batch.glucoseReadings) expect(r.displayTime).toEqual(r.systemTime)
      expect(batch.quarantined).toEqual([])
    })))

  it.scopedLive("a window longer than 30 days is read in ranges the simulator accepts", () =>
    withHttp(Effect.gen(function*() {
      const { input, seed, sim } = yield* connect("Dexcom", { user: "data-user" })
      const userId = providerUserIds.dexcom("data-user")
      const window = { from: "2025-03-01", to: "2025-04-29" }
      const batch = yield* DexcomData.fetchWindow(input(), window)
      const ranges = dexcomRanges(window, new Date(NOW))
      expect(ranges).toHaveLength(3)
      const calls = sim.control.calls({ path: "/v3/users/self/egvs" })
      expect(calls.map((c) => [c.status, c.params.startDate, c.params.endDate])).toEqual(
        ranges.map((
          r
        ) => [200, new Date(r.start).toISOString().slice(0, 19), new Date(r.end).toISOString().slice(0, 19)])
      )
      const expected = ranges.flatMap((r) =>
        JSON.parse(JSON.stringify(dexcomRecords(seed, userId, "egv", r, Date.parse(NOW)))) as Array<any>
      )
      expect(batch.glucoseReadings).toEqual(expected.map(expectedEgv))
      expect(new Set(batch.glucoseReadings.map((r) => r.providerRecordId)).size).toBe(expected.length)
    })))

  it.scopedLive("a 429 carries Retry-After; a 500 is status 500; a cut reply is malformed; an expired token is 401", () =>
    withHttp(Effect.gen(function*() {
      const { input, sim, tokens } = yield* connect("Dexcom")
      const window = { from: "2025-06-10", to: "2025-06-12" }
      sim.control.injectFault({ path: "/v3/users/self/events", kind: "rateLimit", retryAfterSeconds: 600 })
      const limited = yield* Effect.flip(DexcomData.fetchWindow(input(), window))
      expect(limited).toMatchObject({ _tag: "ProviderError", provider: "Dexcom", status: 429, retryAfterSeconds: 600 })

      sim.control.injectFault({ path: "/v3/users/self/calibrations", kind: "serverError" })
      expect(yield* Effect.flip(DexcomData.fetchWindow(input(), window))).toMatchObject({ status: 500 })

      sim.control.injectFault({ path: "/v3/users/self/egvs", kind: "malformedJson" })
      const malformed = yield* Effect.flip(DexcomData.fetchWindow(input(), window))
      expect(malformed.message).toContain("malformed response")

      sim.control.expireAccessTokens()
      const expired = yield* Effect.flip(DexcomData.fetchWindow(input(), window))
      expect(expired).toMatchObject({ status: 401, code: "invalid_token" })
      expect(expired.message).not.toContain(Redacted.value(tokens.accessToken))
    })))
})
