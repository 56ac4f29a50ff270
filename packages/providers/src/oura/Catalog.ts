/**
 * Oura's catalogue entry: the listing, its rank among score sources (a ring worn at night: as good a source of
 * sleep, HRV, resting heart rate, skin temperature and SpO2 as WHOOP; its steps are estimated from a finger's
 * movement, so it comes after the wrist and hip devices for activity), and its limits.
 */
import type { CatalogEntry } from "../Plugin.js"
import { OuraData } from "./Data.js"

export const ouraCatalog: CatalogEntry<"Oura"> = {
  name: "Oura",
  slug: "oura",
  authType: "OAuth2",
  logoUrl: null,
  // beyond the service contract's four: listed outside sandbox mode only where an app configured it
  listedWhenConfigured: true,
  supportedDataTypes: ["DailyActivity", "Sleep", "ActivitySession", "Recovery", "BodyMeasurementSnapshot"],
  // the ring syncs through the phone when the app is opened, usually in the morning; readiness follows the sync
  dataDelayHours: 12,
  scorePriority: {
    sleep: 0,
    hrv: 0,
    restingHeartRate: 0,
    skinTemperature: 0,
    spo2: 0,
    steps: 3,
    activeMinutes: 3,
    sedentaryTime: 3,
    activeCalories: 3
  },
  limits: {
    maxBackfillDays: OuraData.maxBackfillDays,
    windowDays: OuraData.windowDays,
    // Oura documents 5,000 requests a day and 300 a minute; they count per access token, that is per user
    // (public clients and integrators report a further per-app limit whose size Oura does not publish)
    rateLimits: [
      { requests: 5000, windowSeconds: 86_400, per: "user" },
      { requests: 300, windowSeconds: 60, per: "user" }
    ]
  }
}
