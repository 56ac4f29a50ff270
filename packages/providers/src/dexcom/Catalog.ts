/**
 * Dexcom's catalogue entry: the listing and its limits. Glucose is no score input, so Dexcom
 * has no score priority.
 */
import type { CatalogEntry } from "../Plugin.js"
import { DexcomData } from "./Data.js"

export const dexcomCatalog: CatalogEntry<"Dexcom"> = {
  name: "Dexcom",
  slug: "dexcom",
  authType: "OAuth2",
  logoUrl: null,
  supportedDataTypes: ["GlucoseReading", "GlucoseEvent", "GlucoseCalibration"],
  // its API serves readings about 1 hour late in the US and 3 hours elsewhere
  dataDelayHours: 3,
  scorePriority: {},
  limits: {
    maxBackfillDays: DexcomData.maxBackfillDays,
    windowDays: DexcomData.windowDays,
    rateLimits: [{ requests: 60_000, windowSeconds: 3600, per: "app" }]
  }
}
