/**
 * The machinery every provider simulator shares: options and the `Simulator` shape, the
 * per-request context handed to routes, persisted state, the fault knobs and call log (both
 * programmatic and under `B/_sim/...`), the consent and error pages, and serving an app on a
 * loopback port. Provider behaviour lives in the provider modules.
 */
import type { HttpApp } from "@effect/platform"
import { HttpClient, HttpClientRequest, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import type { Provider } from "@pulsebridge/domain"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { tokenFingerprint } from "./Random.js"
import type { SimulatorStore } from "./Store.js"
import { memoryStore } from "./Store.js"

// ---- options and shapes ----

/** An app registered at the simulated provider (for Garmin: consumer key and secret). */
export interface SimulatorClient {
  readonly clientId: string
  readonly clientSecret: string
}

export interface SimulatorOptions {
  /** The simulator's public base URL B (origin plus mount prefix, no trailing slash needed). */
  readonly baseUrl: string
  readonly clients: ReadonlyArray<SimulatorClient>
  /** Seeds the synthetic data; the same seed, user and date give the same values everywhere. */
  readonly seed?: string | undefined
  readonly store?: SimulatorStore | undefined
  /** The simulator's clock: token expiry, code lifetime, rate windows, "today" of the data. */
  readonly now?: (() => Date) | undefined
  /**
   * `false` keeps counting and sending the rate-limit headers but never answers 429 on its own
   * (benches); the `rateLimit` fault still works. Default `true`.
   */
  readonly rateLimits?: boolean | undefined
}

export type SimulatorSlug = "fitbit" | "garmin" | "whoop" | "dexcom"

export type FaultKind = "rateLimit" | "serverError" | "slow" | "expiredToken" | "malformedJson"

/**
 * Makes the next `count` (default 1) requests whose path (relative to B, no query) matches
 * `path` misbehave. `*` in `path` matches any run of characters; `"*"` alone matches all.
 * `slow` delays by `delayMs` then answers normally; `malformedJson` runs the request (side
 * effects included) and cuts the body in half with status 200.
 */
export interface FaultSpec {
  readonly path: string
  readonly kind: FaultKind
  readonly method?: string | undefined
  readonly count?: number | undefined
  readonly retryAfterSeconds?: number | undefined
  readonly delayMs?: number | undefined
}

export interface PendingFault extends FaultSpec {
  readonly remaining: number
}

/**
 * One request seen by the simulator. Secrets never appear: tokens, codes and verifiers are
 * replaced by `tokenFingerprint(value)`, client secrets and PKCE verifiers are dropped. The
 * `auth` param names the credential kind: `basic:<clientId>`, `bearer:<fingerprint>`, `oauth1:<consumerKey>`.
 */
export interface CallRecord {
  readonly seq: number
  readonly time: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly params: Readonly<Record<string, string>>
  readonly clientId?: string | undefined
  readonly userId?: string | undefined
  readonly fault?: FaultKind | undefined
}

export interface CallFilter {
  readonly method?: string | undefined
  /** Same pattern syntax as `FaultSpec.path`. */
  readonly path?: string | undefined
  /** A raw token, code or verifier: matches calls where it was presented (by fingerprint). */
  readonly presented?: string | undefined
  readonly userId?: string | undefined
  readonly status?: number | undefined
}

export interface SimulatedUser {
  readonly userId: string
  readonly name: string
}

/** What tests and the sandbox can do to a running simulator besides calling it like a provider. */
export interface SimulatorControl {
  /** The current B; `serveSimulator` rebinds it to the address it listens on. */
  readonly baseUrl: () => string
  readonly setBaseUrl: (baseUrl: string) => void
  readonly now: () => Date
  readonly injectFault: (fault: FaultSpec) => void
  readonly faults: () => ReadonlyArray<PendingFault>
  readonly clearFaults: () => void
  readonly calls: (filter?: CallFilter) => ReadonlyArray<CallRecord>
  readonly clearCalls: () => void
  /** Back to a fresh simulator: faults, calls, rate counters and (unless `keepGrants`) every grant. */
  readonly reset: (options?: { readonly keepGrants?: boolean | undefined }) => void
  /** Makes every access token issued so far expired (Garmin tokens do not expire: no-op there). */
  readonly expireAccessTokens: () => void
  /** Revokes everything issued to the provider user, for every client. */
  readonly revokeUser: (providerUserId: string) => void
  readonly users: () => ReadonlyArray<SimulatedUser>
}

/**
 * A simulated provider. Serve `app` (or mount it: `HttpRouter.mountApp(prefix, sim.app)`, or
 * `HttpRouter.mount(prefix, sim.router)`) with the prefix stripped, the default for both. Every
 * absolute URL it produces starts with `baseUrl`.
 */
export interface Simulator<C extends SimulatorControl = SimulatorControl> {
  readonly provider: Provider
  readonly slug: SimulatorSlug
  readonly app: HttpApp.Default
  readonly router: HttpRouter.HttpRouter
  /** The current B (getter). */
  readonly baseUrl: string
  readonly control: C
}

// ---- the request as routes see it ----

export interface SimRequestShape {
  readonly method: string
  /** Path relative to B, without the query. */
  readonly path: string
  /** The query as received, without `?`. */
  readonly rawQuery: string
  readonly query: URLSearchParams
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  /** The form body when the request has one, else empty. */
  readonly form: URLSearchParams
  /** Adds who the call was for to its call-log record. */
  readonly identify: (who: { readonly clientId?: string | undefined; readonly userId?: string | undefined }) => void
}

export class SimRequest extends Context.Tag("@pulsebridge/sandbox/core/SimRequest")<
  SimRequest,
  SimRequestShape
>() {}

export type RouteHandler = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  SimRequest | HttpRouter.RouteContext
>

/** A route handler from a function of the request and path params. */
export const handle = (
  f: (
    req: SimRequestShape,
    params: Readonly<Record<string, string | undefined>>
  ) => HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>
): RouteHandler =>
  Effect.gen(function*() {
    const req = yield* SimRequest
    const params = yield* HttpRouter.params
    const out = f(req, params)
    return Effect.isEffect(out) ? yield* out : out
  })

/** How a provider words its errors. */
export interface ProviderStyle {
  readonly error: (status: number, code: string, message: string) => HttpServerResponse.HttpServerResponse
  /** What an expired access token gets (the `expiredToken` fault). */
  readonly expiredToken: (req: SimRequestShape) => HttpServerResponse.HttpServerResponse
  readonly rateLimited: (retryAfterSeconds: number) => HttpServerResponse.HttpServerResponse
}

// ---- persisted state ----

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

// ---- fixed-window rate counters ----

export interface WindowHit {
  readonly count: number
  readonly remaining: number
  /** Seconds until the window resets (at least 1). */
  readonly resetSeconds: number
  readonly limited: boolean
}

/** Counters for windows aligned to multiples of their length (Fitbit resets at the top of the hour). */
export class RateWindows {
  private readonly windows = new Map<string, { start: number; count: number }>()
  constructor(private readonly enforce = true) {}
  hit(key: string, windowMs: number, limit: number, nowMs: number): WindowHit {
    const start = Math.floor(nowMs / windowMs) * windowMs
    const current = this.windows.get(key)
    const entry = current !== undefined && current.start === start ? current : { start, count: 0 }
    entry.count += 1
    this.windows.set(key, entry)
    return {
      count: entry.count,
      remaining: Math.max(0, limit - entry.count),
      resetSeconds: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)),
      limited: this.enforce && entry.count > limit
    }
  }
  clear(): void {
    this.windows.clear()
  }
}

// ---- core ----

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

  constructor(readonly provider: Provider, readonly slug: SimulatorSlug, options: SimulatorOptions, fresh: () => S) {
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

// ---- the call log's view of a request ----

const fingerprinted = new Set(["code", "refresh_token", "access_token", "token", "oauth_token", "oauth_verifier"])
const dropped = new Set(["client_secret", "code_verifier", "oauth_signature", "oauth_token_secret", "password"])

/** The params worth logging: query, form and credentials, secrets fingerprinted or dropped. */
export const describeParams = (
  query: URLSearchParams,
  form: URLSearchParams,
  authorization: string | undefined
): Record<string, string> => {
  const out: Record<string, string> = {}
  const add = (key: string, value: string) => {
    if (dropped.has(key)) return
    out[key] = fingerprinted.has(key) ? tokenFingerprint(value) : value.length > 200 ? `${value.slice(0, 200)}…` : value
  }
  query.forEach((value, key) => add(key, value))
  form.forEach((value, key) => add(key, value))
  if (authorization !== undefined) {
    const [scheme = "", rest = ""] = splitOnce(authorization.trim(), " ")
    switch (scheme.toLowerCase()) {
      case "basic": {
        const basic = parseBasic(authorization)
        out["auth"] = basic === undefined ? "basic:?" : `basic:${basic.id}`
        break
      }
      case "bearer":
        out["auth"] = `bearer:${tokenFingerprint(rest.trim())}`
        break
      case "oauth": {
        const params = parseOAuthHeader(authorization)
        out["auth"] = `oauth1:${params?.get("oauth_consumer_key") ?? "?"}`
        params?.forEach((value, key) => {
          if (key === "oauth_token" || key === "oauth_verifier") add(key, value)
        })
        break
      }
      default:
        out["auth"] = `${scheme.toLowerCase()}:?`
    }
  }
  return out
}

const splitOnce = (text: string, separator: string): [string, string] => {
  const i = text.indexOf(separator)
  return i === -1 ? [text, ""] : [text.slice(0, i), text.slice(i + separator.length)]
}

// ---- credentials ----

export const parseBasic = (
  authorization: string | undefined
): { readonly id: string; readonly secret: string } | undefined => {
  if (authorization === undefined) return undefined
  const m = /^basic\s+(\S+)$/i.exec(authorization.trim())
  if (m === null) return undefined
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8")
  const i = decoded.indexOf(":")
  if (i === -1) return undefined
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, " "))
    } catch {
      return s
    }
  }
  return { id: unescape(decoded.slice(0, i)), secret: unescape(decoded.slice(i + 1)) }
}

export const parseBearer = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  const m = /^bearer\s+(\S+)$/i.exec(authorization.trim())
  return m === null ? undefined : m[1]
}

/** The params of an `Authorization: OAuth k="v", ...` header, percent-decoded; `realm` left out. */
export const parseOAuthHeader = (authorization: string | undefined): Map<string, string> | undefined => {
  if (authorization === undefined) return undefined
  const m = /^oauth\s+(.*)$/is.exec(authorization.trim())
  if (m === null) return undefined
  const out = new Map<string, string>()
  const re = /([A-Za-z0-9_%.~-]+)\s*=\s*"([^"]*)"/g
  let item: RegExpExecArray | null
  while ((item = re.exec(m[1]!)) !== null) {
    const key = safeDecode(item[1]!)
    if (key !== "realm") out.set(key, safeDecode(item[2]!))
  }
  return out
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

// ---- responses ----

export const json = (body: unknown, status = 200, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson(body, headers === undefined ? { status } : { status, headers })

/** A 302 to `target` with `params` added to its query (existing params kept). */
export const redirectWith = (target: string, params: Readonly<Record<string, string | null | undefined>>) => {
  const url = new URL(target)
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) url.searchParams.set(key, value)
  }
  return HttpServerResponse.redirect(url.toString(), { status: 302 })
}

export const isAbsoluteUrl = (value: string | null): value is string => {
  if (value === null || value === "") return false
  try {
    const url = new URL(value)
    return url.protocol !== "javascript:" && url.protocol !== "data:"
  } catch {
    return false
  }
}

export const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
    /'/g,
    "&#39;"
  )

const page = (title: string, body: string) =>
  `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n` +
  `<body>\n${body}\n</body>\n</html>\n`

/** An authorization-page error: shown to the user, not redirected (unknown client, bad redirect_uri). */
export const errorPage = (providerName: string, message: string, status = 400) =>
  HttpServerResponse.text(
    page(
      `${providerName} sandbox: error`,
      `<h1>${escapeHtml(providerName)} (PulseBridge sandbox)</h1>\n<p class="error">${escapeHtml(message)}</p>`
    ),
    { status, contentType: "text/html; charset=utf-8" }
  )

export const DEFAULT_USER = "sandbox-user"

export interface ConsentPage {
  readonly providerName: string
  readonly clientId: string
  /** Absolute URL the form posts to: the page's own URL, query included. */
  readonly action: string
  /** Checkboxes (name `scope`); omitted when the user has nothing to choose. */
  readonly choices?: ReadonlyArray<{ readonly value: string; readonly checked: boolean }> | undefined
  readonly choicesLabel?: string | undefined
  readonly detail?: string | undefined
  readonly userSuggestions?: ReadonlyArray<string> | undefined
}

/**
 * The consent page. Its form posts `decision=approve|deny`, `user`, the ticked `scope` boxes and
 * a `consent_form` marker: with the marker, only ticked boxes are granted (an unticked box is
 * absent from a form post); a scripted POST without it grants everything asked for.
 */
export const consentPage = (p: ConsentPage) => {
  const choices = p.choices === undefined || p.choices.length === 0 ?
    "" :
    `<fieldset>\n<legend>${escapeHtml(p.choicesLabel ?? "Scopes")}</legend>\n` +
    p.choices.map((c) =>
      `<label><input type="checkbox" name="scope" value="${escapeHtml(c.value)}"${c.checked ? " checked" : ""}> ` +
      `${escapeHtml(c.value)}</label><br>`
    ).join("\n") + "\n</fieldset>\n"
  const list = p.userSuggestions === undefined ?
    "" :
    `<datalist id="users">${p.userSuggestions.map((u) => `<option value="${escapeHtml(u)}">`).join("")}</datalist>\n`
  const body = `<h1>${escapeHtml(p.providerName)} (PulseBridge sandbox)</h1>\n` +
    `<p>The application <strong>${escapeHtml(p.clientId)}</strong> asks for access to your ` +
    `${escapeHtml(p.providerName)} data.</p>\n` +
    (p.detail === undefined ? "" : `<p>${escapeHtml(p.detail)}</p>\n`) +
    `<form method="post" action="${escapeHtml(p.action)}">\n` +
    `<input type="hidden" name="consent_form" value="1">\n` +
    choices +
    `<p><label>Simulated account <input type="text" name="user" value="${DEFAULT_USER}"` +
    `${p.userSuggestions === undefined ? "" : " list=\"users\""}></label></p>\n` + list +
    `<p><button type="submit" name="decision" value="approve">Allow</button>\n` +
    `<button type="submit" name="decision" value="deny">Deny</button></p>\n</form>`
  return HttpServerResponse.text(page(`${p.providerName} sandbox: authorize`, body), {
    contentType: "text/html; charset=utf-8",
    headers: { "cache-control": "no-store" }
  })
}

export interface ConsentDecision {
  readonly decision: "approve" | "deny" | undefined
  readonly user: string
  readonly granted: ReadonlyArray<string>
}

/** Reads a consent POST; see `consentPage` for how scopes are granted. */
export const readConsent = (form: URLSearchParams, requested: ReadonlyArray<string>): ConsentDecision => {
  const raw = form.get("decision")
  const decision = raw === "approve" || raw === "deny" ? raw : undefined
  const name = (form.get("user") ?? "").trim().slice(0, 64)
  const ticked = form.getAll("scope").flatMap((s) => s.split(/[\s+]+/)).filter((s) => s !== "")
  const granted = form.has("consent_form") ? requested.filter((s) => ticked.includes(s)) : requested
  return { decision, user: name === "" ? DEFAULT_USER : name, granted }
}

/** The page's own absolute URL, which the consent form posts back to. */
export const selfUrl = (core: SimulatorCore<unknown>, req: SimRequestShape): string =>
  `${core.url(req.path)}${req.rawQuery === "" ? "" : `?${req.rawQuery}`}`

// ---- the app ----

const FaultSpecSchema = Schema.Struct({
  path: Schema.String,
  kind: Schema.Literal("rateLimit", "serverError", "slow", "expiredToken", "malformedJson"),
  method: Schema.optional(Schema.String),
  count: Schema.optional(Schema.Int.pipe(Schema.between(1, 1_000_000))),
  retryAfterSeconds: Schema.optional(Schema.Int.pipe(Schema.between(0, 86_400))),
  delayMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 120_000)))
})
const decodeFaults = Schema.decodeUnknownEither(Schema.Union(FaultSpecSchema, Schema.Array(FaultSpecSchema)))

/** A timer-based delay: the app may run under a test clock that never advances on its own. */
const realDelay = (ms: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

const truncated = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  const bytes = body._tag === "Uint8Array" && body.body.length > 1
    ? body.body
    : new TextEncoder().encode("{\"records\":[{\"id\":1}]}")
  return HttpServerResponse.uint8Array(bytes.slice(0, Math.floor(bytes.length / 2)), {
    status: 200,
    contentType: "application/json",
    headers: response.headers
  })
}

/** The JSON body of a control request (already read into the `SimRequest`). */
const readJson = Effect.map(SimRequest, (req): unknown => {
  if (req.body.trim() === "") return {}
  try {
    return JSON.parse(req.body)
  } catch {
    return undefined
  }
})

const simRoutes = (provider: Provider, control: SimulatorControl): HttpRouter.HttpRouter<never, SimRequest> =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/_sim",
      Effect.succeed(json({
        provider,
        routes: [
          "GET|POST|DELETE /_sim/faults",
          "GET|DELETE /_sim/calls",
          "POST /_sim/reset",
          "POST /_sim/expire-tokens",
          "POST /_sim/revoke",
          "GET /_sim/users"
        ]
      }))
    ),
    HttpRouter.get("/_sim/faults", Effect.sync(() => json({ faults: control.faults() }))),
    HttpRouter.post(
      "/_sim/faults",
      Effect.map(readJson, (body) => {
        const decoded = decodeFaults(body)
        if (decoded._tag === "Left") return json({ error: "invalid fault", detail: String(decoded.left) }, 400)
        const specs: ReadonlyArray<FaultSpec> = Array.isArray(decoded.right) ? decoded.right : [decoded.right]
        specs.forEach((spec) => control.injectFault(spec))
        return json({ faults: control.faults() })
      })
    ),
    HttpRouter.del("/_sim/faults", Effect.sync(() => (control.clearFaults(), HttpServerResponse.empty()))),
    HttpRouter.get(
      "/_sim/calls",
      Effect.map(SimRequest, (req) => {
        const q = req.query
        const opt = (key: string) => q.get(key) ?? undefined
        const status = q.get("status")
        return json({
          calls: control.calls({
            method: opt("method"),
            path: opt("path"),
            presented: opt("presented"),
            userId: opt("userId"),
            status: status === null ? undefined : Number(status)
          })
        })
      })
    ),
    HttpRouter.del("/_sim/calls", Effect.sync(() => (control.clearCalls(), HttpServerResponse.empty()))),
    HttpRouter.post(
      "/_sim/reset",
      Effect.map(readJson, (body) => {
        const keepGrants = typeof body === "object" && body !== null && (body as any).keepGrants === true
        control.reset({ keepGrants })
        return HttpServerResponse.empty()
      })
    ),
    HttpRouter.post(
      "/_sim/expire-tokens",
      Effect.sync(() => (control.expireAccessTokens(), HttpServerResponse.empty()))
    ),
    HttpRouter.post(
      "/_sim/revoke",
      Effect.map(readJson, (body) => {
        const userId = typeof body === "object" && body !== null ? (body as any).userId : undefined
        if (typeof userId !== "string" && typeof userId !== "number") {
          return json({ error: "body must be {\"userId\": ...}" }, 400)
        }
        control.revokeUser(String(userId))
        return HttpServerResponse.empty()
      })
    ),
    HttpRouter.get("/_sim/users", Effect.sync(() => json({ users: control.users() })))
  )

/**
 * The simulator as an app: `/_sim/*` control routes, then for provider routes the fault
 * knobs, the provider's router with a `SimRequest`, provider-style 404/500, and the call log.
 */
export const makeApp = <S>(
  core: SimulatorCore<S>,
  style: ProviderStyle,
  routes: HttpRouter.HttpRouter<never, SimRequest>,
  control: SimulatorControl
): HttpApp.Default => {
  const sim = simRoutes(core.provider, control).pipe(
    Effect.catchAll(() => Effect.succeed(json({ error: "no such control route" }, 404))),
    Effect.catchAllCause(() => Effect.succeed(json({ error: "control route failed" }, 500)))
  )
  return Effect.gen(function*() {
    const original = yield* HttpServerRequest.HttpServerRequest
    const q = original.url.indexOf("?")
    const fullPath = (q === -1 ? original.url : original.url.slice(0, q)) || "/"
    const rawQuery = q === -1 ? "" : original.url.slice(q + 1)
    // mounted with `includePrefix: true` the prefix is still there
    const prefix = core.basePath
    const stripped = prefix !== "" && (fullPath === prefix || fullPath.startsWith(`${prefix}/`))
    const path = stripped ? fullPath.slice(prefix.length) || "/" : fullPath
    const method = original.method.toUpperCase()
    if (method !== "GET" && method !== "HEAD" && bodyReadUpstream(original)) {
      return style.error(
        500,
        "server_error",
        "The request body was read before it reached the simulator; mount it with includePrefix: true"
      )
    }
    // read before any re-addressing: a body an outer middleware already read is cached only on this request
    const body = method === "GET" || method === "HEAD"
      ? ""
      : yield* Effect.orElseSucceed(original.text, () => "")
    const request = stripped ? original.modify({ url: `${path}${q === -1 ? "" : `?${rawQuery}`}` }) : original
    const contentType = request.headers["content-type"] ?? ""
    const form = contentType.toLowerCase().includes("application/x-www-form-urlencoded")
      ? new URLSearchParams(body)
      : new URLSearchParams()
    const query = new URLSearchParams(rawQuery)
    let who: { clientId?: string | undefined; userId?: string | undefined } = {}
    const req: SimRequestShape = {
      method,
      path,
      rawQuery,
      query,
      headers: request.headers,
      body,
      form,
      identify: (w) => {
        who = { ...who, ...w }
      }
    }
    const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.provideService(SimRequest, req),
        Effect.provideService(HttpServerRequest.HttpServerRequest, request)
      )
    if (path === "/_sim" || path.startsWith("/_sim/")) return yield* provide(sim)
    const fault = core.takeFault(method, path)
    let response: HttpServerResponse.HttpServerResponse
    switch (fault?.kind) {
      case "rateLimit":
        response = style.rateLimited(fault.retryAfterSeconds ?? 60)
        break
      case "serverError":
        response = style.error(500, "server_error", "Internal Server Error")
        break
      case "expiredToken":
        response = style.expiredToken(req)
        break
      default: {
        if (fault?.kind === "slow") yield* realDelay(fault.delayMs ?? 1000)
        response = yield* provide(routes).pipe(
          Effect.catchAll(() => Effect.succeed(style.error(404, "not_found", `No such resource: ${method} ${path}`))),
          Effect.catchAllCause(() => Effect.succeed(style.error(500, "server_error", "Internal Server Error")))
        )
        if (fault?.kind === "malformedJson") response = truncated(response)
      }
    }
    core.record({
      time: core.now().toISOString(),
      method,
      path,
      status: response.status,
      params: describeParams(query, form, request.headers["authorization"]),
      ...(who.clientId === undefined ? {} : { clientId: who.clientId }),
      ...(who.userId === undefined ? {} : { userId: who.userId }),
      ...(fault === undefined ? {} : { fault: fault.kind })
    })
    return response
  })
}

/**
 * Whether an outer handler consumed the body of a request the router then re-addressed (mounting
 * without `includePrefix` makes a new request object without the first one's cached body):
 * reading it again would wait forever.
 */
const bodyReadUpstream = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const source = request.source as { readonly readableEnded?: unknown; readonly url?: unknown } | null
  return typeof source === "object" && source !== null && source.readableEnded === true &&
    typeof source.url === "string" && source.url !== request.url
}

/** A router holding only `app`, for `HttpRouter.mount(prefix, sim.router)`. */
export const routerOf = (app: HttpApp.Default): HttpRouter.HttpRouter =>
  HttpRouter.empty.pipe(HttpRouter.all("/", app), HttpRouter.all("/*", app))

/** Puts the pieces together; `baseUrl` reads the core's current base. */
export const assemble = <S, C extends SimulatorControl>(
  core: SimulatorCore<S>,
  style: ProviderStyle,
  routes: HttpRouter.HttpRouter<never, SimRequest>,
  control: C
): Simulator<C> => {
  const app = makeApp(core, style, routes, control)
  const router = routerOf(app)
  return {
    provider: core.provider,
    slug: core.slug,
    app,
    router,
    get baseUrl() {
      return core.baseUrl
    },
    control
  }
}

// ---- serving ----

export class SimulatorServeError extends Data.TaggedError("SimulatorServeError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface ServedApp {
  readonly baseUrl: string
  readonly port: number
  /** Stops listening now; otherwise the enclosing scope does. */
  readonly close: Effect.Effect<void>
}

/** Serves `app` over plain HTTP on 127.0.0.1 (`port` 0 or absent: a free port) until the scope closes. */
export const serveHttpApp = (
  app: HttpApp.Default,
  options: { readonly port?: number | undefined } = {}
): Effect.Effect<ServedApp, SimulatorServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const handler = yield* NodeHttpServer.makeHandler(app)
    const server = http.createServer(handler)
    yield* Effect.async<void, SimulatorServeError>((resume) => {
      const onError = (cause: unknown) =>
        resume(Effect.fail(new SimulatorServeError({ message: "could not listen", cause })))
      server.once("error", onError)
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        server.off("error", onError)
        resume(Effect.void)
      })
    })
    yield* Scope.addFinalizer(
      scope,
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    )
    const port = (server.address() as AddressInfo).port
    return { baseUrl: `http://127.0.0.1:${port}`, port, close: Scope.close(scope, Exit.void) }
  })

/**
 * Serves a simulator standalone; `baseUrl` of the result is where it listens. Unless
 * `keepBaseUrl`, the simulator's B becomes that origin, so the URLs it generates (consent form,
 * callbacks) point at it.
 */
export const serveSimulator = (
  sim: Simulator<SimulatorControl>,
  options: { readonly port?: number | undefined; readonly keepBaseUrl?: boolean | undefined } = {}
): Effect.Effect<ServedApp, SimulatorServeError, Scope.Scope> =>
  Effect.map(serveHttpApp(sim.app, options), (served) => {
    if (options.keepBaseUrl !== true) sim.control.setBaseUrl(served.baseUrl)
    return served
  })

// ---- outbound deliveries (webhooks) ----

export interface Delivery {
  readonly url: string
  readonly status: number
  readonly body: string
}

/** Sends `body` to `url` the way a provider delivers a webhook. */
export const deliver = (
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  method: "POST" | "GET" = "POST"
): Effect.Effect<Delivery, HttpClientError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const base = method === "GET" ? HttpClientRequest.get(url) : HttpClientRequest.post(url).pipe(
      HttpClientRequest.bodyText(body, "application/json")
    )
    const response = yield* client.execute(HttpClientRequest.setHeaders(base, headers))
    const text = yield* response.text
    return { url, status: response.status, body: text }
  })
