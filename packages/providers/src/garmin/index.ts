/**
 * The Garmin plug-in, and everything of Garmin the package exports.
 */
import type { ProviderPlugin } from "../Plugin.js"
import { GarminAdapter, GarminOAuth2Adapter } from "./Adapter.js"
import { garminCatalog } from "./Catalog.js"
import { GarminData } from "./Data.js"
import { garminWebhooks } from "./Webhooks.js"

export const GarminPlugin: ProviderPlugin<"Garmin"> = {
  catalog: garminCatalog,
  adapter: GarminAdapter,
  // Apps whose Garmin credentials are OAuth 2.0 ones connect (and move their OAuth 1.0a users) with this one.
  alternateAdapters: [GarminOAuth2Adapter],
  data: GarminData,
  webhooks: garminWebhooks
}

export * from "./Adapter.js"
export {
  activityExport as garminActivityExport,
  healthExport as garminHealthExport,
  historicalDataExport as garminHistoricalDataExport
} from "./Auth.js"
export * from "./Catalog.js"
export * from "./Data.js"
export * from "./Normalise.js"
export * from "./NormaliseActivities.js"
export * from "./NormaliseBodyComps.js"
export * from "./NormaliseRecovery.js"
export * from "./NormaliseSleeps.js"
export * from "./Summaries.js"
export * from "./Webhooks.js"
