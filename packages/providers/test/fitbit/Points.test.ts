/**
 * The Google Health API's raw points besides daily activity, shaped as Google writes them, normalised: sleeps
 * (stages, naps, a night across midnight and one across a DST change), exercises (the type mapped, one without heart
 * rate), the day's recovery from the five daily metrics, weighings in grams; and the window read against the
 * simulator, whose notifications verify with the keyset the sandbox hands the receiver.
 *
 * Sources for the shapes (health:v4, the `googleapis` client's `health/v4.ts` and developers.google.com/health/
 * reference): `Sleep` {interval: SessionTimeInterval, metadata.nap ("Naps are sleeps without stages and relatively
 * short durations"), stages[] {type: AWAKE, DEEP, REM, LIGHT…}, summary {minutesAsleep, minutesAwake,
 * minutesInSleepPeriod, minutesToFallAsleep, stagesSummary[] {type, minutes, count}} (int64 as strings)};
 * `SessionTimeInterval` {startTime, endTime, startUtcOffset, endUtcOffset (Durations), civilStartTime,
 * civilEndTime}; `Exercise` {exerciseType (RUNNING, WALKING, BIKING, HIKING, SWIMMING, STRENGTH_TRAINING,
 * WEIGHTLIFTING, YOGA, PILATES, HIIT, WORKOUT, OTHER), displayName, activeDuration, metricsSummary
 * {averageHeartRateBeatsPerMinute, caloriesKcal, distanceMillimeters, steps, heartRateZoneDurations}};
 * `DailyRestingHeartRate.beatsPerMinute` (int64), `DailyHeartRateVariability.averageHeartRateVariabilityMilliseconds`
 * (RMSSD), `DailyOxygenSaturation.averagePercentage`, `DailyRespiratoryRate.breathsPerMinute`,
 * `DailySleepTemperatureDerivations` {nightlyTemperatureCelsius, baselineTemperatureCelsius: "the median of the
 * user's nightly skin temperature over the past 30 days"}; `Weight.weightGrams` ("Weight of a user in grams"),
 * `BodyFat.percentage`, both at an `ObservationSampleTime` {physicalTime, utcOffset, civilTime}.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  assembleBodyMeasurements,
  assembleRecoveries,
  assembleSleeps,
  assembleWorkouts,
  FitbitData,
  FitbitPlugin,
  fitbitWebhooks,
  kilogramsOfGrams
} from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as http from "node:http"
import { connect, simClient, withHttp } from "../fixtures/Simulated.js"

/** What one delivery `send` makes to a listener on a loopback port carried: its body and lower-case headers. */
const deliveredBy = <E, R>(send: (url: string) => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const received: Array<{ body: string; headers: Record<string, string | undefined> }> = []
    const server = yield* Effect.acquireRelease(
      Effect.async<http.Server>((resume) => {
        const s = http.createServer((req, res) => {
          let body = ""
          req.on("data", (chunk) => (body += chunk))
          req.on("end", () => {
            received.push({ body, headers: req.headers as Record<string, string | undefined> })
            res.statusCode = 204
            res.end()
          })
        })
        s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
      }),
      (s) => Effect.sync(() => s.close())
    )
    const port = (server.address() as { port: number }).port
    yield* send(`http://127.0.0.1:${port}/webhooks/fitbit`)
    return received[0]!
  })

const civil = (date: string, hours = 0, minutes = 0) => ({
  date: { year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) },
  time: { hours, minutes }
})

/** A night of stages as Google lists it: New York (UTC-5), 23:10 to 06:52 the next morning. */
const night = {
  name: "users/2514986753/dataTypes/sleep/dataPoints/7203581142",
  dataSource: { platform: "FITBIT", device: { formFactor: "FITNESS_BAND" } },
  sleep: {
    interval: {
      startTime: "2026-11-27T04:10:00Z",
      startUtcOffset: "-18000s",
      endTime: "2026-11-27T11:52:00Z",
      endUtcOffset: "-18000s",
      civilStartTime: civil("2026-11-26", 23, 10),
      civilEndTime: civil("2026-11-27", 6, 52)
    },
    type: "STAGES",
    metadata: { nap: false, main: true, processed: true, stagesStatus: "SUCCEEDED" },
    summary: {
      minutesAsleep: "412",
      minutesAwake: "50",
      minutesInSleepPeriod: "462",
      minutesToFallAsleep: "9",
      stagesSummary: [
        { type: "AWAKE", minutes: "50", count: "14" },
        { type: "LIGHT", minutes: "231", count: "22" },
        { type: "DEEP", minutes: "78", count: "4" },
        { type: "REM", minutes: "103", count: "6" }
      ]
    }
  }
}

describe("sleep", () => {
  it("a night across midnight is the day it ends, its stages in minutes, Google's own asleep total", () => {
    const { quarantined, records } = assembleSleeps([night])
    expect(quarantined).toEqual([])
    expect(records).toEqual([{
      providerRecordId: "7203581142",
      date: "2026-11-27",
      start: new Date("2026-11-27T04:10:00Z"),
      end: new Date("2026-11-27T11:52:00Z"),
      utcOffsetMinutes: -300,
      nap: false,
      scoreState: "SCORED",
      inBedMinutes: 462,
      asleepMinutes: 412,
      awakeMinutes: 50,
      lightMinutes: 231,
      deepMinutes: 78,
      remMinutes: 103,
      efficiencyPercent: null,
      latencyMinutes: 9,
      averageHeartRate: null,
      lowestHeartRate: null,
      hrvRmssdMs: null,
      respiratoryRate: null,
      spo2Percent: null,
      providerScore: null,
      providerScoreScale: null,
      sleepNeedMinutes: null,
      performancePercent: null,
      consistencyPercent: null,
      disturbanceCount: null,
      rawJson: JSON.stringify(night)
    }])
  })

  it("a nap Google marks is a nap, without stages; without a summary the stages come from the segments", () => {
    const nap = {
      name: "users/2514986753/dataTypes/sleep/dataPoints/7203581199",
      sleep: {
        interval: {
          startTime: "2026-11-27T19:40:00Z",
          startUtcOffset: "-18000s",
          endTime: "2026-11-27T20:25:00Z",
          endUtcOffset: "-18000s"
        },
        type: "CLASSIC",
        metadata: { nap: true },
        summary: { minutesAsleep: "41", stagesSummary: [{ type: "ASLEEP", minutes: "41", count: "1" }] }
      }
    }
    const segments = {
      name: "users/u/dataTypes/sleep/dataPoints/55",
      sleep: {
        interval: { startTime: "2026-11-28T03:00:00Z", endTime: "2026-11-28T04:00:00Z", endUtcOffset: "3600s" },
        stages: [
          { type: "LIGHT", startTime: "2026-11-28T03:00:00Z", endTime: "2026-11-28T03:30:00Z" },
          { type: "DEEP", startTime: "2026-11-28T03:30:00Z", endTime: "2026-11-28T03:50:00Z" },
          { type: "AWAKE", startTime: "2026-11-28T03:50:00Z", endTime: "2026-11-28T04:00:00Z" }
        ]
      }
    }
    const { records } = assembleSleeps([nap, segments])
    expect(records[0]).toMatchObject({
      nap: true,
      date: "2026-11-27",
      asleepMinutes: 41,
      lightMinutes: null,
      deepMinutes: null,
      remMinutes: null,
      inBedMinutes: 45
    })
    expect(records[1]).toMatchObject({
      nap: false,
      // no civil end: the end at +01:00
      date: "2026-11-28",
      utcOffsetMinutes: 60,
      lightMinutes: 30,
      deepMinutes: 20,
      remMinutes: 0,
      asleepMinutes: 50,
      awakeMinutes: 10
    })
  })

  it("a night across the change to winter time ends on the new clock, dated by its own end", () => {
    // Berlin, 26 Oct 2025: 22:30 CEST (+02:00) to 06:30 CET (+01:00), nine hours in bed
    const dst = {
      name: "users/u/dataTypes/sleep/dataPoints/9",
      sleep: {
        interval: {
          startTime: "2025-10-25T20:30:00Z",
          startUtcOffset: "7200s",
          endTime: "2025-10-26T05:30:00Z",
          endUtcOffset: "3600s"
        },
        summary: { minutesAsleep: "505" }
      }
    }
    const [record] = assembleSleeps([dst]).records
    expect(record).toMatchObject({ date: "2025-10-26", utcOffsetMinutes: 60, inBedMinutes: 540, asleepMinutes: 505 })
  })

  it("quarantines a sleep that does not read and keeps the others", () => {
    const broken = { name: "users/u/dataTypes/sleep/dataPoints/13", sleep: { interval: { startTime: "yesterday" } } }
    const { quarantined, records } = assembleSleeps([broken, night])
    expect(records.map((r) => r.providerRecordId)).toEqual(["7203581142"])
    expect(quarantined).toMatchObject([{
      kind: "Sleep",
      providerRecordId: "13",
      reason: expect.stringMatching(/^sleep: /)
    }])
  })
})

describe("exercise", () => {
  const run = {
    name: "users/u/dataTypes/exercise/dataPoints/2026443605080188808",
    exercise: {
      interval: {
        startTime: "2026-11-27T23:30:00Z",
        startUtcOffset: "-18000s",
        endTime: "2026-11-28T00:21:00Z",
        endUtcOffset: "-18000s",
        civilStartTime: civil("2026-11-27", 18, 30)
      },
      exerciseType: "RUNNING",
      displayName: "Evening run",
      activeDuration: "2880s",
      metricsSummary: {
        averageHeartRateBeatsPerMinute: "152",
        caloriesKcal: 512.4,
        distanceMillimeters: 8012345,
        steps: "7421",
        heartRateZoneDurations: { lightTime: "300s", moderateTime: "900s", vigorousTime: "1680s" }
      }
    }
  }

  it("maps Google's exercise type, keeps its name, dates by the local start, converts units once", () => {
    const [record] = assembleWorkouts([run]).records
    expect(record).toEqual({
      providerRecordId: "2026443605080188808",
      // 23:30 UTC is 18:30 in New York: the 27th, though UTC is already at the 28th by the end
      date: "2026-11-27",
      start: new Date("2026-11-27T23:30:00Z"),
      end: new Date("2026-11-28T00:21:00Z"),
      utcOffsetMinutes: -300,
      activityType: "running",
      sportName: "Evening run",
      durationMinutes: 48,
      scoreState: "SCORED",
      strain: null,
      loadScoreScale: null,
      averageHeartRate: 152,
      maxHeartRate: null,
      energyKilocalories: 512.4,
      distanceMeters: 8012.345,
      steps: 7421,
      zoneDurationsJson: JSON.stringify({ light: 5, moderate: 15, vigorous: 28 }),
      rawJson: JSON.stringify(run)
    })
  })

  it("a workout without heart rate (logged by hand) has null heart rate and no zones", () => {
    const manual = {
      name: "users/u/dataTypes/exercise/dataPoints/31",
      exercise: {
        interval: { startTime: "2026-11-27T12:00:00Z", endTime: "2026-11-27T12:45:00Z", startUtcOffset: "0s" },
        exerciseType: "WEIGHTLIFTING",
        displayName: "Weights",
        metricsSummary: { caloriesKcal: 210 }
      }
    }
    const [record] = assembleWorkouts([manual]).records
    expect(record).toMatchObject({
      activityType: "strength",
      sportName: "Weights",
      averageHeartRate: null,
      distanceMeters: null,
      steps: null,
      durationMinutes: 45,
      zoneDurationsJson: "{}"
    })
  })
})

describe("the day's recovery", () => {
  const day = { year: 2026, month: 11, day: 27 }
  const pages = [
    {
      dataType: "daily-resting-heart-rate" as const,
      items: [{ dailyRestingHeartRate: { date: day, beatsPerMinute: "58" } }]
    },
    {
      dataType: "daily-heart-rate-variability" as const,
      items: [{ dailyHeartRateVariability: { date: day, averageHeartRateVariabilityMilliseconds: 41.7 } }]
    },
    {
      dataType: "daily-oxygen-saturation" as const,
      items: [{ dailyOxygenSaturation: { date: day, averagePercentage: 96.4 } }]
    },
    {
      dataType: "daily-respiratory-rate" as const,
      items: [{ dailyRespiratoryRate: { date: day, breathsPerMinute: 14.8 } }]
    },
    {
      dataType: "daily-sleep-temperature-derivations" as const,
      items: [{
        dailySleepTemperatureDerivations: {
          date: day,
          nightlyTemperatureCelsius: 34.42,
          baselineTemperatureCelsius: 34.1
        }
      }]
    }
  ]

  it("assembles the five daily metrics into one record of the day, the skin temperature's deviation from its baseline", () => {
    const { quarantined, records } = assembleRecoveries(pages)
    expect(quarantined).toEqual([])
    expect(records).toEqual([{
      providerRecordId: "recovery:2026-11-27",
      sleepId: null,
      date: "2026-11-27",
      scoreState: "SCORED",
      calibrating: null,
      recoveryScore: null,
      providerScoreScale: null,
      restingHeartRate: 58,
      hrvRmssdMs: 41.7,
      spo2Percent: 96.4,
      respiratoryRate: 14.8,
      skinTempCelsius: 34.42,
      skinTemperatureDeviationCelsius: 0.32,
      rawJson: expect.any(String)
    }])
    expect(Object.keys(JSON.parse(records[0]!.rawJson)).sort()).toEqual(pages.map((p) => p.dataType).sort())
  })

  it("a baseline of NaN (still learning) gives no deviation; a spoilt point makes its day partial", () => {
    const { quarantined, records } = assembleRecoveries([
      {
        dataType: "daily-sleep-temperature-derivations",
        items: [{
          dailySleepTemperatureDerivations: {
            date: day,
            nightlyTemperatureCelsius: 34.06,
            baselineTemperatureCelsius: "NaN"
          }
        }]
      },
      {
        dataType: "daily-resting-heart-rate",
        items: [{ dailyRestingHeartRate: { date: day, beatsPerMinute: "fast" } }]
      }
    ])
    expect(quarantined).toMatchObject([{ kind: "Recovery", providerRecordId: "recovery:2026-11-27" }])
    expect(records[0]).toMatchObject({
      skinTempCelsius: 34.06,
      skinTemperatureDeviationCelsius: null,
      restingHeartRate: null,
      partial: true
    })
  })
})

describe("weight and body fat", () => {
  const sampleTime = {
    physicalTime: "2026-11-27T12:14:03Z",
    utcOffset: "-18000s",
    civilTime: civil("2026-11-27", 7, 14)
  }

  it("converts grams to kilograms once, to the gram", () => {
    expect(kilogramsOfGrams(81_234)).toBe(81.234)
    expect(kilogramsOfGrams(81_234.4)).toBe(81.234)
  })

  it("merges a weighing's weight and body fat into one partial measurement at its instant", () => {
    // Google sends grams whatever the user's weightUnit (POUNDS included): 178.4 lb is written as 80920 g
    const { quarantined, records } = assembleBodyMeasurements(
      [{ weight: { sampleTime, weightGrams: 80_920 } }],
      [{ bodyFat: { sampleTime, percentage: 21.4 } }]
    )
    expect(quarantined).toEqual([])
    expect(records).toEqual([{
      providerRecordId: "body:2026-11-27T12:14:03.000Z",
      date: "2026-11-27",
      measuredAt: new Date("2026-11-27T12:14:03Z"),
      heightMeters: null,
      weightKilograms: 80.92,
      bodyFatPercent: 21.4,
      bmi: null,
      leanMassKilograms: null,
      maxHeartRate: null,
      partial: true,
      rawJson: expect.any(String)
    }])
  })

  it("quarantines a weight that is not a number", () => {
    const { quarantined, records } = assembleBodyMeasurements([{ weight: { sampleTime, weightGrams: "heavy" } }], [])
    expect(records).toEqual([])
    expect(quarantined).toMatchObject([{ kind: "BodyMeasurement" }])
  })
})

describe("against the simulator", () => {
  it.scopedLive("a window read brings sleeps, workouts, recoveries and weighings, every one read", () =>
    withHttp(Effect.gen(function*() {
      const { input } = yield* connect("Fitbit")
      const batch = yield* FitbitData.fetchWindow(input(), { from: "2025-05-01", to: "2025-05-14" })
      expect(batch.quarantined).toEqual([])
      const nights = batch.sleep.filter((s) => !s.nap)
      // a sleep every night, each dated by the morning it ends
      expect(nights.map((s) => s.date).sort()).toEqual(
        Array.from({ length: 14 }, (_, i) => `2025-05-${String(i + 1).padStart(2, "0")}`)
      )
      expect(batch.workouts.length).toBeGreaterThan(5)
      expect(batch.recovery.length).toBe(14)
      expect(batch.recovery.every((r) => r.restingHeartRate !== null)).toBe(true)
      expect(batch.bodyMeasurements.length).toBeGreaterThanOrEqual(2)
      expect(batch.bodyMeasurements.every((b) => b.weightKilograms !== null || b.bodyFatPercent !== null)).toBe(true)
    })))

  it.scopedLive("the simulator's notifications verify with the keyset the sandbox hands the receiver", () =>
    withHttp(Effect.gen(function*() {
      const { sim } = yield* connect("Fitbit")
      const keyset = FitbitPlugin.sandboxSigningKeys!(simClient.clientSecret)
      expect(keyset).toBe(sim.control.webhookKeyset())
      // the delivery as the simulator sends it, checked by the receiver with the sandbox's keyset
      const delivered = yield* deliveredBy((url) =>
        sim.control.notifyChange(url, {
          healthUserId: "1",
          dataType: "sleep",
          from: "2025-06-10",
          to: "2025-06-10",
          authorization: "Bearer s"
        })
      )
      const app = {
        clientId: simClient.clientId,
        clientSecret: Redacted.make(simClient.clientSecret),
        verificationCode: "Bearer s",
        signingKeys: keyset
      }
      const request = { method: "POST" as const, query: new URLSearchParams(), headers: delivered.headers }
      expect(fitbitWebhooks({ ...request, body: delivered.body }, app, Date.UTC(2025, 5, 15))).toMatchObject({
        _tag: "Accepted",
        notifications: [{ providerUserId: "1" }]
      })
      // the same signature over another body, or the delivery checked with another sandbox's keys, is refused
      expect(fitbitWebhooks({ ...request, body: `${delivered.body} ` }, app, 0)).toMatchObject({ status: 401 })
      expect(
        fitbitWebhooks({ ...request, body: delivered.body }, {
          ...app,
          signingKeys: FitbitPlugin.sandboxSigningKeys!("another-secret")
        }, 0)
      ).toMatchObject({ status: 401 })
    })))
})
