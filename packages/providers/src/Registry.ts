/**
 * The adapters by provider, as a service so the server can swap one for a fake in tests.
 */
import type { Provider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import type { ProviderAdapter, ProviderEndpoints } from "./Adapter.js"
import { DexcomAdapter } from "./Dexcom.js"
import { FitbitAdapter } from "./Fitbit.js"
import { GarminAdapter } from "./Garmin.js"
import { WhoopAdapter } from "./Whoop.js"

export const adapters: Readonly<Record<Provider, ProviderAdapter>> = {
  Fitbit: FitbitAdapter,
  Garmin: GarminAdapter,
  WHOOP: WhoopAdapter,
  Dexcom: DexcomAdapter
}

/** The registry over a set of adapters (the real ones unless a test says otherwise). */
export const makeRegistry = (byProvider: Readonly<Record<Provider, ProviderAdapter>> = adapters) => ({
  adapters: byProvider,
  get: (provider: Provider): ProviderAdapter => byProvider[provider],
  /** The production endpoints, before configuration points them at simulators or other regions. */
  defaultEndpoints: (provider: Provider): ProviderEndpoints => byProvider[provider].defaultEndpoints
})

export class ProviderRegistry extends Effect.Service<ProviderRegistry>()("@pulsebridge/providers/ProviderRegistry", {
  succeed: makeRegistry()
}) {}
