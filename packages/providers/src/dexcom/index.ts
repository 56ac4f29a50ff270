/**
 * The Dexcom plug-in, and everything of Dexcom the package exports. Dexcom never pushes: no
 * webhook receiver.
 */
import type { ProviderPlugin } from "../Plugin.js"
import { DexcomAdapter } from "./Adapter.js"
import { dexcomCatalog } from "./Catalog.js"
import { DexcomData } from "./Data.js"

export const DexcomPlugin: ProviderPlugin<"Dexcom"> = {
  catalog: dexcomCatalog,
  adapter: DexcomAdapter,
  data: DexcomData
}

export * from "./Adapter.js"
export * from "./Catalog.js"
export * from "./Data.js"
export * from "./Normalise.js"
export * from "./Time.js"
