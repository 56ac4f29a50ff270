/**
 * What every provider simulator builds on: its clock, base URL B, registered clients, state
 * cell, rate windows, pending faults and call log, and the control functions derived from them.
 */
import type {
  CallFilter,
  CallRecord,
  FaultSpec,
  PendingFault,
  SimulatedUser,
  SimulatorClient,
  SimulatorControl,
  SimulatorOptions
} from "./Options.js"
import { tokenFingerprint } from "./Random.js"
import { RateWindows } from "./RateWindows.js"
import { StateCell } from "./StateCell.js"
import { memoryStore } from "./Store.js"

const MAX_CALLS = 10_000

export const globToRegExp = (pattern: string): RegExp =>
  new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`)

/** What provider modules build on: clock, URLs, clients, state, faults and the call log. */
export class SimulatorCore<S> {
  readonly seed: string
  readonly now: () => Date
  readonly cell: StateCell<S>
  readonly rates: RateWindows
  private base: string
  private readonly clientSecrets: ReadonlyMap<string, string>
  private pending: Array<{ spec: FaultSpec; remaining: number; pattern: RegExp }> = []
  private log: Array<CallRecord> = []
  private seq = 0

  constructor(readonly provider: string, readonly slug: string, options: SimulatorOptions, fresh: () => S) {
    this.base = stripSlash(options.baseUrl)
    this.seed = options.seed ?? "pulsebridge"
    this.now = options.now ?? (() => new Date())
    this.rates = new RateWindows(options.rateLimits !== false)
    this.clientSecrets = new Map(options.clients.map((c) => [c.clientId, c.clientSecret]))
    this.cell = new StateCell(options.store ?? memoryStore(), provider, fresh)
  }

  get state(): S {
    return this.cell.state
  }
  commit(): void {
    this.cell.commit()
  }
  nowMs(): number {
    return this.now().getTime()
  }
  get baseUrl(): string {
    return this.base
  }
  setBaseUrl(url: string): void {
    this.base = stripSlash(url)
  }
  /** The path part of B (the mount prefix), `""` at the root. */
  get basePath(): string {
    try {
      return stripSlash(new URL(this.base).pathname)
    } catch {
      return ""
    }
  }
  /**
   * Where a client may have addressed B: as configured, and as the request's own Host with the
   * same prefix (a server reaching its sandbox through an internal address signs that URL).
   */
  baseCandidates(headers: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> {
    const host = headers["host"]
    if (host === undefined || host === "") return [this.base]
    const forwarded = headers["x-forwarded-proto"]?.split(",")[0]?.trim()
    const schemes = forwarded === "http" || forwarded === "https" ? [forwarded] : ["https", "http"]
    return [this.base, ...schemes.map((scheme) => `${scheme}://${host}${this.basePath}`)]
  }
  /** An absolute URL under B. */
  url(path: string, params?: Readonly<Record<string, string | number>>): string {
    const query = params === undefined ? "" : new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])
    ).toString()
    return `${this.base}${path}${query === "" ? "" : `?${query}`}`
  }
  clientSecret(clientId: string): string | undefined {
    return this.clientSecrets.get(clientId)
  }
  isClient(clientId: string | null | undefined): clientId is string {
    return clientId !== null && clientId !== undefined && this.clientSecrets.has(clientId)
  }
  /** The client given, else the first configured one (for helpers that act for "the" app). */
  client(clientId?: string): SimulatorClient {
    const id = clientId ?? this.clientSecrets.keys().next().value
    const secret = id === undefined ? undefined : this.clientSecrets.get(id)
    if (id === undefined || secret === undefined) {
      throw new Error(`unknown simulator client: ${clientId ?? "(none configured)"}`)
    }
    return { clientId: id, clientSecret: secret }
  }

  injectFault(spec: FaultSpec): void {
    const remaining = Math.max(1, Math.floor(spec.count ?? 1))
    this.pending.push({ spec, remaining, pattern: globToRegExp(spec.path) })
  }
  faults(): ReadonlyArray<PendingFault> {
    return this.pending.map((p) => ({ ...p.spec, remaining: p.remaining }))
  }
  clearFaults(): void {
    this.pending = []
  }
  /** Consumes one use of the first fault matching the request, if any. */
  takeFault(method: string, path: string): FaultSpec | undefined {
    const index = this.pending.findIndex((p) =>
      p.pattern.test(path) && (p.spec.method === undefined || p.spec.method.toUpperCase() === method)
    )
    if (index === -1) return undefined
    const found = this.pending[index]!
    found.remaining -= 1
    if (found.remaining <= 0) this.pending.splice(index, 1)
    return found.spec
  }

  record(call: Omit<CallRecord, "seq">): void {
    this.seq += 1
    this.log.push({ seq: this.seq, ...call })
    // benches make millions of calls; tests look at the recent ones
    if (this.log.length > MAX_CALLS) this.log.splice(0, this.log.length - MAX_CALLS)
  }
  calls(filter: CallFilter = {}): ReadonlyArray<CallRecord> {
    const pattern = filter.path === undefined ? undefined : globToRegExp(filter.path)
    const fp = filter.presented === undefined ? undefined : tokenFingerprint(filter.presented)
    return this.log.filter((c) =>
      (filter.method === undefined || c.method === filter.method.toUpperCase()) &&
      (pattern === undefined || pattern.test(c.path)) &&
      (filter.userId === undefined || c.userId === filter.userId) &&
      (filter.status === undefined || c.status === filter.status) &&
      (fp === undefined || Object.values(c.params).some((v) => v === fp || v.endsWith(`:${fp}`)))
    )
  }
  clearCalls(): void {
    this.log = []
  }
}

const stripSlash = (url: string): string => url.replace(/\/+$/, "")

/** The control functions every simulator has, given its own token operations. */
export const baseControl = <S>(
  core: SimulatorCore<S>,
  ops: {
    readonly resetGrants: () => void
    readonly expireAccessTokens: () => void
    readonly revokeUser: (providerUserId: string) => void
    readonly users: () => ReadonlyArray<SimulatedUser>
  }
): SimulatorControl => ({
  baseUrl: () => core.baseUrl,
  setBaseUrl: (url) => core.setBaseUrl(url),
  now: () => core.now(),
  injectFault: (spec) => core.injectFault(spec),
  faults: () => core.faults(),
  clearFaults: () => core.clearFaults(),
  calls: (filter) => core.calls(filter),
  clearCalls: () => core.clearCalls(),
  reset: (options) => {
    core.clearFaults()
    core.clearCalls()
    core.rates.clear()
    if (options?.keepGrants !== true) ops.resetGrants()
  },
  expireAccessTokens: ops.expireAccessTokens,
  revokeUser: ops.revokeUser,
  users: ops.users
})
