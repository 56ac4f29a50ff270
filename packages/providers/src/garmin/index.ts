/**
 * The Garmin plug-in, and everything of Garmin the package exports.
 */
import type { ProviderPlugin } from "../Plugin.js"
import { GarminAdapter } from "./Adapter.js"
import { garminCatalog } from "./Catalog.js"
import { GarminData } from "./Data.js"
import { garminWebhooks } from "./Webhooks.js"

export const GarminPlugin: ProviderPlugin<"Garmin"> = {
  catalog: garminCatalog,
  adapter: GarminAdapter,
  data: GarminData,
  webhooks: garminWebhooks
}

export * from "./Adapter.js"
export * from "./Catalog.js"
export * from "./Data.js"
export * from "./Normalise.js"
export * from "./Webhooks.js"
