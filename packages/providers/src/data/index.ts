/**
 * How each provider's data is fetched and normalised into canonical records.
 */
import type { Provider } from "@pulsebridge/domain"
import type { ProviderData } from "../Canonical.js"
import { DexcomData } from "./Dexcom.js"
import { FitbitData } from "./Fitbit.js"
import { GarminData } from "./Garmin.js"
import { WhoopData } from "./Whoop.js"

export const dataSources: Readonly<Record<Provider, ProviderData>> = {
  Fitbit: FitbitData,
  Garmin: GarminData,
  WHOOP: WhoopData,
  Dexcom: DexcomData
}

export * from "./Dexcom.js"
export * from "./Fitbit.js"
export * from "./Garmin.js"
export * from "./Whoop.js"
