/**
 * The simulator registry: one entry per provider (`{ provider, slug, make }`), how
 * `makeSimulator(provider, options)` finds the simulator to build, and the endpoints an adapter
 * should be configured with to talk to one (all three are the simulator's B).
 *
 * Entries name their provider with a plain string, so a caller can pass a registry extended with
 * a provider of its own (a plug-in, or a test's fake); `makeSimulator` still returns the precise
 * simulator type for the four built in.
 */
import type { BuiltinProvider } from "@pulsebridge/domain"
import type { Simulator, SimulatorControl, SimulatorOptions, SimulatorSlug } from "./core/Options.js"
import type { DexcomSimulator } from "./dexcom/Simulator.js"
import { makeDexcomSimulator } from "./dexcom/Simulator.js"
import type { FitbitSimulator } from "./fitbit/Simulator.js"
import { makeFitbitSimulator } from "./fitbit/Simulator.js"
import type { GarminSimulator } from "./garmin/Simulator.js"
import { makeGarminSimulator } from "./garmin/Simulator.js"
import type { OuraSimulator } from "./oura/Simulator.js"
import { makeOuraSimulator } from "./oura/Simulator.js"
import type { WhoopSimulator } from "./whoop/Simulator.js"
import { makeWhoopSimulator } from "./whoop/Simulator.js"
import type { WithingsSimulator } from "./withings/Simulator.js"
import { makeWithingsSimulator } from "./withings/Simulator.js"

/** One provider's simulator: its provider name, the path segment it is mounted under, its factory. */
export interface SimulatorEntry {
  readonly provider: string
  readonly slug: string
  readonly make: (options: SimulatorOptions) => Simulator<SimulatorControl>
}

export type SimulatorRegistry = ReadonlyArray<SimulatorEntry>

/** The simulators of the built-in providers; adding a provider adds one line. */
export const simulatorRegistry: SimulatorRegistry = [
  { provider: "Fitbit", slug: "fitbit", make: makeFitbitSimulator },
  { provider: "Garmin", slug: "garmin", make: makeGarminSimulator },
  { provider: "WHOOP", slug: "whoop", make: makeWhoopSimulator },
  { provider: "Dexcom", slug: "dexcom", make: makeDexcomSimulator },
  { provider: "Oura", slug: "oura", make: makeOuraSimulator },
  { provider: "Withings", slug: "withings", make: makeWithingsSimulator }
]

export type SimulatorFor<P extends BuiltinProvider> = P extends "Fitbit" ? FitbitSimulator
  : P extends "Garmin" ? GarminSimulator
  : P extends "WHOOP" ? WhoopSimulator
  : P extends "Oura" ? OuraSimulator
  : P extends "Withings" ? WithingsSimulator
  : DexcomSimulator

/** The registry entry for `provider`, if it has one. */
export const findSimulator = (
  provider: string,
  registry: SimulatorRegistry = simulatorRegistry
): SimulatorEntry | undefined => registry.find((entry) => entry.provider === provider)

/** The built-in providers' slugs, as the registry gives them. */
export const simulatorSlugs: Readonly<Record<BuiltinProvider, SimulatorSlug>> = Object.fromEntries(
  simulatorRegistry.map((entry) => [entry.provider, entry.slug])
) as Record<BuiltinProvider, SimulatorSlug>

/**
 * Builds the simulator of `provider` from `registry` (default: the built-in one). A provider the
 * registry does not know is a programming error in the caller, so it throws rather than fails.
 */
export function makeSimulator<P extends BuiltinProvider>(
  provider: P,
  options: SimulatorOptions,
  registry?: SimulatorRegistry
): SimulatorFor<P>
export function makeSimulator(
  provider: string,
  options: SimulatorOptions,
  registry?: SimulatorRegistry
): Simulator<SimulatorControl>
export function makeSimulator(
  provider: string,
  options: SimulatorOptions,
  registry: SimulatorRegistry = simulatorRegistry
): Simulator<SimulatorControl> {
  const entry = findSimulator(provider, registry)
  if (entry === undefined) throw new Error(`no simulator registered for provider ${provider}`)
  return entry.make(options)
}

/** The adapter endpoints for a simulator (a `ProviderEndpoints` of @pulsebridge/providers). */
export const simulatorEndpoints = (sim: Simulator<any>) => ({
  authBaseUrl: sim.baseUrl,
  tokenBaseUrl: sim.baseUrl,
  apiBaseUrl: sim.baseUrl
})
