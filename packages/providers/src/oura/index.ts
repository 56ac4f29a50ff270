/**
 * The Oura plug-in, and everything of Oura the package exports.
 */
import type { ProviderPlugin } from "../Plugin.js"
import { OuraAdapter } from "./Adapter.js"
import { ouraCatalog } from "./Catalog.js"
import { OuraData } from "./Data.js"
import { ouraWebhooks } from "./Webhooks.js"

export const OuraPlugin: ProviderPlugin<"Oura"> = {
  catalog: ouraCatalog,
  adapter: OuraAdapter,
  data: OuraData,
  webhooks: ouraWebhooks
}

export * from "./Adapter.js"
export * from "./Catalog.js"
export * from "./Data.js"
export * from "./Normalise.js"
export * from "./NormaliseRecovery.js"
export * from "./Subscriptions.js"
export * from "./Webhooks.js"
