/**
 * The Withings plug-in, and everything of Withings the package exports.
 */
import type { ProviderPlugin } from "../Plugin.js"
import { WithingsAdapter } from "./Adapter.js"
import { withingsCatalog } from "./Catalog.js"
import { WithingsData } from "./Data.js"
import { withingsWebhooks } from "./Webhooks.js"

export const WithingsPlugin: ProviderPlugin<"Withings"> = {
  catalog: withingsCatalog,
  adapter: WithingsAdapter,
  data: WithingsData,
  webhooks: withingsWebhooks
}

export * from "./Adapter.js"
export * from "./Catalog.js"
export * from "./Data.js"
export * from "./Normalise.js"
export * from "./Status.js"
export * from "./Time.js"
export * from "./Webhooks.js"
