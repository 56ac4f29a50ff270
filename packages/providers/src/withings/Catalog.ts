/**
 * Withings' catalogue entry: the listing, its rank among score sources, and its limits. Withings is a scale and an
 * under-mattress sleep mat first: its sleep (staged, with heart and breathing rates) ranks with Fitbit's; its steps,
 * active minutes and active energy (from the Withings app on the phone or a watch) come after every wrist-first
 * provider's. It reports no sedentary time, HRV, SpO2 or skin temperature a score could use.
 */
import type { CatalogEntry } from "../Plugin.js"
import { WithingsData } from "./Data.js"

export const withingsCatalog: CatalogEntry<"Withings"> = {
  name: "Withings",
  slug: "withings",
  authType: "OAuth2",
  logoUrl: null,
  // beyond the service contract's four: listed outside sandbox mode only where an app configured it
  listedWhenConfigured: true,
  supportedDataTypes: ["DailyActivity", "Sleep", "ActivitySession", "BodyMeasurementSnapshot"],
  // devices sync through the Withings app (a scale and a sleep mat over Wi-Fi, soon after the measure)
  dataDelayHours: 12,
  scorePriority: {
    sleep: 2,
    steps: 3,
    activeMinutes: 3,
    activeCalories: 3
  },
  limits: {
    maxBackfillDays: WithingsData.maxBackfillDays,
    windowDays: WithingsData.windowDays,
    // the free plan's limit, for the whole app ("Keep user's data up to date": 120 requests per minute)
    rateLimits: [{ requests: 120, windowSeconds: 60, per: "app" }]
  }
}
