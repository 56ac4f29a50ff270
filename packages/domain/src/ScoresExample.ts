/**
 * A worked example of a daily score for the API reference: a short, late and irregular night
 * (sleep 60), a normal HRV with a large sleep debt (recovery 74) and an active day with long
 * sedentary hours (activity 85).
 */
import type { ScoreComponents } from "./Scores.js"

export const dailyScoreExample: {
  readonly date: string
  readonly sleepScore: number | null
  readonly activityScore: number | null
  readonly recoveryScore: number | null
  readonly overallScore: number | null
  readonly components: ScoreComponents
} = {
  date: "2026-11-02",
  sleepScore: 60,
  activityScore: 85,
  recoveryScore: 74,
  overallScore: 72,
  components: {
    sleep: {
      score: 60,
      coverage: 0.95,
      calibrating: false,
      flags: [],
      factors: [
        {
          key: "duration",
          value: 5.77,
          unit: "h",
          reference: { kind: "range", low: 7, high: 9 },
          subScore: 53,
          weight: 0.3,
          effectiveWeight: 0.3158,
          pointsLost: 14.8,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "efficiency",
          value: 85.64,
          unit: "%",
          reference: { kind: "target", value: 95 },
          subScore: 76.6,
          weight: 0.15,
          effectiveWeight: 0.1579,
          pointsLost: 3.7,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "continuity",
          value: 57,
          unit: "min",
          reference: { kind: "target", value: 20 },
          subScore: 44.5,
          weight: 0.1,
          effectiveWeight: 0.1053,
          pointsLost: 5.8,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "latency",
          value: null,
          unit: "min",
          reference: { kind: "target", value: 20 },
          subScore: null,
          weight: 0.05,
          effectiveWeight: 0,
          pointsLost: 0,
          state: "unavailable",
          source: null
        },
        {
          key: "deepSleep",
          value: 13.01,
          unit: "%",
          reference: { kind: "target", value: 15 },
          subScore: 90,
          weight: 0.1,
          effectiveWeight: 0.1053,
          pointsLost: 1,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "remSleep",
          value: 15.32,
          unit: "%",
          reference: { kind: "target", value: 20 },
          subScore: 76.6,
          weight: 0.1,
          effectiveWeight: 0.1053,
          pointsLost: 2.5,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "regularity",
          value: 83.8,
          unit: "min",
          reference: { kind: "target", value: 30, days: 7 },
          subScore: 46.2,
          weight: 0.15,
          effectiveWeight: 0.1579,
          pointsLost: 8.5,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "timing",
          value: 5.75,
          unit: "h from midnight",
          reference: { kind: "range", low: 0, high: 3 },
          subScore: 31.3,
          weight: 0.05,
          effectiveWeight: 0.0526,
          pointsLost: 3.6,
          state: "scored",
          source: "WHOOP"
        }
      ]
    },
    activity: {
      score: 85,
      coverage: 0.95,
      calibrating: false,
      flags: [],
      factors: [
        {
          key: "steps",
          value: 6886,
          unit: "steps",
          reference: { kind: "target", value: 8000 },
          subScore: 97.3,
          weight: 0.25,
          effectiveWeight: 0.2632,
          pointsLost: 0.7,
          state: "scored",
          source: "Fitbit"
        },
        {
          key: "activeMinutes",
          value: 123,
          unit: "min",
          reference: { kind: "target", value: 150, days: 7 },
          subScore: 82,
          weight: 0.3,
          effectiveWeight: 0.3158,
          pointsLost: 5.7,
          state: "scored",
          source: "Fitbit"
        },
        {
          key: "sedentaryTime",
          value: 10.98,
          unit: "h",
          reference: { kind: "target", value: 8 },
          subScore: 42.8,
          weight: 0.15,
          effectiveWeight: 0.1579,
          pointsLost: 9,
          state: "scored",
          source: "Fitbit"
        },
        {
          key: "hourlyMovement",
          value: null,
          unit: "bouts",
          reference: { kind: "target", value: 1 },
          subScore: null,
          weight: 0.05,
          effectiveWeight: 0,
          pointsLost: 0,
          state: "unavailable",
          source: null
        },
        {
          key: "trainingBalance",
          value: 0.96,
          unit: "ratio",
          reference: { kind: "range", low: 0.8, high: 1.3, days: 28 },
          subScore: 100,
          weight: 0.15,
          effectiveWeight: 0.1579,
          pointsLost: 0,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "activeCalories",
          value: 415,
          unit: "kcal",
          reference: { kind: "target", value: 400 },
          subScore: 100,
          weight: 0.1,
          effectiveWeight: 0.1053,
          pointsLost: 0,
          state: "scored",
          source: "Fitbit"
        }
      ]
    },
    recovery: {
      score: 74,
      coverage: 1,
      calibrating: false,
      flags: [],
      factors: [
        {
          key: "hrv",
          value: 42.1,
          unit: "ms",
          reference: { kind: "baseline", value: 42.53, low: 40.82, high: 44.31, days: 60 },
          subScore: 54.7,
          weight: 0.35,
          effectiveWeight: 0.35,
          pointsLost: 15.8,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "restingHeartRate",
          value: 63,
          unit: "bpm",
          reference: { kind: "baseline", value: 62.8, days: 60 },
          subScore: 100,
          weight: 0.2,
          effectiveWeight: 0.2,
          pointsLost: 0,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "lastNightSleep",
          value: 60,
          unit: "points",
          reference: { kind: "target", value: 88 },
          subScore: 68.2,
          weight: 0.15,
          effectiveWeight: 0.15,
          pointsLost: 4.8,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "sleepDebt",
          value: 14.53,
          unit: "h",
          reference: { kind: "target", value: 0, days: 7 },
          subScore: 0,
          weight: 0.05,
          effectiveWeight: 0.05,
          pointsLost: 5,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "respiratoryRate",
          value: 15.5,
          unit: "br/min",
          reference: { kind: "baseline", value: 15.01, days: 60 },
          subScore: 100,
          weight: 0.075,
          effectiveWeight: 0.075,
          pointsLost: 0,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "skinTemperature",
          value: 33.46,
          unit: "\u00b0C",
          reference: { kind: "baseline", value: 33.62, days: 60 },
          subScore: 100,
          weight: 0.075,
          effectiveWeight: 0.075,
          pointsLost: 0,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "spo2",
          value: 96.9,
          unit: "%",
          reference: { kind: "range", low: 95, high: 100 },
          subScore: 100,
          weight: 0.05,
          effectiveWeight: 0.05,
          pointsLost: 0,
          state: "scored",
          source: "WHOOP"
        },
        {
          key: "trainingLoad",
          value: 0.97,
          unit: "ratio",
          reference: { kind: "range", low: 0.8, high: 1.3, days: 28 },
          subScore: 100,
          weight: 0.05,
          effectiveWeight: 0.05,
          pointsLost: 0,
          state: "scored",
          source: "WHOOP"
        }
      ]
    },
    overall: {
      score: 72,
      pillars: [
        { key: "sleep", score: 60, weight: 0.35, effectiveWeight: 0.35, pointsLost: 14 },
        { key: "recovery", score: 74, weight: 0.35, effectiveWeight: 0.35, pointsLost: 9.1 },
        { key: "activity", score: 85, weight: 0.3, effectiveWeight: 0.3, pointsLost: 4.5 }
      ]
    },
    algorithmVersion: "1.2"
  }
}
