/**
 * A simulator's persisted state: loaded from its store once, written back in a versioned
 * envelope on every commit, so grants made in the sandbox survive a restart and a store written
 * by another provider or an older format is ignored rather than misread.
 */
import type { SimulatorStore } from "./Store.js"

interface Envelope {
  readonly format: "pulsebridge-simulator"
  readonly provider: string
  readonly version: number
  readonly state: unknown
}

const STATE_VERSION = 1

/** The simulator's state, loaded from the store once and written back on every commit. */
export class StateCell<S> {
  private current: S
  constructor(
    private readonly store: SimulatorStore,
    private readonly provider: string,
    private readonly fresh: () => S
  ) {
    const loaded = store.get() as Envelope | undefined
    this.current = loaded !== undefined && loaded !== null && loaded.format === "pulsebridge-simulator" &&
        loaded.provider === provider && loaded.version === STATE_VERSION
      ? loaded.state as S
      : fresh()
  }
  get state(): S {
    return this.current
  }
  commit(): void {
    const envelope: Envelope = {
      format: "pulsebridge-simulator",
      provider: this.provider,
      version: STATE_VERSION,
      state: this.current
    }
    this.store.set(envelope)
  }
  reset(): void {
    this.current = this.fresh()
    this.commit()
  }
}
