/**
 * Garmin's sleeps, activities, HRV, pulse ox and body compositions normalised from payloads shaped
 * as Garmin documents them.
 *
 * Sources of the shapes and examples:
 * - Garmin Connect Developer Program, Health API v1.2.2 (09/2025): 6.1 "Updated Summary Records",
 *   6.2 "Time Values", 7.3 "Sleep Summaries" (fields, `validation` values, `overallSleepScore`,
 *   `naps`, the `x-EXAMPLE` OFF_WRIST sleep), 7.4 "Body Composition Summaries" (grams, the
 *   EXAMPLE_678901 scale reading), 7.7 "Pulse Ox Summaries" (`timeOffsetSpo2Values`, `onDemand`),
 *   7.10 "HRV Summaries" (`lastNightAvg`, `hrvValues`, the x473db21-6295abc4 example), 8 "Summary
 *   Backfill" (paths and the 90-day limit).
 * - Garmin Developer Program, Activity API v1.2.3: 7.1 "Activity Summaries" (fields, the
 *   "Olathe RUNNING" example), 8 "Summary Backfill" (30 days), Appendix A (activity type names).
 * - RADAR-base/RADAR-PushEndpoint `garmin/converter/*` (the JSON names read for sleeps, activities,
 *   hrv, pulseox and bodyComps) and RADAR-base/RADAR-Schemas `commons/push/garmin/*.avsc` (the
 *   spec's field descriptions); the-momentum/open-wearables `garmin/backfill_config.py` (backfill
 *   paths, `pulseOx`).
 */
import { describe, expect, it } from "@effect/vitest"
import {
  garminActivityType,
  garminSummaries,
  joinBatches,
  kilogramsFromGrams,
  normaliseGarminActivities,
  normaliseGarminBodyComps,
  normaliseGarminHrvs,
  normaliseGarminPulseOxes,
  normaliseGarminSleeps
} from "@pulsebridge/providers"

const user = "4aacafe82427c251df9c9592d0c06768"
const token = "8f57a6f1-26ba-4b05-a7cd-c6b525a4c7a2"
const at = (iso: string) => Date.parse(iso) / 1000

/** Health API 7.3, second example: stages, respiration and SpO2 samples, a score and a nap. */
const scoredSleep = {
  userId: user,
  userAccessToken: token,
  summaryId: "EXAMPLE_567891",
  durationInSeconds: 11900,
  startTimeInSeconds: 1452467493,
  startTimeOffsetInSeconds: 7200,
  unmeasurableSleepDurationInSeconds: 0,
  deepSleepDurationInSeconds: 9446,
  lightSleepDurationInSeconds: 0,
  remSleepInSeconds: 2142,
  awakeDurationInSeconds: 312,
  validation: "DEVICE",
  timeOffsetSleepRespiration: { "60": 15.31, "120": 14.58, "180": 12.73, "240": 12.87 },
  timeOffsetSleepSpo2: { "0": 95, "60": 96, "120": 97, "180": 93, "240": 94, "300": 95, "360": 96 },
  overallSleepScore: { value: 87, qualifierKey: "GOOD" },
  sleepScores: { totalDuration: { qualifierKey: "EXCELLENT" }, deepPercentage: { qualifierKey: "POOR" } },
  naps: [{
    napDurationInSeconds: 600,
    napStartTimeInSeconds: 1690916700,
    napValidation: "DEVICE",
    napOffsetInSeconds: -18000
  }]
}

/** Health API 7.3, third example: an OFF_WRIST night at UTC+9, start and end only. */
const offWrist = {
  summaryId: "x-EXAMPLE",
  calendarDate: "2021-01-29",
  durationInSeconds: 28260,
  startTimeInSeconds: 1611840660,
  startTimeOffsetInSeconds: 32400,
  unmeasurableSleepInSeconds: 0,
  deepSleepDurationInSeconds: 0,
  lightSleepDurationInSeconds: 0,
  remSleepInSeconds: 0,
  awakeDurationInSeconds: 0,
  validation: "OFF_WRIST",
  timeOffsetSleepSpo2: {},
  timeOffsetSleepRespiration: {}
}

describe("Garmin sleeps", () => {
  it("dates a sleep by the local day it ends, which is Garmin's calendarDate of it (the wake day)", () => {
    // 22:31 on the 28th at UTC+9, for 7 h 51 min: the morning of the 29th
    const { quarantined, records } = normaliseGarminSleeps([offWrist], user)
    expect(quarantined).toEqual([])
    expect(records).toHaveLength(1)
    const [night] = records
    expect(night).toMatchObject({
      providerRecordId: `${user}:1611840660`,
      date: "2021-01-29",
      start: new Date("2021-01-28T13:31:00Z"),
      end: new Date("2021-01-28T21:22:00Z"),
      utcOffsetMinutes: 540,
      nap: false,
      scoreState: "SCORED",
      inBedMinutes: 471,
      // OFF_WRIST: the zeros stand for "not measured"
      asleepMinutes: null,
      lightMinutes: null,
      deepMinutes: null,
      remMinutes: null,
      awakeMinutes: null,
      spo2Percent: null,
      respiratoryRate: null,
      // no sleep score on this device
      providerScore: null,
      providerScoreScale: null
    })
    expect(night!.date).toBe(offWrist.calendarDate)
  })

  it("reads stages (seconds to minutes), the score on Garmin's 0-100 scale, the night's SpO2 and breathing, and a nap", () => {
    const { quarantined, records } = normaliseGarminSleeps([scoredSleep], user)
    expect(quarantined).toEqual([])
    const night = records.find((r) => !r.nap)!
    expect(night).toMatchObject({
      providerRecordId: `${user}:1452467493`,
      // 23:11:33Z at UTC+2 is 01:11 on the 11th; it ends 04:29 local the same morning
      date: "2016-01-11",
      inBedMinutes: 11900 / 60,
      deepMinutes: 9446 / 60,
      lightMinutes: 0,
      remMinutes: 2142 / 60,
      asleepMinutes: (9446 + 2142) / 60,
      awakeMinutes: 312 / 60,
      providerScore: 87,
      providerScoreScale: "GarminSleepScore0To100",
      efficiencyPercent: null,
      latencyMinutes: null,
      averageHeartRate: null,
      hrvRmssdMs: null
    })
    expect(night.spo2Percent).toBeCloseTo((95 + 96 + 97 + 93 + 94 + 95 + 96) / 7, 9)
    expect(night.respiratoryRate).toBeCloseTo((15.31 + 14.58 + 12.73 + 12.87) / 4, 9)
    const raw = JSON.parse(night.rawJson)
    expect(raw).toMatchObject({ summaryId: "EXAMPLE_567891", sleepScores: scoredSleep.sleepScores })
    expect(night.rawJson).not.toContain(token)

    // the nap Garmin lists with the night: 19:05Z at UTC-5 is 14:05 on 1 August 2023, for 10 minutes
    const nap = records.find((r) => r.nap)!
    expect(nap).toMatchObject({
      providerRecordId: `${user}:nap:1690916700`,
      date: "2023-08-01",
      start: new Date("2023-08-01T19:05:00Z"),
      end: new Date("2023-08-01T19:15:00Z"),
      utcOffsetMinutes: -300,
      nap: true,
      inBedMinutes: 10,
      asleepMinutes: 10,
      deepMinutes: null,
      providerScore: null
    })
    expect(JSON.parse(nap.rawJson)).toEqual({ summaryId: "EXAMPLE_567891", ...scoredSleep.naps[0] })
  })

  it("a sleep crossing midnight falls on the morning it ends", () => {
    // 22:40 on 10 January at UTC+2, eight hours
    const start = at("2016-01-10T20:40:00Z")
    const { records } = normaliseGarminSleeps([{
      summaryId: "x-midnight",
      calendarDate: "2016-01-11",
      startTimeInSeconds: start,
      startTimeOffsetInSeconds: 7200,
      durationInSeconds: 8 * 3600,
      deepSleepDurationInSeconds: 5400,
      lightSleepDurationInSeconds: 18000,
      remSleepInSeconds: 4800,
      awakeDurationInSeconds: 600,
      validation: "ENHANCED_FINAL"
    }], user)
    expect(records.map((r) => [r.date, r.end.toISOString(), r.asleepMinutes])).toEqual([
      ["2016-01-11", "2016-01-11T04:40:00.000Z", (5400 + 18000 + 4800) / 60]
    ])
  })

  it("a night across the spring change of clocks keeps its start offset and its real length", () => {
    // Europe/Paris, 30 March 2025: 23:00 CET (UTC+1) to 07:00 CEST (UTC+2) is 7 hours, not 8
    const start = at("2025-03-29T22:00:00Z")
    const { records } = normaliseGarminSleeps([{
      summaryId: "x-dst",
      startTimeInSeconds: start,
      startTimeOffsetInSeconds: 3600,
      durationInSeconds: 7 * 3600,
      deepSleepDurationInSeconds: 4000,
      lightSleepDurationInSeconds: 16000,
      remSleepInSeconds: 4000,
      awakeDurationInSeconds: 1200
    }], user)
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({
      date: "2025-03-30",
      start: new Date("2025-03-29T22:00:00Z"),
      end: new Date("2025-03-30T05:00:00Z"),
      utcOffsetMinutes: 60,
      inBedMinutes: 420
    })
  })

  it("of re-sent copies of a night (same start, Health API 6.1) keeps the longest; quarantines a bad one and reads the rest", () => {
    const tentative = { ...scoredSleep, naps: [], durationInSeconds: 6000, validation: "AUTO_TENTATIVE" }
    const final = { ...scoredSleep, naps: [], validation: "AUTO_FINAL" }
    const { startTimeInSeconds: _start, ...unstarted } = offWrist
    const negative = { ...offWrist, summaryId: "x-neg", startTimeInSeconds: 1611927060, deepSleepDurationInSeconds: -5 }
    const { quarantined, records } = normaliseGarminSleeps([final, unstarted, tentative, negative, 42], user)
    expect(records.map((r) => [r.providerRecordId, r.inBedMinutes])).toEqual([[`${user}:1452467493`, 11900 / 60]])
    expect(quarantined.map((q) => [q.kind, q.providerRecordId])).toEqual([
      ["Sleep", null],
      ["Sleep", `${user}:1611927060`],
      ["Sleep", null]
    ])
    expect(quarantined[0]!.reason).toContain("startTimeInSeconds")
    expect(quarantined[1]!.reason).toContain("deepSleepDurationInSeconds")
    for (const q of quarantined) expect(q.rawJson).not.toContain(token)
  })
})

/** Activity API 7.1's example, with the user's id as a push carries it; no heart rate sensor. */
const olatheRun = {
  userId: user,
  userAccessToken: token,
  summaryId: "5001968355",
  activityId: 5001968355,
  activityType: "RUNNING",
  activityName: "Olathe RUNNING",
  startTimeInSeconds: 1452470400,
  startTimeOffsetInSeconds: 0,
  durationInSeconds: 11580,
  averageSpeedInMetersPerSecond: 2.888999938964844,
  distanceInMeters: 519818.125,
  activeKilocalories: 448,
  deviceName: "Garmi fenix 8",
  averagePaceInMinutesPerKilometer: 0.5975272352046997
}

describe("Garmin activities", () => {
  it("maps the documented activity: kind from activityType, Garmin's type kept, seconds to minutes, no heart rate", () => {
    const { quarantined, records } = normaliseGarminActivities([olatheRun])
    expect(quarantined).toEqual([])
    expect(records).toEqual([{
      providerRecordId: "5001968355",
      date: "2016-01-11",
      start: new Date("2016-01-11T00:00:00Z"),
      end: new Date((1452470400 + 11580) * 1000),
      utcOffsetMinutes: 0,
      activityType: "running",
      sportName: "RUNNING",
      durationMinutes: 193,
      scoreState: "SCORED",
      strain: null,
      loadScoreScale: null,
      averageHeartRate: null,
      maxHeartRate: null,
      energyKilocalories: 448,
      distanceMeters: 519818.125,
      steps: null,
      zoneDurationsJson: "{}",
      rawJson: expect.any(String)
    }])
    const { userAccessToken: _token, ...raw } = olatheRun
    expect(JSON.parse(records[0]!.rawJson)).toEqual(raw)
  })

  it("dates an activity by the local day it starts, and reads its heart rate", () => {
    // 02:30Z on 2 March at UTC-5 is 21:30 on 1 March
    const lift = {
      summaryId: "x-lift",
      activityType: "STRENGTH_TRAINING",
      startTimeInSeconds: at("2024-03-02T02:30:00Z"),
      startTimeOffsetInSeconds: -18000,
      durationInSeconds: 2700,
      averageHeartRateInBeatsPerMinute: 112,
      maxHeartRateInBeatsPerMinute: 158,
      activeKilocalories: 260
    }
    const [record] = normaliseGarminActivities([lift]).records
    expect(record).toMatchObject({
      date: "2024-03-01",
      utcOffsetMinutes: -300,
      activityType: "strength",
      sportName: "STRENGTH_TRAINING",
      durationMinutes: 45,
      averageHeartRate: 112,
      maxHeartRate: 158
    })
  })

  it("places Garmin's activity type names (Activity API appendix A) on the canonical kinds", () => {
    const cases: Array<[string, string]> = [
      ["RUNNING", "running"],
      ["TREADMILL_RUNNING", "running"],
      ["TRAIL_RUNNING", "running"],
      ["CYCLING", "cycling"],
      ["ROAD_BIKING", "cycling"],
      ["INDOOR_CYCLING", "cycling"],
      ["VIRTUAL_RIDE", "cycling"],
      ["MOUNTAIN_BIKING", "cycling"],
      ["WALKING", "walking"],
      ["RUCKING", "walking"],
      ["HIKING", "hiking"],
      ["LAP_SWIMMING", "swimming"],
      ["OPEN_WATER_SWIMMING", "swimming"],
      ["STRENGTH_TRAINING", "strength"],
      ["YOGA", "yoga"],
      ["PILATES", "yoga"],
      ["HIIT", "hiit"],
      ["INDOOR_ROWING", "rowing"],
      ["ELLIPTICAL", "elliptical"],
      ["STAIR_CLIMBING", "elliptical"],
      ["TENNIS", "sports"],
      ["SOCCER", "sports"],
      ["PICKLEBALL", "sports"],
      ["MULTI_SPORT", "other"],
      ["BREATHWORK", "other"]
    ]
    expect(cases.map(([name]) => [name, garminActivityType(name)])).toEqual(cases)
    expect(garminActivityType(undefined)).toBe("other")
  })

  it("quarantines an activity without a start and keeps the others", () => {
    const { startTimeInSeconds: _start, ...unstarted } = { ...olatheRun, summaryId: "x-bad" }
    const { quarantined, records } = normaliseGarminActivities([unstarted, olatheRun])
    expect(records.map((r) => r.providerRecordId)).toEqual(["5001968355"])
    expect(quarantined).toMatchObject([{ kind: "Workout", providerRecordId: "x-bad" }])
    expect(quarantined[0]!.reason).toContain("startTimeInSeconds")
    expect(quarantined[0]!.rawJson).not.toContain(token)
  })
})

/** Health API 7.10's example. */
const hrv = {
  userId: user,
  summaryId: "x473db21-6295abc4",
  calendarDate: "2022-05-31",
  lastNightAvg: 44,
  lastNight5MinHigh: 72,
  startTimeOffsetInSeconds: -18000,
  durationInSeconds: 3820,
  startTimeInSeconds: 1653976004,
  hrvValues: { "300": 32, "600": 24, "900": 31, "1200": 35 }
}

/** Health API 7.7's examples: an all-day (acclimation) summary and a spot check. */
const pulseOx = {
  summaryId: "Example1234",
  calendarDate: "2018-08-27",
  startTimeInSeconds: 1535400706,
  durationInSeconds: 86400,
  startTimeOffsetInSeconds: 3600,
  timeOffsetSpo2Values: { "7140": 94, "10740": 98, "10800": 99, "86340": 96 },
  onDemand: false
}
const spotCheck = {
  summaryId: "example1234-spo2OnDemand",
  calendarDate: "2018-08-27",
  startTimeInSeconds: 1572303600,
  durationInSeconds: 0,
  startTimeOffsetInSeconds: 3600,
  timeOffsetSpo2Values: { "55740": 93 },
  onDemand: true
}

describe("Garmin recovery: HRV, pulse ox and the dailies' resting heart rate", () => {
  it("an HRV summary is a partial recovery of its calendar date: lastNightAvg is the RMSSD in ms", () => {
    const { quarantined, records } = normaliseGarminHrvs([hrv])
    expect(quarantined).toEqual([])
    expect(records).toEqual([{
      providerRecordId: "recovery:2022-05-31",
      sleepId: null,
      date: "2022-05-31",
      scoreState: "SCORED",
      calibrating: null,
      recoveryScore: null,
      providerScoreScale: null,
      restingHeartRate: null,
      hrvRmssdMs: 44,
      spo2Percent: null,
      respiratoryRate: null,
      skinTempCelsius: null,
      skinTemperatureDeviationCelsius: null,
      partial: true,
      rawJson: JSON.stringify({ hrv })
    }])
  })

  it("an HRV summary without calendarDate is dated by its local start", () => {
    const { calendarDate: _date, ...undated } = hrv
    // 05:46:44Z at UTC-5 is 00:46 on 31 May
    expect(normaliseGarminHrvs([undated]).records.map((r) => r.date)).toEqual(["2022-05-31"])
  })

  it("SpO2 is the mean of an all-day summary's samples; a spot check is kept in the raw JSON only", () => {
    const { records } = normaliseGarminPulseOxes([pulseOx, spotCheck])
    expect(records).toHaveLength(1)
    expect(records[0]!.spo2Percent).toBeCloseTo((94 + 98 + 99 + 96) / 4, 9)
    expect(JSON.parse(records[0]!.rawJson)).toEqual({ pulseox: pulseOx, pulseoxOnDemand: spotCheck })
    expect(normaliseGarminPulseOxes([spotCheck]).records[0]!.spo2Percent).toBeNull()
  })

  it("the sources of one day merge into one record, raw JSON keyed by source", () => {
    const day = "2022-05-31"
    const daily = {
      userId: user,
      summaryId: "x4aacafe-62956980-15180",
      calendarDate: day,
      startTimeInSeconds: 1653973200,
      startTimeOffsetInSeconds: -18000,
      durationInSeconds: 86400,
      steps: 9000,
      restingHeartRateInBeatsPerMinute: 51
    }
    const ox = { ...pulseOx, calendarDate: day }
    const batch = joinBatches([
      garminSummaries.dailies.read([daily], user),
      garminSummaries.hrv.read([hrv], user),
      garminSummaries.pulseox.read([ox], user)
    ])
    expect(batch.dailyActivity).toHaveLength(1)
    expect(batch.recovery).toHaveLength(1)
    expect(batch.recovery[0]).toMatchObject({
      providerRecordId: `recovery:${day}`,
      date: day,
      restingHeartRate: 51,
      hrvRmssdMs: 44,
      partial: true
    })
    expect(batch.recovery[0]!.spo2Percent).toBeCloseTo(96.75, 9)
    const raw = JSON.parse(batch.recovery[0]!.rawJson)
    expect(Object.keys(raw).sort()).toEqual(["dailies", "hrv", "pulseox"])
    expect(raw.dailies).toEqual({
      summaryId: daily.summaryId,
      calendarDate: day,
      durationInSeconds: 86400,
      restingHeartRateInBeatsPerMinute: 51
    })
  })

  it("quarantines a bad HRV or pulse ox summary under its summaryId and reads the rest", () => {
    const bad = { ...hrv, summaryId: "x-bad", lastNightAvg: -3 }
    const { quarantined, records } = normaliseGarminHrvs([bad, hrv])
    expect(records.map((r) => r.hrvRmssdMs)).toEqual([44])
    expect(quarantined).toMatchObject([{ kind: "Recovery", providerRecordId: "x-bad" }])
    const noSamples = normaliseGarminPulseOxes([{ ...pulseOx, timeOffsetSpo2Values: undefined }])
    expect(noSamples.records).toEqual([])
    expect(noSamples.quarantined[0]!.reason).toContain("timeOffsetSpo2Values")
  })
})

/** Health API 7.4's example, as a scale sends it. */
const scale = {
  userId: user,
  userAccessToken: token,
  summaryId: "EXAMPLE_678901",
  measurementTimeInSeconds: 1439741130,
  measurementTimeOffsetInSeconds: 0,
  muscleMassInGrams: 25478,
  boneMassInGrams: 2437,
  bodyWaterInPercent: 59.4,
  bodyFatInPercent: 17.1,
  bodyMassIndex: 23.2,
  weightInGrams: 75450
}

describe("Garmin body compositions", () => {
  it("converts grams to kilograms", () => {
    expect(kilogramsFromGrams(75450)).toBe(75.45)
  })

  it("maps a scale reading: weight in kg, body fat and BMI as given, measured at its time, dated locally", () => {
    const { quarantined, records } = normaliseGarminBodyComps([scale])
    expect(quarantined).toEqual([])
    expect(records).toEqual([{
      providerRecordId: "EXAMPLE_678901",
      date: "2015-08-16",
      measuredAt: new Date(1439741130 * 1000),
      heightMeters: null,
      weightKilograms: 75.45,
      bodyFatPercent: 17.1,
      bmi: 23.2,
      // muscle mass is not lean mass: it stays in the raw JSON
      leanMassKilograms: null,
      maxHeartRate: null,
      rawJson: expect.any(String)
    }])
    expect(JSON.parse(records[0]!.rawJson)).toMatchObject({ muscleMassInGrams: 25478, boneMassInGrams: 2437 })
    expect(records[0]!.rawJson).not.toContain(token)
  })

  it("a weight entered in Garmin Connect (time and weight only) falls on the local day it was taken", () => {
    // 03:00Z on 1 January at UTC-6 is 21:00 on 31 December
    const manual = {
      summaryId: "x-manual",
      measurementTimeInSeconds: at("2024-01-01T03:00:00Z"),
      measurementTimeOffsetInSeconds: -21600,
      weightInGrams: 81200
    }
    expect(normaliseGarminBodyComps([manual]).records).toMatchObject([{
      date: "2023-12-31",
      weightKilograms: 81.2,
      bodyFatPercent: null,
      bmi: null
    }])
  })

  it("quarantines a reading without a time or with a body fat over 100% and keeps the others", () => {
    const { measurementTimeInSeconds: _t, ...untimed } = { ...scale, summaryId: "x-untimed" }
    const over = { ...scale, summaryId: "x-over", bodyFatInPercent: 171 }
    const { quarantined, records } = normaliseGarminBodyComps([untimed, over, scale])
    expect(records.map((r) => r.providerRecordId)).toEqual(["EXAMPLE_678901"])
    expect(quarantined.map((q) => [q.kind, q.providerRecordId])).toEqual([
      ["BodyMeasurement", "x-untimed"],
      ["BodyMeasurement", "x-over"]
    ])
  })
})
