/**
 * The provider-keyed records the server read before providers became plug-ins, kept so that
 * code not yet moved to the `ProviderRegistry` compiles and behaves as before. Each is derived
 * from the built-in plug-ins; none holds anything of its own.
 */
import type { Provider } from "@pulsebridge/domain"
import { ProviderInfo } from "@pulsebridge/domain"
import type { ProviderAdapter } from "./Adapter.js"
import type { ProviderData } from "./Canonical.js"
import type { CatalogEntry, ProviderPlugin } from "./Plugin.js"
import { builtinPlugins } from "./Registry.js"

/** A catalogue entry as the service contract lists it (`GET /providers`). */
export const toProviderInfo = (entry: CatalogEntry<Provider>): ProviderInfo =>
  new ProviderInfo({
    name: entry.name,
    slug: entry.slug,
    authType: entry.authType,
    logoUrl: entry.logoUrl,
    supportedDataTypes: entry.supportedDataTypes
  })

const byProvider = <A>(of: (plugin: ProviderPlugin<Provider>) => A): Readonly<Record<Provider, A>> => {
  const [fitbit, garmin, whoop, dexcom] = builtinPlugins
  return { Fitbit: of(fitbit), Garmin: of(garmin), WHOOP: of(whoop), Dexcom: of(dexcom) }
}

/** @deprecated Use `ProviderRegistry` (`registry.get(name)`) or `builtinPlugins`. */
export const adapters: Readonly<Record<Provider, ProviderAdapter>> = byProvider((plugin) => plugin.adapter)

/** @deprecated Use the plug-in's `data` (`registry.plugin(name).data`). */
export const dataSources: Readonly<Record<Provider, ProviderData>> = byProvider((plugin) => plugin.data)

/** @deprecated Use the plug-in's `catalog` (and `toProviderInfo` for the contract's listing). */
export const catalog: Readonly<Record<Provider, ProviderInfo>> = byProvider((plugin) => toProviderInfo(plugin.catalog))

/** @deprecated Use `registry.plugins` (listing order). */
export const providerOrder: ReadonlyArray<Provider> = builtinPlugins.map((plugin) => plugin.catalog.name)
