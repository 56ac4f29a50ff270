/**
 * The Fitbit plug-in, and everything of Fitbit the package exports.
 */
import type { ProviderPlugin } from "../Plugin.js"
import { FitbitAdapter } from "./Adapter.js"
import { fitbitCatalog } from "./Catalog.js"
import { FitbitData } from "./Data.js"
import { googleHealthSandboxKeyset } from "./Signature.js"
import { fitbitWebhooks } from "./Webhooks.js"

export const FitbitPlugin: ProviderPlugin<"Fitbit"> = {
  catalog: fitbitCatalog,
  adapter: FitbitAdapter,
  data: FitbitData,
  webhooks: fitbitWebhooks,
  sandboxSigningKeys: googleHealthSandboxKeyset,
  // Not in Google's reference; where open-source receivers of the live API read it (docs/providers/fitbit.md).
  signingKeysUrl: "https://www.gstatic.com/googlehealthapi/webhooks/webhooks_public_keyset.json"
}

export * from "./Adapter.js"
export * from "./Assemble.js"
export * from "./Catalog.js"
export * from "./Data.js"
export * from "./Normalise.js"
export * from "./Points.js"
export * from "./Signature.js"
export * from "./Webhooks.js"
