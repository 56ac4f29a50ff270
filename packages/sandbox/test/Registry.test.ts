/**
 * The simulator registry: one entry per built-in provider, `makeSimulator` looking providers up
 * in it, and a caller's registry extended with a provider of its own.
 */
import { describe, expect, it } from "@effect/vitest"
import { providers } from "@pulsebridge/domain"
import type { SimulatorEntry } from "../src/index.js"
import { findSimulator, makeDexcomSimulator, makeSimulator, simulatorRegistry, simulatorSlugs } from "../src/index.js"
import { ManualClock, options } from "./simulatorHarness.js"

describe("simulator registry", () => {
  it("has one entry per domain provider, whose slug is the simulator's own", () => {
    expect(simulatorRegistry.map((entry) => entry.provider)).toEqual([...providers])
    for (const entry of simulatorRegistry) {
      const sim = entry.make(options(new ManualClock()))
      expect(sim.provider).toBe(entry.provider)
      expect(sim.slug).toBe(entry.slug)
      expect(simulatorSlugs[entry.provider as keyof typeof simulatorSlugs]).toBe(entry.slug)
    }
  })

  it("makeSimulator builds from an extended registry, and refuses a provider no registry entry names", () => {
    const acme: SimulatorEntry = {
      provider: "Acme",
      slug: "acme",
      // a stand-in simulator is enough to show the lookup; its name comes from the entry
      make: (opts) => ({ ...makeDexcomSimulator(opts), provider: "Acme", slug: "acme" })
    }
    const registry = [...simulatorRegistry, acme]
    expect(findSimulator("Acme")).toBeUndefined()
    expect(findSimulator("Acme", registry)).toBe(acme)
    expect(makeSimulator("Acme", options(new ManualClock()), registry).provider).toBe("Acme")
    expect(makeSimulator("WHOOP", options(new ManualClock()), registry).provider).toBe("WHOOP")
    expect(() => makeSimulator("Acme", options(new ManualClock()))).toThrow(/no simulator registered for provider Acme/)
  })
})
