/**
 * Dexcom API v3 as it really answers, on payloads shaped like Dexcom's documentation (the v3
 * `egvs`, `events` and `calibrations` examples, with the fields newer records carry): time stamps
 * with offsets in seconds, without seconds, ending in `Z` or without any offset (receivers), the
 * local offset inferred from `displayTime - systemTime`, the sentinels 39 and 401, event values
 * written as strings, and a page with one odd record that stores all the others.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  DexcomData,
  dexcomRecordTimes,
  DexcomTimeString,
  inferredOffsetMinutes,
  parseDexcomTime,
  parseDexcomTimeByPattern
} from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import fc from "fast-check"
import { credentials, endpoints, fakeHttp, json, oauth2Tokens } from "../fixtures/FakeHttp.js"

const HOUR = 3_600_000

describe("Dexcom time stamps", () => {
  it("reads offsets with seconds, times without seconds, Z, and no zone at all", () => {
    const wall = Date.UTC(2022, 1, 6, 1, 12, 35)
    expect(parseDexcomTime("2022-02-06T01:12:35-08:00:00")).toEqual({ wallMs: wall, offsetMinutes: -480, zulu: false })
    expect(parseDexcomTime("2022-02-06T01:12:35-08:00")).toEqual({ wallMs: wall, offsetMinutes: -480, zulu: false })
    expect(parseDexcomTime("2022-02-06T01:12:35+0530")).toEqual({ wallMs: wall, offsetMinutes: 330, zulu: false })
    expect(parseDexcomTime("2022-02-06T01:12:35")).toEqual({ wallMs: wall, offsetMinutes: null, zulu: false })
    expect(parseDexcomTime("2022-02-06T01:12:35.250Z")).toEqual({ wallMs: wall + 250, offsetMinutes: null, zulu: true })
    expect(parseDexcomTime("2021-02-03T14:15Z")).toEqual({
      wallMs: Date.UTC(2021, 1, 3, 14, 15),
      offsetMinutes: null,
      zulu: true
    })
    expect(parseDexcomTime("2021-02-03T14:15-05:00")?.offsetMinutes).toBe(-300)
    // an offset a few seconds short of the hour is that hour
    expect(parseDexcomTime("2022-02-06T01:12:35-06:59:58")?.offsetMinutes).toBe(-420)
    for (
      const bad of ["soon", "2022-02-30T10:00:00", "2022-02-06T24:00:00", "2022-02-06", "2022-02-06T01:12:35+25:00"]
    ) {
      expect(parseDexcomTime(bad), bad).toBeUndefined()
    }
    expect(() => Schema.decodeUnknownSync(DexcomTimeString)("2022-02-06T25:12:35")).toThrow()
  })

  it("reads the common forms by position exactly as the pattern reads every form, the date included", () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, "0"))
    const part = fc.oneof(two(99), fc.constantFrom("0", "1", "9", "", "x", "00", "1a"))
    const stamp = fc.tuple(
      fc.oneof(
        fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, "0")),
        fc.constantFrom("202", "2o22")
      ),
      fc.constantFrom("-", "/"),
      fc.oneof(two(13), part),
      fc.constantFrom("-", "-", "_"),
      fc.oneof(two(32), part),
      fc.constantFrom("T", " ", "t", "x"),
      fc.oneof(two(25), part),
      fc.constantFrom(":", ":", "."),
      fc.oneof(two(61), part),
      fc.oneof(two(61).map((s) => `:${s}`), fc.constantFrom("", ":5", ".", "-")),
      fc.constantFrom("", ".250", ".1234567891", "."),
      fc.oneof(
        fc.constantFrom("", "Z", "z", "+", "-", "+5", "-0530", "Zx", " "),
        fc.tuple(fc.constantFrom("+", "-", "~"), two(15), fc.constantFrom(":", "", "."), two(60)).map((p) =>
          p.join("")
        ),
        fc.tuple(fc.constantFrom("+", "-"), two(15), fc.constantFrom(":"), two(59), fc.constantFrom(":", ""), two(60))
          .map((p) => p.join(""))
      ),
      fc.constantFrom("", "", " ", "\n")
    ).map((p) => p.join(""))
    const text = fc.oneof(stamp, stamp.map((s) => ` ${s}`), fc.string({ maxLength: 30 }))
    fc.assert(
      fc.property(text, fc.integer({ min: -2 * 86_400_000, max: 2 * 86_400_000 }), (t, drift) => {
        const parsed = parseDexcomTime(t)
        expect(parsed).toEqual(parseDexcomTimeByPattern(t))
        if (parsed === undefined) return
        const system = new Date(parsed.wallMs + drift).toISOString().slice(0, 19)
        expect(dexcomRecordTimes(system, t).date).toBe(new Date(parsed.wallMs).toISOString().slice(0, 10))
      }),
      { numRuns: 20_000 }
    )
    // each form read by position, as the pattern reads it
    for (
      const t of [
        "2022-02-06T01:12:35",
        "2022-02-06 01:12:35",
        "2022-02-06T01:12:35Z",
        "2022-02-06T01:12:35z",
        "2022-02-06T01:12:35+05:30",
        "2022-02-06T01:12:35-08:00:00",
        "2022-02-06T01:12:35-06:59:30",
        "2024-02-29T23:59:59+14:00",
        "2023-02-29T10:00:00",
        "2022-04-31T10:00:00Z",
        "2022-02-06T01:12:35+15:00",
        "2022-02-06T01:12:60"
      ]
    ) expect(parseDexcomTime(t), t).toEqual(parseDexcomTimeByPattern(t))
  })

  it("infers the offset from displayTime - systemTime, rounded to 30 minutes, within -12:00..+14:00", () => {
    const system = Date.UTC(2022, 1, 6, 9, 12, 35)
    expect(inferredOffsetMinutes(system - 8 * HOUR, system)).toBe(-480)
    expect(inferredOffsetMinutes(system + 5.5 * HOUR, system)).toBe(330)
    // a receiver clock seven minutes fast is still UTC+09:00
    expect(inferredOffsetMinutes(system + 9 * HOUR + 7 * 60_000, system)).toBe(540)
    // exactly a quarter of an hour rounds away from zero
    expect(inferredOffsetMinutes(system + 15 * 60_000, system)).toBe(30)
    expect(inferredOffsetMinutes(system - 15 * 60_000, system)).toBe(-30)
    expect(inferredOffsetMinutes(system + 4 * 60_000, system)).toBe(0)
    // a receiver whose date is set two days ahead: the offset, not the days
    expect(inferredOffsetMinutes(system + 48 * HOUR + 3 * HOUR, system)).toBe(180)
    expect(inferredOffsetMinutes(system - 24 * HOUR - 5 * HOUR, system)).toBe(-300)
  })

  it("a record's date is its wall-clock date; its displayTime instant is the wall clock at the record's offset", () => {
    // receiver: no offset anywhere, 23:12 on the 5th while it was 09:12 UTC on the 6th
    expect(dexcomRecordTimes("2022-02-06T09:12:35", "2022-02-05T23:12:35")).toEqual({
      systemTime: new Date("2022-02-06T09:12:35Z"),
      displayTime: new Date("2022-02-06T09:12:35Z"),
      offsetMinutes: -600,
      offsetInferred: true,
      date: "2022-02-05"
    })
    // an app: systemTime in Z, displayTime with an offset in seconds
    expect(dexcomRecordTimes("2022-02-06T09:12:35Z", "2022-02-06T01:12:35-08:00:00")).toMatchObject({
      displayTime: new Date("2022-02-06T09:12:35Z"),
      offsetMinutes: -480,
      offsetInferred: false,
      date: "2022-02-06"
    })
    // a displayTime ending in Z that is the UTC instant: UTC, the same either way
    expect(dexcomRecordTimes("2022-02-06T09:12:35Z", "2022-02-06T09:12:35Z")).toMatchObject({
      displayTime: new Date("2022-02-06T09:12:35Z"),
      offsetMinutes: 0,
      date: "2022-02-06"
    })
    // a wall clock with a stray Z: not read as eight hours later
    expect(dexcomRecordTimes("2022-02-06T09:12:35Z", "2022-02-06T01:12:35Z")).toMatchObject({
      displayTime: new Date("2022-02-06T09:12:35Z"),
      offsetMinutes: -480,
      date: "2022-02-06"
    })
    expect(() => dexcomRecordTimes("2022-02-06T09:12:35", "yesterday")).toThrow(/displayTime/)
  })
})

// ---- a page as Dexcom serves it ----

/** Dexcom's v3 EGV example, with the fields G7 records carry now. */
const docEgv = {
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
  transmitterGeneration: "g7",
  transmitterGenerationVariant: "g715day",
  displayApp: "G7"
}

const egvPage = {
  recordType: "egv",
  recordVersion: "3.0",
  userId: "5b329ebcfbf2f0ba7e49d4c5eb57775468f5ee657ac16fcde07e1fd08197b4c7",
  records: [
    docEgv,
    // offset with seconds
    {
      ...docEgv,
      recordId: "5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e01",
      systemTime: "2022-02-06T09:17:35Z",
      displayTime: "2022-02-06T01:17:35-08:00:00",
      value: 39,
      status: "low",
      trend: "notComputable",
      trendRate: null
    },
    // the one odd record: an impossible hour
    {
      ...docEgv,
      recordId: "5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e02",
      systemTime: "2022-02-06T09:22:35Z",
      displayTime: "2022-02-06T25:22:35-08:00"
    },
    // a receiver: no offset on either time; its clock reads UTC-08:00
    {
      ...docEgv,
      recordId: "5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e03",
      systemTime: "2022-02-06T09:27:35",
      displayTime: "2022-02-06T01:27:35",
      value: 401,
      status: "high",
      displayDevice: "receiver",
      transmitterGeneration: "g6",
      transmitterGenerationVariant: null,
      displayApp: "receiver"
    },
    // an app record in Z, without seconds
    {
      ...docEgv,
      recordId: "5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e04",
      systemTime: "2022-02-06T09:32Z",
      displayTime: "2022-02-06T01:32-08:00",
      displayApp: "D1G7"
    },
    // no recordId: quarantined without an id
    { ...docEgv, recordId: undefined, systemTime: "2022-02-06T09:37:35Z", displayTime: "2022-02-06T01:37:35-08:00" }
  ]
}

/** Dexcom's v3 events example, with the recorded times and the string values live records carry. */
const eventPage = {
  recordType: "event",
  recordVersion: "3.0",
  userId: egvPage.userId,
  records: [
    {
      recordId: "904a7edc-cd1a-c412-da38-cac0d7e3be27",
      systemTime: "2022-02-06T17:30:00Z",
      displayTime: "2022-02-06T09:30:00-08:00",
      recordedSystemTime: "2022-02-06T17:41:12Z",
      recordedDisplayTime: "2022-02-06T09:41:12-08:00",
      eventType: "insulin",
      eventSubType: "fastActing",
      value: "4.5",
      unit: "units",
      eventStatus: "created",
      transmitterId: "d55d01d0341ed0ba2cd99b322e8c5b609254f47d10c7cd12b99b4922effeba44",
      transmitterGeneration: "g7",
      displayDevice: "iOS"
    },
    {
      recordId: "e837cf43-7827-e026-613b-7f255cfaaaad",
      systemTime: "2022-02-06T19:00:00",
      displayTime: "2022-02-06T11:00:00",
      eventType: "notes",
      eventSubType: null,
      value: "felt shaky",
      unit: null,
      eventStatus: "created",
      transmitterId: null,
      transmitterGeneration: "g6",
      displayDevice: "receiver"
    }
  ]
}

const calibrationPage = {
  recordType: "calibration",
  recordVersion: "3.0",
  userId: egvPage.userId,
  records: [{
    recordId: "8c2b4627-3a21-6f0b-43ad-fc3e58a42360",
    systemTime: "2022-02-06T15:00:00",
    displayTime: "2022-02-06T07:00:00",
    unit: "mg/dL",
    value: 123,
    displayDevice: "receiver",
    transmitterId: "8GZ7K2",
    transmitterTicks: 23106960,
    transmitterGeneration: "g6"
  }]
}

const input = {
  credentials,
  endpoints,
  tokens: oauth2Tokens(),
  providerUserId: egvPage.userId,
  now: new Date("2022-02-08T00:00:00Z")
}

const dexcomApi = fakeHttp((sent) => {
  const path = sent.url.pathname
  if (path.endsWith("/egvs")) return json(200, egvPage)
  if (path.endsWith("/events")) return json(200, eventPage)
  if (path.endsWith("/calibrations")) return json(200, calibrationPage)
  return json(404, { error: "not_found" })
})

describe("DexcomData.fetchWindow on a page with an odd record", () => {
  it.effect("stores every readable record and quarantines the odd ones with their raw JSON and reason", () =>
    Effect.gen(function*() {
      const batch = yield* DexcomData.fetchWindow(input, { from: "2022-02-06", to: "2022-02-06" })
      const byId = new Map(batch.glucoseReadings.map((r) => [r.providerRecordId, r]))
      expect([...byId.keys()].sort()).toEqual([
        "3f17180d-5a7e-8450-09c8-cb7e76447107",
        "5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e01",
        "5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e03",
        "5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e04"
      ])
      expect(batch.quarantined).toHaveLength(2)
      const [odd, anonymous] = batch.quarantined
      expect(odd).toMatchObject({ kind: "GlucoseReading", providerRecordId: "5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e02" })
      expect(odd!.reason).toContain("displayTime")
      expect(JSON.parse(odd!.rawJson)).toEqual(egvPage.records[2])
      expect(anonymous).toMatchObject({ kind: "GlucoseReading", providerRecordId: null })
      expect(anonymous!.reason).toContain("recordId")

      // the documentation's example
      expect(byId.get(docEgv.recordId)).toEqual({
        providerRecordId: docEgv.recordId,
        date: "2022-02-06",
        systemTime: new Date("2022-02-06T09:12:35Z"),
        displayTime: new Date("2022-02-06T09:12:35Z"),
        value: 122,
        trend: "Flat",
        trendRate: -0.5,
        unit: "mg/dL",
        rateUnit: "mg/dL/min",
        status: null,
        transmitterId: docEgv.transmitterId,
        rawJson: JSON.stringify(docEgv)
      })
      // the new fields are kept in the raw JSON
      expect(JSON.parse(byId.get(docEgv.recordId)!.rawJson)).toMatchObject({
        transmitterGenerationVariant: "g715day",
        displayApp: "G7"
      })
      // `-08:00:00`, and the low sentinel served as reported with its status
      expect(byId.get("5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e01")).toMatchObject({
        date: "2022-02-06",
        displayTime: new Date("2022-02-06T09:17:35Z"),
        value: 39,
        status: "Low",
        trend: "NotComputable"
      })
      // the receiver: its wall-clock date, the right instant, and the high sentinel
      expect(byId.get("5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e03")).toMatchObject({
        date: "2022-02-06",
        systemTime: new Date("2022-02-06T09:27:35Z"),
        displayTime: new Date("2022-02-06T09:27:35Z"),
        value: 401,
        status: "High"
      })
      // Z without seconds
      expect(byId.get("5e1d8f42-0c3a-4b8e-9d6f-1a2b3c4d5e04")).toMatchObject({
        systemTime: new Date("2022-02-06T09:32:00Z"),
        displayTime: new Date("2022-02-06T09:32:00Z")
      })

      // events: a numeric string is a number; any other text is null and stays in the raw JSON
      const [insulin, note] = batch.glucoseEvents
      expect(insulin).toMatchObject({
        eventType: "Insulin",
        eventSubType: "FastActing",
        value: 4.5,
        unit: "units",
        date: "2022-02-06",
        systemTime: new Date("2022-02-06T17:30:00Z"),
        displayTime: new Date("2022-02-06T17:30:00Z")
      })
      expect(JSON.parse(insulin!.rawJson)).toMatchObject({ recordedSystemTime: "2022-02-06T17:41:12Z" })
      expect(note).toMatchObject({ eventType: "Notes", value: null, unit: null, date: "2022-02-06" })
      expect(JSON.parse(note!.rawJson).value).toBe("felt shaky")
      // a receiver's calibration at 07:00 on a clock eight hours behind UTC
      expect(batch.glucoseCalibrations).toEqual([expect.objectContaining({
        date: "2022-02-06",
        systemTime: new Date("2022-02-06T15:00:00Z"),
        displayTime: new Date("2022-02-06T15:00:00Z"),
        value: 123
      })])
    }).pipe(Effect.provide(dexcomApi.layer)))

  it.effect("a page whose envelope is not Dexcom's still fails the read (retried), not quarantined", () =>
    Effect.gen(function*() {
      const broken = fakeHttp(() => json(200, { recordType: "egv", records: "none" }))
      const error = yield* DexcomData.fetchWindow(input, { from: "2022-02-06", to: "2022-02-06" }).pipe(
        Effect.provide(broken.layer),
        Effect.flip
      )
      expect(error).toMatchObject({ _tag: "ProviderError", provider: "Dexcom" })
    }))
})
