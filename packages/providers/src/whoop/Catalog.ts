/**
 * WHOOP's catalogue entry: the listing, its rank among score sources (first for sleep-worn
 * sensors and load; last for steps and active minutes, which it only has from workouts), and
 * its limits.
 */
import type { CatalogEntry } from "../Plugin.js"
import { WhoopData } from "./Data.js"

export const whoopCatalog: CatalogEntry<"WHOOP"> = {
  name: "WHOOP",
  slug: "whoop",
  authType: "OAuth2",
  logoUrl: null,
  supportedDataTypes: [
    "Sleep",
    "ActivitySession",
    "Recovery",
    "ActivityLoadDaily",
    "ProfileSnapshot",
    "BodyMeasurementSnapshot"
  ],
  // a cycle ends when the member falls asleep and is scored when they wake, the next morning
  dataDelayHours: 12,
  scorePriority: {
    sleep: 0,
    hrv: 0,
    restingHeartRate: 0,
    skinTemperature: 0,
    spo2: 0,
    steps: 2,
    activeMinutes: 2,
    trainingLoad: 0
  },
  limits: {
    maxBackfillDays: WhoopData.maxBackfillDays,
    windowDays: WhoopData.windowDays,
    // per app, shared by all its users
    rateLimits: [
      { requests: 100, windowSeconds: 60, per: "app" },
      { requests: 10_000, windowSeconds: 86_400, per: "app" }
    ]
  }
}
