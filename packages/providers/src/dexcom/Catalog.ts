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
  scorePriority: {},
  limits: {
    maxBackfillDays: DexcomData.maxBackfillDays,
    windowDays: DexcomData.windowDays,
    rateLimits: [{ requests: 60_000, windowSeconds: 3600, per: "app" }]
  }
}
