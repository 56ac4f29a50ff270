/**
 * Choosing a simulator by provider: `makeSimulator(provider, options)` and the endpoints an
 * adapter should be configured with to talk to one (all three are the simulator's B).
 */
import type { Provider } from "@pulsebridge/domain"
import type { Simulator, SimulatorOptions, SimulatorSlug } from "./core/Options.js"
import type { DexcomSimulator } from "./dexcom/Simulator.js"
import { makeDexcomSimulator } from "./dexcom/Simulator.js"
import type { FitbitSimulator } from "./fitbit/Simulator.js"
import { makeFitbitSimulator } from "./fitbit/Simulator.js"
import type { GarminSimulator } from "./garmin/Simulator.js"
import { makeGarminSimulator } from "./garmin/Simulator.js"
import type { WhoopSimulator } from "./whoop/Simulator.js"
import { makeWhoopSimulator } from "./whoop/Simulator.js"

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
