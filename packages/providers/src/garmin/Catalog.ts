/**
 * Garmin's catalogue entry: the listing, its rank among score sources (first for daily activity,
 * second after WHOOP for sleep-worn sensors and load), and its limits.
 */
import type { CatalogEntry } from "../Plugin.js"
import { GarminData } from "./Data.js"

export const garminCatalog: CatalogEntry<"Garmin"> = {
  name: "Garmin",
  slug: "garmin",
  authType: "OAuth1",
  logoUrl: null,
  supportedDataTypes: ["DailyActivity", "Sleep", "ActivitySession", "Recovery", "BodyMeasurementSnapshot"],
  // the watch uploads the full day after midnight, at its first sync through the phone
  dataDelayHours: 12,
  scorePriority: {
    sleep: 1,
    hrv: 1,
    restingHeartRate: 1,
    skinTemperature: 1,
    spo2: 1,
    steps: 0,
    activeMinutes: 0,
    sedentaryTime: 0,
    activeCalories: 0,
    trainingLoad: 1
  },
  limits: {
    maxBackfillDays: GarminData.maxBackfillDays,
    windowDays: GarminData.windowDays,
    // Garmin publishes none (evaluation keys are limited, production keys are granted on review);
    // a 429 is honoured like any other provider's.
    rateLimits: []
  }
}
