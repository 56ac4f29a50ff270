/**
 * Fitbit's catalogue entry (its data comes through the Google Health API): the listing, its rank
 * among score sources (third for sleep-worn sensors and load, second for daily activity), and
 * its limits.
 */
import type { CatalogEntry } from "../Plugin.js"
import { FitbitData } from "./Data.js"

export const fitbitCatalog: CatalogEntry<"Fitbit"> = {
  name: "Fitbit",
  slug: "fitbit",
  authType: "OAuth2",
  logoUrl: null,
  supportedDataTypes: ["DailyActivity", "Sleep", "ActivitySession", "Recovery", "BodyMeasurementSnapshot"],
  // the tracker sends the end of a day at its first sync through the phone, usually the next morning
  dataDelayHours: 12,
  scorePriority: {
    sleep: 2,
    hrv: 2,
    restingHeartRate: 2,
    skinTemperature: 2,
    spo2: 2,
    steps: 1,
    activeMinutes: 1,
    sedentaryTime: 1,
    activeCalories: 1,
    trainingLoad: 2
  },
  limits: {
    maxBackfillDays: FitbitData.maxBackfillDays,
    windowDays: FitbitData.windowDays,
    // Google Health API defaults: 300 requests a minute per user, 120,000 a minute per project
    rateLimits: [{ requests: 300, windowSeconds: 60, per: "user" }, {
      requests: 120_000,
      windowSeconds: 60,
      per: "app"
    }]
  }
}
