/**
 * Withings' normalisers and status codes on payloads shaped as Withings documents them. Sources: the API reference
 * (developer.withings.com/api-reference: `measuregrp_object`, `measure_object` "value * 10^unit = real value",
 * `sleep_summary_object`, `activity_object`, `workout_object`, and the "Response Status" table) and the getmeas
 * answer of a live account quoted at git.skyforest.net/jlobbes/ba-thesis (app/withings/README.md), whose token
 * expiry answer is HTTP 200 with `{"status": 401, "body": {}, "error": "... invalid_token ..."}`.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  normaliseWithingsActivities,
  normaliseWithingsMeasureGroups,
  normaliseWithingsSleeps,
  normaliseWithingsWorkouts,
  withingsMeasureValue,
  withingsStatusError,
  withingsStatusFamily
} from "@pulsebridge/providers/withings/index"

const ctx = { provider: "Withings", operation: "measure read", readError: () => ({ _tag: "None" }) as any, secrets: [] }

describe("Withings measures", () => {
  it("decodes value * 10^unit exactly, and keeps only real measures with body composition", () => {
    expect(withingsMeasureValue({ value: 65750, unit: -3 })).toBe(65.75)
    expect(withingsMeasureValue({ value: 187, unit: -2 })).toBe(1.87)
    expect(withingsMeasureValue({ value: 12, unit: 1 })).toBe(120)
    const { quarantined, records } = normaliseWithingsMeasureGroups([
      // the thesis README's scale group: weight 58.788 kg, fat mass 5.80 kg, muscle 50.32 kg
      {
        grpid: 676178721,
        attrib: 0,
        date: 1482405290,
        category: 1,
        measures: [
          { type: 1, unit: -3, value: 58788 },
          { type: 8, unit: -2, value: 580 },
          { type: 76, unit: -2, value: 5032 },
          { type: 6, unit: -3, value: 9866 },
          { type: 5, unit: -3, value: 52988 },
          { type: 11, unit: 0, value: 0 }
        ]
      },
      // a blood pressure reading (BPM Core): no body composition, left out for now
      {
        grpid: 4716596696,
        attrib: 0,
        date: 1690491576,
        category: 1,
        measures: [{ value: 89, type: 9, unit: 0 }, { value: 109, type: 10, unit: 0 }, { value: 88, type: 11, unit: 0 }]
      },
      // an objective (category 2) is never a measurement
      { grpid: 12, date: 1594245600, category: 2, measures: [{ value: 70000, type: 1, unit: -3 }] },
      // malformed: the others are still read
      { grpid: 13, date: "yesterday", category: 1, measures: [] }
    ], "Europe/Berlin")
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({
      providerRecordId: "676178721",
      // 1482405290 is 2016-12-22T11:14:50Z, 12:14 in Berlin
      date: "2016-12-22",
      measuredAt: new Date(1482405290 * 1000),
      weightKilograms: 58.788,
      bodyFatPercent: 9.866,
      leanMassKilograms: 52.988,
      heightMeters: null,
      bmi: null
    })
    // the pulse of 0 and the muscle mass stay in the raw JSON
    expect(JSON.parse(records[0]!.rawJson).measures).toContainEqual({ type: 11, unit: 0, value: 0 })
    expect(quarantined).toEqual([expect.objectContaining({ kind: "BodyMeasurement", providerRecordId: "13" })])
  })

  it("dates a group by the answer's time zone", () => {
    // 2025-06-14T23:30:00Z is already the 15th in Tokyo and still the 14th in Phoenix
    const group = { grpid: 1, date: 1749943800, category: 1, measures: [{ value: 80000, type: 1, unit: -3 }] }
    expect(normaliseWithingsMeasureGroups([group], "Asia/Tokyo").records[0]!.date).toBe("2025-06-15")
    expect(normaliseWithingsMeasureGroups([group], "America/Phoenix").records[0]!.date).toBe("2025-06-14")
  })
})

describe("Withings sleep summaries", () => {
  const night = {
    id: 12345,
    timezone: "Europe/Paris",
    model: 32,
    model_id: 63,
    // 22:40 on 2020-07-08 to 06:30 on the 9th, Paris summer time
    startdate: 1594240800,
    enddate: 1594269000,
    date: "2020-07-09",
    data: {
      total_timeinbed: 28200,
      total_sleep_time: 25200,
      lightsleepduration: 14400,
      deepsleepduration: 5400,
      remsleepduration: 5400,
      wakeupduration: 3000,
      wakeupcount: 2,
      sleep_efficiency: 0.89,
      sleep_latency: 900,
      hr_average: 58,
      hr_min: 50,
      rr_average: 14,
      sleep_score: 81
    }
  }

  it("converts seconds to minutes, efficiency to a percentage, and dates the night by its morning", () => {
    const [record] = normaliseWithingsSleeps([night]).records
    expect(record).toMatchObject({
      providerRecordId: "12345",
      date: "2020-07-09",
      utcOffsetMinutes: 120,
      inBedMinutes: 470,
      asleepMinutes: 420,
      lightMinutes: 240,
      deepMinutes: 90,
      remMinutes: 90,
      awakeMinutes: 50,
      efficiencyPercent: 89,
      latencyMinutes: 15,
      averageHeartRate: 58,
      lowestHeartRate: 50,
      respiratoryRate: 14,
      disturbanceCount: 2,
      nap: false
    })
    // the sleep score has no canonical scale yet: it stays in the raw JSON
    expect(record!.providerScore).toBeNull()
    expect(JSON.parse(record!.rawJson).data.sleep_score).toBe(81)
  })

  it("keeps a true zero and quarantines a night with an unknown time zone", () => {
    const zero = { ...night, id: 2, data: { ...night.data, wakeupcount: 0, wakeupduration: 0 } }
    const elsewhere = { ...night, id: 3, timezone: "Mars/Olympus" }
    const { quarantined, records } = normaliseWithingsSleeps([zero, elsewhere])
    expect(records.map((r) => [r.providerRecordId, r.awakeMinutes, r.disturbanceCount])).toEqual([["2", 0, 0]])
    expect(quarantined).toEqual([expect.objectContaining({ kind: "Sleep", providerRecordId: "3" })])
  })
})

describe("Withings daily activity and workouts", () => {
  it("maps the activity object (the reference's example values) onto a day", () => {
    const day = {
      date: "2020-06-24",
      timezone: "Europe/Paris",
      brand: 18,
      is_tracker: false,
      steps: 6200,
      distance: 3000,
      elevation: 100,
      soft: 800,
      moderate: 1000,
      intense: 700,
      active: 2300,
      calories: 1200,
      totalcalories: 3500,
      hr_average: 80,
      hr_min: 70,
      hr_max: 80,
      hr_zone_0: 100,
      hr_zone_1: 200,
      hr_zone_2: 300,
      hr_zone_3: 400
    }
    const still = { date: "2020-06-25", steps: 0, distance: 0, calories: 0, totalcalories: 1650 }
    const { records } = normaliseWithingsActivities([day, still])
    expect(records[0]).toMatchObject({
      providerRecordId: "2020-06-24",
      date: "2020-06-24",
      steps: 6200,
      caloriesOut: 3500,
      activeCalories: 1200,
      distanceMeters: 3000,
      lightActiveMinutes: 800 / 60,
      moderateActiveMinutes: 1000 / 60,
      vigorousActiveMinutes: 700 / 60,
      floorsClimbed: 100,
      restingHeartRate: null
    })
    expect(records[1]).toMatchObject({ steps: 0, activeCalories: 0, caloriesOut: 1650 })
  })

  it("names the workout category, dates it by its local start and keeps zones in minutes", () => {
    const { records } = normaliseWithingsWorkouts([
      {
        id: 987,
        category: 2,
        timezone: "America/New_York",
        // 2020-07-09T02:30:00Z: the evening of the 8th in New York
        startdate: 1594261800,
        enddate: 1594264200,
        date: "2020-07-08",
        data: { calories: 310, distance: 6400, steps: 5900, hr_average: 151, hr_max: 178, hr_zone_2: 1200 }
      },
      { id: 988, category: 16, timezone: "UTC", startdate: 1594300000, enddate: 1594299000 }
    ])
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({
      providerRecordId: "987",
      date: "2020-07-08",
      activityType: "running",
      sportName: "Run",
      durationMinutes: 40,
      energyKilocalories: 310,
      distanceMeters: 6400,
      steps: 5900,
      averageHeartRate: 151,
      maxHeartRate: 178,
      utcOffsetMinutes: -240
    })
    expect(JSON.parse(records[0]!.zoneDurationsJson)).toEqual({ zone2: 20 })
  })
})

describe("Withings status codes", () => {
  it("reads every family of the Response Status table", () => {
    expect([0, 100, 200, 201, 214, 401, 503, 522, 524, 601, 2554, 2555, 5000, 9999].map(withingsStatusFamily)).toEqual([
      "success",
      "authenticationFailed",
      "authenticationFailed",
      "invalidParams",
      "unauthorized",
      "authenticationFailed",
      "invalidParams",
      "timeout",
      "badState",
      "tooManyRequests",
      "notImplemented",
      "unauthorized",
      "errorOccurred",
      "errorOccurred"
    ])
  })

  it("maps a status inside an HTTP 200 onto what the server acts on", () => {
    const data = { _tag: "data", scope: "user.metrics" } as const
    const token = { _tag: "token" } as const
    const of = (status: number, kind: typeof data | typeof token, error?: string) =>
      withingsStatusError(ctx, { status, body: {}, error }, kind)
    expect(of(401, data, "XRequestID: Not provided invalid_token: The access token provided is invalid"))
      .toMatchObject({ status: 401, code: "invalid_token" })
    expect(of(401, token)).toMatchObject({ code: "invalid_grant" })
    expect(of(503, token, "Invalid Params: invalid refresh_token")).toMatchObject({ code: "invalid_grant" })
    expect(of(503, token, "Invalid Params: invalid code")).toMatchObject({ code: "invalid_grant" })
    expect(of(503, data, "Invalid Params: startdate")).toMatchObject({ status: 400, code: "invalid_params" })
    expect(of(100, token)).toMatchObject({ status: 401, code: "invalid_client" })
    expect(of(601, data)).toMatchObject({ status: 429, retryAfterSeconds: 60 })
    expect(of(214, data)).toMatchObject({ status: 403, code: "insufficient_scope", missingScopes: ["user.metrics"] })
    expect(of(522, data)).toMatchObject({ status: 503 })
    expect(of(2554, data)).toMatchObject({ status: 404 })
    expect(of(5000, data)).toMatchObject({ status: 503, code: "error_occurred" })
  })
})
