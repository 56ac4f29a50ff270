/**
 * The WHOOP plug-in, and everything of WHOOP the package exports.
 */
import type { ProviderPlugin } from "../Plugin.js"
import { WhoopAdapter } from "./Adapter.js"
import { whoopCatalog } from "./Catalog.js"
import { WhoopData } from "./Data.js"
import { whoopWebhooks } from "./Webhooks.js"

export const WhoopPlugin: ProviderPlugin<"WHOOP"> = {
  catalog: whoopCatalog,
  adapter: WhoopAdapter,
  data: WhoopData,
  webhooks: whoopWebhooks
}

export * from "./Adapter.js"
export * from "./Catalog.js"
export * from "./Data.js"
export * from "./Normalise.js"
export * from "./Webhooks.js"
