/**
 * The provider registry: the plug-ins the server knows, by name and by slug, as a service so
 * tests and deployments can register other plug-ins (a fake, or a provider the domain does not
 * list yet). The built-in plug-ins are listed here, one line each, in listing order.
 */
import type { Provider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ProviderAdapter, ProviderEndpoints } from "./Adapter.js"
import { DexcomPlugin } from "./dexcom/index.js"
import { FitbitPlugin } from "./fitbit/index.js"
import { GarminPlugin } from "./garmin/index.js"
import { OuraPlugin } from "./oura/index.js"
import type { ProviderPlugin, ScoreInput } from "./Plugin.js"
import { scoreOrder } from "./Plugin.js"
import { WhoopPlugin } from "./whoop/index.js"
import { WithingsPlugin } from "./withings/index.js"

/** The providers PulseBridge ships, in listing order. */
export const builtinPlugins = [
  FitbitPlugin,
  GarminPlugin,
  WhoopPlugin,
  DexcomPlugin,
  OuraPlugin,
  WithingsPlugin
] as const satisfies ReadonlyArray<ProviderPlugin<Provider>>

export interface Registry {
  /** Every plug-in, in listing order. */
  readonly plugins: ReadonlyArray<ProviderPlugin>
  readonly find: (name: string) => Option.Option<ProviderPlugin>
  readonly bySlug: (slug: string) => Option.Option<ProviderPlugin>
  /** The plug-in of a provider the caller knows is registered; an unknown name is a defect. */
  readonly plugin: (name: string) => ProviderPlugin
  /** The adapter of a registered provider; an unknown name is a defect. */
  readonly get: (name: string) => ProviderAdapter
  /** The production endpoints, before configuration points them at simulators or other regions. */
  readonly defaultEndpoints: (name: string) => ProviderEndpoints
  /** The adapters by provider name. */
  readonly adapters: Readonly<Record<string, ProviderAdapter>>
  /** The providers that are a source of a score input, best first. */
  readonly scoreOrder: (input: ScoreInput) => ReadonlyArray<string>
}

/**
 * The registry over a list of plug-ins (the built-in ones unless a test or deployment says
 * otherwise). Two plug-ins with one name or one slug, or an adapter that names another provider
 * than its catalogue entry, are refused: each would route one provider's traffic to another.
 */
export const makeRegistry = (plugins: ReadonlyArray<ProviderPlugin> = builtinPlugins): Registry => {
  const byName = new Map<string, ProviderPlugin>()
  const bySlug = new Map<string, ProviderPlugin>()
  for (const plugin of plugins) {
    const { name, slug } = plugin.catalog
    if (byName.has(name)) throw new Error(`Two provider plug-ins are named ${name}`)
    if (bySlug.has(slug)) throw new Error(`Two provider plug-ins have the slug ${slug}`)
    for (const adapter of [plugin.adapter, ...(plugin.alternateAdapters ?? [])]) {
      if (adapter.provider !== name) throw new Error(`The ${name} plug-in's adapter is for ${adapter.provider}`)
    }
    byName.set(name, plugin)
    bySlug.set(slug, plugin)
  }
  const plugin = (name: string): ProviderPlugin => {
    const found = byName.get(name)
    if (found === undefined) throw new Error(`No provider plug-in is named ${name}`)
    return found
  }
  return {
    plugins,
    find: (name) => Option.fromNullable(byName.get(name)),
    bySlug: (slug) => Option.fromNullable(bySlug.get(slug)),
    plugin,
    get: (name) => plugin(name).adapter,
    defaultEndpoints: (name) => plugin(name).adapter.defaultEndpoints,
    adapters: Object.fromEntries(plugins.map((p) => [p.catalog.name, p.adapter])),
    scoreOrder: (input) => scoreOrder(plugins, input)
  }
}

export class ProviderRegistry extends Effect.Service<ProviderRegistry>()("@pulsebridge/providers/ProviderRegistry", {
  succeed: makeRegistry()
}) {}
