/**
 * Choosing a simulator by provider: `makeSimulator(provider, options)` and the endpoints an
 * adapter should be configured with to talk to one (all three are the simulator's B).
 */
import type { Provider } from "@pulsebridge/domain"
import type { Simulator, SimulatorOptions, SimulatorSlug } from "./Core.js"
import type { DexcomSimulator } from "./Dexcom.js"
import { makeDexcomSimulator } from "./Dexcom.js"
import type { FitbitSimulator } from "./Fitbit.js"
import { makeFitbitSimulator } from "./Fitbit.js"
import type { GarminSimulator } from "./Garmin.js"
import { makeGarminSimulator } from "./Garmin.js"
import type { WhoopSimulator } from "./Whoop.js"
import { makeWhoopSimulator } from "./Whoop.js"

export type SimulatorFor<P extends Provider> = P extends "Fitbit" ? FitbitSimulator
  : P extends "Garmin" ? GarminSimulator
  : P extends "WHOOP" ? WhoopSimulator
  : DexcomSimulator

export const simulatorSlugs: Readonly<Record<Provider, SimulatorSlug>> = {
  Fitbit: "fitbit",
  Garmin: "garmin",
  WHOOP: "whoop",
  Dexcom: "dexcom"
}

export const makeSimulator = <P extends Provider>(provider: P, options: SimulatorOptions): SimulatorFor<P> => {
  const make: Record<Provider, (options: SimulatorOptions) => Simulator<any>> = {
    Fitbit: makeFitbitSimulator,
    Garmin: makeGarminSimulator,
    WHOOP: makeWhoopSimulator,
    Dexcom: makeDexcomSimulator
  }
  return make[provider](options) as SimulatorFor<P>
}

/** The adapter endpoints for a simulator (a `ProviderEndpoints` of @pulsebridge/providers). */
export const simulatorEndpoints = (sim: Simulator<any>) => ({
  authBaseUrl: sim.baseUrl,
  tokenBaseUrl: sim.baseUrl,
  apiBaseUrl: sim.baseUrl
})
