/**
 * Building the scoring input from canonical rows: one provider per input by the documented
 * priority, main sleep and naps, days the device was not worn, workout zones as active minutes
 * and the local clock time of sleep.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ActivityRow, RecoveryRow, ScoringRows, SleepRow } from "../../src/scoring/Inputs.js"
import { buildScoringInput, ProviderPriority } from "../../src/scoring/Inputs.js"

const none: ScoringRows = { dailyActivity: [], dailyLoad: [], sleep: [], recovery: [], workouts: [], journal: [] }

const activity = (provider: ActivityRow["provider"], overrides: Partial<ActivityRow> = {}): ActivityRow => ({
  provider,
  date: "2026-02-02",
  steps: 8000,
  activeCalories: 400,
  lightActiveMinutes: 200,
  moderateActiveMinutes: 20,
  vigorousActiveMinutes: 10,
  sedentaryMinutes: 600,
  restingHeartRate: 60,
  ...overrides
})

const recovery = (overrides: Partial<RecoveryRow> = {}): RecoveryRow => ({
  provider: "WHOOP",
  date: "2026-02-02",
  restingHeartRate: 52,
  hrvRmssdMs: 70,
  spo2Percent: 97,
  respiratoryRate: null,
  skinTempCelsius: 33.4,
  skinTemperatureDeviationCelsius: null,
  ...overrides
})

const sleep = (start: string, end: string, overrides: Partial<SleepRow> = {}): SleepRow => ({
  provider: "WHOOP",
  date: "2026-02-02",
  start: new Date(start),
  end: new Date(end),
  nap: false,
  inBedMinutes: 480,
  asleepMinutes: null,
  latencyMinutes: null,
  awakeMinutes: 30,
  lightMinutes: 270,
  deepMinutes: 80,
  remMinutes: 100,
  respiratoryRate: 15.2,
  efficiencyPercent: 93,
  ...overrides
})

const dayOf = (rows: Partial<ScoringRows>, timezone = "UTC") => {
  const built = buildScoringInput({ ...none, ...rows }, { timezone })
  expect(built.days).toHaveLength(1)
  return built.days[0]!
}

describe("provider priority", () => {
  it("steps, active minutes, sedentary time and active energy come from Garmin before Fitbit", () => {
    const day = dayOf({
      dailyActivity: [
        activity("Fitbit", { steps: 9000 }),
        activity("Garmin", { steps: 8500, vigorousActiveMinutes: 14 })
      ]
    })
    expect(day.steps).toEqual({ value: 8500, source: "Garmin" })
    expect(day.activeMinutes).toEqual({ moderate: 20, vigorous: 14, source: "Garmin" })
    expect(day.sedentaryMinutes?.source).toBe("Garmin")
    expect(day.activeCalories?.source).toBe("Garmin")
  })

  it("an input the first provider lacks comes from the next one", () => {
    const day = dayOf({
      dailyActivity: [activity("Garmin", { activeCalories: null }), activity("Fitbit", { activeCalories: 380 })]
    })
    expect(day.activeCalories).toEqual({ value: 380, source: "Fitbit" })
  })

  it("resting heart rate comes from the WHOOP recovery before a daily summary, else from the summary", () => {
    const withWhoop = dayOf({ recovery: [recovery()], dailyActivity: [activity("Fitbit")] })
    expect(withWhoop.restingHeartRate).toEqual({ value: 52, source: "WHOOP" })
    const summaryOnly = dayOf({ recovery: [recovery({ restingHeartRate: null })], dailyActivity: [activity("Fitbit")] })
    expect(summaryOnly.restingHeartRate).toEqual({ value: 60, source: "Fitbit" })
  })

  it("the training load is the WHOOP strain when there is one, else moderate + 2 x vigorous minutes", () => {
    const whoop = dayOf({
      dailyLoad: [{ provider: "WHOOP", date: "2026-02-02", loadScore: 13.4 }],
      dailyActivity: [activity("Fitbit")]
    })
    expect(whoop.load).toEqual({ value: 13.4, source: "WHOOP" })
    const pending = dayOf({
      dailyLoad: [{ provider: "WHOOP", date: "2026-02-02", loadScore: null }],
      dailyActivity: [activity("Fitbit")]
    })
    expect(pending.load).toEqual({ value: 40, source: "Fitbit" })
  })

  it("the documented orders put sleep-worn sensors first for recovery and Garmin first for activity", () => {
    expect(ProviderPriority.restingHeartRate[0]).toBe("WHOOP")
    expect(ProviderPriority.steps.slice(0, 2)).toEqual(["Garmin", "Fitbit"])
  })
})

describe("days and sleep", () => {
  it("a summary without steps or active minutes is a day the device was not worn, not a day of zero", () => {
    const built = buildScoringInput({
      ...none,
      dailyActivity: [
        activity("Fitbit", {
          steps: 0,
          lightActiveMinutes: 0,
          moderateActiveMinutes: 0,
          vigorousActiveMinutes: 0,
          sedentaryMinutes: 1440
        })
      ]
    }, { timezone: "UTC" })
    expect(built.days).toEqual([])
  })

  it("the main sleep is the longest session that is not a nap; the others count as nap minutes", () => {
    const day = dayOf({
      sleep: [
        sleep("2026-02-01T23:00:00Z", "2026-02-02T01:00:00Z", { lightMinutes: 60, deepMinutes: 20, remMinutes: 20 }),
        sleep("2026-02-02T01:30:00Z", "2026-02-02T07:30:00Z", { lightMinutes: 200, deepMinutes: 60, remMinutes: 70 }),
        sleep("2026-02-02T14:00:00Z", "2026-02-02T14:30:00Z", {
          nap: true,
          lightMinutes: 25,
          deepMinutes: 0,
          remMinutes: 0
        })
      ]
    })
    expect(day.mainSleep?.asleepMinutes).toBe(330)
    expect(day.napMinutes).toBe(100 + 25)
    expect(day.respiratoryRate).toEqual({ value: 15.2, source: "WHOOP" })
  })

  it("without stages, sleep is time in bed minus time awake, and efficiency follows from it", () => {
    const day = dayOf({
      sleep: [
        sleep("2026-02-01T23:00:00Z", "2026-02-02T07:00:00Z", {
          lightMinutes: null,
          deepMinutes: null,
          remMinutes: null,
          efficiencyPercent: null
        })
      ]
    })
    expect(day.mainSleep?.asleepMinutes).toBe(450)
    expect(day.mainSleep?.efficiencyPercent).toBeCloseTo(93.75, 9)
  })

  it("the sleep midpoint is read in the user's time zone", () => {
    const rows = { sleep: [sleep("2026-02-01T21:30:00Z", "2026-02-02T05:30:00Z")] }
    // Midpoint 01:30 UTC: 02:30 in Berlin (UTC+1 in February), 20:30 in New York.
    expect(dayOf(rows, "Europe/Berlin").mainSleep?.midpointMinutes).toBe(720 + 150)
    expect(dayOf(rows, "America/New_York").mainSleep?.midpointMinutes).toBe(510)
    expect(dayOf(rows, "UTC").mainSleep?.midpointMinutes).toBe(720 + 90)
  })

  it("waking sedentary time leaves out the night's sleep", () => {
    const day = dayOf({
      dailyActivity: [activity("Fitbit", { sedentaryMinutes: 1000 })],
      sleep: [sleep("2026-02-01T23:00:00Z", "2026-02-02T07:00:00Z")]
    })
    // 1440 - 200 light - 20 moderate - 10 vigorous - 450 asleep
    expect(day.sedentaryMinutes).toEqual({ value: 760, source: "Fitbit" })
  })

  it("workout heart-rate zones give active minutes when no daily summary does", () => {
    const day = dayOf({
      workouts: [
        {
          provider: "WHOOP",
          date: "2026-02-02",
          zoneDurationsJson: JSON.stringify({
            zone_zero: 2,
            zone_one: 10,
            zone_two: 12,
            zone_three: 8,
            zone_four: 6,
            zone_five: 1
          })
        },
        { provider: "WHOOP", date: "2026-02-02", zoneDurationsJson: "{}" }
      ]
    })
    expect(day.activeMinutes).toEqual({ moderate: 20, vigorous: 7, source: "WHOOP" })
    expect(day.steps).toBeNull()
  })
})
