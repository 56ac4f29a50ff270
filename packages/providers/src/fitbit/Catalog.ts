/**
 * Fitbit's catalogue entry: the listing, its rank among score sources (third for sleep-worn
 * sensors and load, second for daily activity), and its limits.
 */
import type { CatalogEntry } from "../Plugin.js"
import { FitbitData } from "./Data.js"

export const fitbitCatalog: CatalogEntry<"Fitbit"> = {
  name: "Fitbit",
  slug: "fitbit",
  authType: "OAuth2",
  logoUrl: null,
  supportedDataTypes: ["DailyActivity"],
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
    // per user and app, reset at the top of the hour
    rateLimits: [{ requests: 150, windowSeconds: 3600, per: "user" }]
  }
}
