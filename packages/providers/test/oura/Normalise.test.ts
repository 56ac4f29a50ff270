/**
 * Oura's normalisers on documents shaped as Oura documents them: the `DailyActivityModel`, `SleepModel`,
 * `DailySleepModel`, `DailyReadinessModel`, `DailySpO2Model`, `WorkoutModel` and `PersonalInfoResponse` of the
 * API v2 reference (https://cloud.ouraring.com/v2/docs, the OpenAPI document
 * https://cloud.ouraring.com/v2/static/json/openapi-1.35.json), with values like those of a published sample
 * reply (https://gist.github.com/CraigglesO/8b22ed92e458a4b9035f35e90b5ae0dd).
 */
import { describe, expect, it } from "@effect/vitest"
import { dayRecoveryId } from "@pulsebridge/providers"
import {
  assembleOuraRecoveries,
  assembleOuraWindow,
  isoOffsetMinutes,
  normaliseOuraDailyActivity,
  normaliseOuraPersonalInfo,
  normaliseOuraSleep,
  normaliseOuraWorkout,
  OuraDailyActivity,
  OuraDailyReadiness,
  OuraDailySpo2,
  OuraSleep,
  OuraWorkout
} from "@pulsebridge/providers/oura/index"
import * as Schema from "effect/Schema"

const decode = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknownSync(schema)

const activity = {
  id: "8f9a5221-639e-4a85-81cb-4065ef23f979",
  class_5_min: "0000001111112222",
  score: 82,
  active_calories: 612,
  average_met_minutes: 1.59,
  contributors: { meet_daily_targets: 60, move_every_hour: 100 },
  equivalent_walking_distance: 9870,
  high_activity_met_minutes: 40,
  high_activity_time: 1200,
  inactivity_alerts: 1,
  low_activity_met_minutes: 200,
  low_activity_time: 15_600,
  medium_activity_met_minutes: 150,
  medium_activity_time: 3000,
  met: { interval: 60, items: [0.9, 1.1], timestamp: "2022-08-10T04:00:00.000-04:00" },
  meters_to_target: 1200,
  non_wear_time: 600,
  resting_time: 28_800,
  sedentary_met_minutes: 30,
  sedentary_time: 37_200,
  steps: 11_204,
  target_calories: 500,
  target_meters: 10_000,
  total_calories: 2_701,
  day: "2022-08-10",
  timestamp: "2022-08-10T04:00:00-04:00"
}

const sleep = {
  id: "b1b6f4d6-8c0a-4ea7-9a1e-6e3f8c7a2d11",
  average_breath: 15.125,
  average_heart_rate: 49.875,
  average_hrv: 66,
  awake_time: 2_490,
  bedtime_end: "2022-08-10T06:20:41-04:00",
  bedtime_start: "2022-08-09T22:29:41-04:00",
  day: "2022-08-10",
  deep_sleep_duration: 7_440,
  efficiency: 91,
  heart_rate: { interval: 300, items: [51, 53, null], timestamp: "2022-08-09T22:29:41.000-04:00" },
  hrv: { interval: 300, items: [60, 70], timestamp: "2022-08-09T22:29:41.000-04:00" },
  latency: 420,
  light_sleep_duration: 14_160,
  low_battery_alert: false,
  lowest_heart_rate: 44,
  movement_30_sec: "1111",
  period: 0,
  readiness: { score: 82, temperature_deviation: 0.11 },
  readiness_score_delta: 0,
  rem_sleep_duration: 4_170,
  restless_periods: 248,
  sleep_phase_5_min: "4422",
  sleep_score_delta: 0,
  time_in_bed: 28_260,
  total_sleep_duration: 25_770,
  type: "long_sleep"
}

const nap = {
  ...sleep,
  id: "c0a1a2a3-1111-4222-8333-444455556666",
  bedtime_start: "2022-08-10T14:05:00-04:00",
  bedtime_end: "2022-08-10T14:45:00-04:00",
  time_in_bed: 2_400,
  total_sleep_duration: 2_000,
  lowest_heart_rate: 52,
  type: "sleep"
}

const readiness = {
  id: "2c6e9f70-0f1b-4d43-8a2f-d8c5a1b2e3f4",
  contributors: { activity_balance: 80, hrv_balance: 72, resting_heart_rate: 95 },
  day: "2022-08-10",
  score: 82,
  temperature_deviation: -0.12,
  temperature_trend_deviation: 0.05,
  timestamp: "2022-08-10T00:00:00-04:00"
}

const spo2 = {
  id: "3d7f0a81-1a2c-4e54-9b3a-e9d6b2c3f4a5",
  day: "2022-08-10",
  spo2_percentage: { average: 96.68 },
  breathing_disturbance_index: 4
}

const workout = {
  id: "4e8a1b92-2b3d-4f65-8c4b-fae7c3d4a5b6",
  activity: "cycling",
  calories: 412.5,
  day: "2022-08-10",
  distance: 15_230.4,
  end_datetime: "2022-08-10T19:12:00-04:00",
  intensity: "moderate",
  label: null,
  source: "autodetected",
  start_datetime: "2022-08-10T18:02:00-04:00"
}

describe("Oura normalisers", () => {
  it("a day of activity: total calories out, active calories, walking distance, the four activity levels", () => {
    const record = normaliseOuraDailyActivity(decode(OuraDailyActivity)(activity), 44)
    expect(record).toMatchObject({
      providerRecordId: "2022-08-10",
      date: "2022-08-10",
      steps: 11_204,
      caloriesOut: 2_701,
      activeCalories: 612,
      distanceMeters: 9870,
      vigorousActiveMinutes: 20,
      moderateActiveMinutes: 50,
      lightActiveMinutes: 260,
      sedentaryMinutes: 620,
      floorsClimbed: 0,
      restingHeartRate: 44
    })
    expect(JSON.parse(record.rawJson).class_5_min).toBe("0000001111112222")
  })

  it("a day the ring measured zeros keeps them as zeros", () => {
    const still = {
      ...activity,
      steps: 0,
      active_calories: 0,
      equivalent_walking_distance: 0,
      high_activity_time: 0,
      medium_activity_time: 0,
      low_activity_time: 0
    }
    expect(normaliseOuraDailyActivity(decode(OuraDailyActivity)(still))).toMatchObject({
      steps: 0,
      activeCalories: 0,
      distanceMeters: 0,
      vigorousActiveMinutes: 0,
      caloriesOut: 2_701
    })
  })

  it("the main sleep: Oura's day, instants with their offset, stages, HRV, heart rate, breath and the day's score", () => {
    const record = normaliseOuraSleep(decode(OuraSleep)(sleep), 78)
    expect(record).toMatchObject({
      providerRecordId: sleep.id,
      date: "2022-08-10",
      start: new Date("2022-08-10T02:29:41Z"),
      end: new Date("2022-08-10T10:20:41Z"),
      utcOffsetMinutes: -240,
      nap: false,
      inBedMinutes: 471,
      asleepMinutes: 429.5,
      awakeMinutes: 41.5,
      deepMinutes: 124,
      lightMinutes: 236,
      remMinutes: 69.5,
      efficiencyPercent: 91,
      latencyMinutes: 7,
      averageHeartRate: 49.875,
      lowestHeartRate: 44,
      hrvRmssdMs: 66,
      respiratoryRate: 15.125,
      providerScore: 78,
      providerScoreScale: "OuraScore0To100"
    })
  })

  it("a night that ends across midnight UTC is dated by Oura's local day, not the UTC one", () => {
    const east = {
      ...sleep,
      bedtime_start: "2022-08-09T23:10:00+09:00",
      bedtime_end: "2022-08-10T07:05:00+09:00",
      day: "2022-08-10"
    }
    const record = normaliseOuraSleep(decode(OuraSleep)(east))
    expect(record.end.toISOString()).toBe("2022-08-09T22:05:00.000Z")
    expect(record.date).toBe("2022-08-10")
    expect(record.utcOffsetMinutes).toBe(540)
    expect(isoOffsetMinutes("2022-08-10T07:05:00+05:30")).toBe(330)
  })

  it("a nap is a nap and carries no day score", () => {
    const record = normaliseOuraSleep(decode(OuraSleep)(nap), 78)
    expect(record).toMatchObject({ nap: true, providerScore: null, providerScoreScale: null, inBedMinutes: 40 })
  })

  it("a workout: activity, start and end with their offset, calories, distance; intensity stays raw", () => {
    const record = normaliseOuraWorkout(decode(OuraWorkout)(workout))
    expect(record).toMatchObject({
      providerRecordId: workout.id,
      date: "2022-08-10",
      start: new Date("2022-08-10T22:02:00Z"),
      end: new Date("2022-08-10T23:12:00Z"),
      utcOffsetMinutes: -240,
      activityType: "cycling",
      sportName: "cycling",
      durationMinutes: 70,
      energyKilocalories: 412.5,
      distanceMeters: 15_230.4
    })
    expect(JSON.parse(record.rawJson).intensity).toBe("moderate")
    const lifting = normaliseOuraWorkout(decode(OuraWorkout)({ ...workout, activity: "strengthTraining" }))
    expect(lifting.activityType).toBe("strength")
  })

  it("a day's recovery joins readiness, SpO2 and the main sleep, as a partial record of the day", () => {
    const [record, ...rest] = assembleOuraRecoveries({
      readiness: [decode(OuraDailyReadiness)(readiness)],
      spo2: [decode(OuraDailySpo2)(spo2)],
      sleeps: [decode(OuraSleep)(nap), decode(OuraSleep)(sleep)]
    })
    expect(rest).toEqual([])
    expect(record).toMatchObject({
      providerRecordId: dayRecoveryId("2022-08-10"),
      date: "2022-08-10",
      recoveryScore: 82,
      providerScoreScale: "OuraScore0To100",
      restingHeartRate: 44,
      hrvRmssdMs: 66,
      respiratoryRate: 15.125,
      spo2Percent: 96.68,
      skinTemperatureDeviationCelsius: -0.12,
      skinTempCelsius: null,
      partial: true
    })
    expect(Object.keys(JSON.parse(record!.rawJson)).sort()).toEqual(["daily_readiness", "daily_spo2", "sleep"])
  })

  it("a day with SpO2 alone gives a recovery with only SpO2; a night without SpO2 gives none", () => {
    const records = assembleOuraRecoveries({
      readiness: [],
      spo2: [decode(OuraDailySpo2)({ ...spo2, day: "2022-08-11", spo2_percentage: null })],
      sleeps: []
    })
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ spo2Percent: null, recoveryScore: null, restingHeartRate: null })
  })

  it("a window: the day's score goes on its main sleep, the resting heart rate on its activity", () => {
    const batch = assembleOuraWindow({
      activity: [decode(OuraDailyActivity)(activity)],
      sleeps: [decode(OuraSleep)(sleep), decode(OuraSleep)(nap)],
      dailySleeps: [{ id: "d", day: "2022-08-10", score: 78 }],
      readiness: [],
      spo2: [],
      workouts: [decode(OuraWorkout)(workout)],
      quarantined: []
    })
    expect(batch.sleep.map((s) => s.providerScore)).toEqual([78, null])
    expect(batch.dailyActivity[0]!.restingHeartRate).toBe(44)
    expect(batch.workouts).toHaveLength(1)
    expect(batch.recovery[0]!.restingHeartRate).toBe(44)
  })

  it("personal info: height in metres and weight in kilograms, a snapshot of the day it is read", () => {
    const record = normaliseOuraPersonalInfo(
      { id: "user-1", age: 31, weight: 72.5, height: 1.78, biological_sex: "male" },
      new Date("2022-08-10T12:00:00Z")
    )
    expect(record).toMatchObject({
      providerRecordId: "user-1:2022-08-10",
      heightMeters: 1.78,
      weightKilograms: 72.5,
      measuredAt: new Date("2022-08-10T12:00:00Z")
    })
  })

  it("an instant without an offset does not decode (its day could not be trusted)", () => {
    expect(() => decode(OuraSleep)({ ...sleep, bedtime_end: "2022-08-10T06:20:41" })).toThrow()
  })
})
