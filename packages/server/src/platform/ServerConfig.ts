/**
 * All configuration of the server and CLI, read once from the environment with `Config`. Each setting's one
 * default and its validation are in the decoder here, so code that holds a `ServerConfigShape` never supplies a
 * default of its own; `ServerConfig.make` builds a whole configuration from the same defaults for code that sets
 * a few settings itself. The variables' names are in `EnvVars.ts`.
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { EnvVars } from "./EnvVars.js"

export type Role = "all" | "api" | "worker"

/** Which meal-photo analyser runs: an OpenAI-compatible model, the caption reader, or the sandbox simulator. */
export type AnalyzerKind = "openai" | "offline" | "sandbox"

export interface ServerConfigShape {
  readonly port: number
  readonly host: string
  readonly publicUrl: Option.Option<string>
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly tlsCertFile: Option.Option<string>
  readonly tlsKeyFile: Option.Option<string>
  readonly trustProxy: boolean
  /**
   * `Strict-Transport-Security: max-age=<seconds>` on every answer when the public URL names a host other than
   * localhost (`HSTS_MAX_AGE`; 0: never). Never behind a TLS-terminating proxy, which sets its own.
   */
  readonly hstsMaxAge: number
  readonly secretKey: Option.Option<Redacted.Redacted>
  readonly sandbox: boolean
  readonly analyzer: AnalyzerKind
  /** Base URL of the OpenAI-compatible API (`.../v1`) `ANALYZER=openai` asks; OpenAI's unless `ANALYZER_BASE_URL`. */
  readonly analyzerBaseUrl: string
  readonly analyzerModel: string
  /** Never logged. */
  readonly analyzerApiKey: Option.Option<Redacted.Redacted>
  readonly role: Role
  readonly production: boolean
  /** Worker (`ROLE=worker`): the address other nodes reach its cluster runner on. */
  readonly runnerHost: string
  readonly runnerPort: number
  /** The periodic sync's schedule (cron, UTC). */
  readonly syncCron: string
  /** Days of history read when a provider is connected (capped per provider). */
  readonly backfillDays: number
  /** Request rate limits (docs/rate-limits.md). */
  readonly rateLimits: RateLimitSettings
  /** The deadline of a request (`REQUEST_TIMEOUT_MS`), and of a `multipart/*` upload (`UPLOAD_TIMEOUT_MS`). */
  readonly requestTimeoutMs: number
  readonly uploadTimeoutMs: number
  /** The longest a statement may run on PostgreSQL (`STATEMENT_TIMEOUT_MS`, 0: no limit). */
  readonly statementTimeoutMs: number
  /** Connections this process opens to PostgreSQL at most (`DATABASE_POOL_SIZE`; the embedded database has one). */
  readonly databasePoolSize: number
  /**
   * Sync windows this process writes at once at most (`SYNC_STORE_CONCURRENCY`); by default half the pool, so
   * that the sync never holds every connection while requests wait.
   */
  readonly syncStoreConcurrency: number
  /** Connections this process syncs at once at most (`SYNC_CONCURRENCY`); the others wait their turn. */
  readonly syncConcurrency: number
  /** Where Dexcom's OAuth endpoints live (`DEXCOM_OAUTH_PATH`): `/v3/oauth2` or `/v2/oauth2`. */
  readonly dexcomOAuthPath: "/v3/oauth2" | "/v2/oauth2"
  /**
   * Webhook URLs may lead to private, loopback, link-local and other special addresses (`WEBHOOK_ALLOW_PRIVATE`):
   * the address guard off. By default only in sandbox mode, so that a local receiver works there.
   */
  readonly webhookAllowPrivate: boolean
  /** A PEM file of CAs webhook receivers' certificates may chain to, besides the public ones (`WEBHOOK_CA_FILE`). */
  readonly webhookCaFile: Option.Option<string>
  /** Whether this worker process delivers webhooks (`WEBHOOK_DELIVERY=on|off`). */
  readonly webhookDelivery: boolean
  /**
   * Browser origins `/mcp` serves besides the service's own (`MCP_ALLOWED_ORIGINS`), each as `scheme://host[:port]`
   * in lower case; a request without `Origin` is served too.
   */
  readonly mcpAllowedOrigins: ReadonlyArray<string>
  /**
   * Where to read the public keys a provider signs its notifications with, by provider slug, in place of the
   * address its plug-in names (`PROVIDER_SIGNING_KEYS_URLS=fitbit=https://...`); `off` checks no signature.
   */
  readonly signingKeysUrls: ReadonlyMap<string, string>
  /** The bearer token `/metrics` requires on the public port (`METRICS_TOKEN`); none: no `/metrics` there. Never logged. */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** A separate plain-HTTP listener serving `/metrics` without a token (`METRICS_PORT`, on `METRICS_HOST`). */
  readonly metricsPort: Option.Option<number>
  readonly metricsHost: string
  /** The OTLP/HTTP collector traces and metrics are exported to (`OTEL_EXPORTER_OTLP_ENDPOINT`); none: no export. */
  readonly otelEndpoint: Option.Option<string>
  /** The `service.name` of exported telemetry (`OTEL_SERVICE_NAME`). */
  readonly otelServiceName: string
  /** How often metrics are exported (`OTEL_METRIC_EXPORT_INTERVAL`, milliseconds). */
  readonly otelMetricExportIntervalMs: number
}

/** A token bucket: refills `perSecond` tokens a second up to `burst`; a request takes one. */
export interface RateLimit {
  readonly perSecond: number
  readonly burst: number
}

export interface RateLimitSettings {
  readonly enabled: boolean
  /** Per API key (`pb_sk_...`). */
  readonly apiKey: RateLimit
  /** Per user token (`pb_ut_...`). */
  readonly userToken: RateLimit
  /** Per client address: requests without a credential, and failed authentications. */
  readonly address: RateLimit
}

export const defaultRateLimits: RateLimitSettings = {
  enabled: true,
  apiKey: { perSecond: 20, burst: 100 },
  userToken: { perSecond: 10, burst: 50 },
  address: { perSecond: 5, burst: 30 }
}

/** `RATE_LIMIT_*=<per second>/<burst>`, e.g. `20/100`. */
const rateLimitSetting = (name: string, fallback: RateLimit) =>
  Config.string(name).pipe(
    Config.mapOrFail((text) => {
      const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+)\s*$/.exec(text)
      const perSecond = Number(match?.[1])
      const burst = Number(match?.[2])
      return match !== null && perSecond > 0 && burst >= 1
        ? Either.right({ perSecond, burst })
        : Either.left(
          ConfigError.InvalidData([name], `${name} must be <requests per second>/<burst>, e.g. 20/100`)
        )
    }),
    Config.withDefault(fallback)
  )

const rateLimitsConfig: Config.Config<RateLimitSettings> = Config.all({
  enabled: Config.literal("on", "off")(EnvVars.rateLimit).pipe(
    Config.map((value) => value === "on"),
    Config.withDefault(defaultRateLimits.enabled)
  ),
  apiKey: rateLimitSetting(EnvVars.rateLimitApiKey, defaultRateLimits.apiKey),
  userToken: rateLimitSetting(EnvVars.rateLimitUserToken, defaultRateLimits.userToken),
  address: rateLimitSetting(EnvVars.rateLimitAddress, defaultRateLimits.address)
})

/** One year: the `max-age` browsers' preload lists ask for. */
export const defaultHstsMaxAge = 31_536_000

/**
 * An origin as a browser sends it (`scheme://host[:port]`, http or https, no path, query or credentials), in the
 * form `URL.origin` gives (lower case, no default port); undefined for anything else.
 */
export const normalOrigin = (text: string): string | undefined => {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return undefined
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return undefined
  if (url.pathname !== "/") return undefined
  return url.origin
}

/** `MCP_ALLOWED_ORIGINS=<origin>,<origin>`, e.g. `https://assistant.example.com`. */
const signingKeysUrlsConfig = Config.string(EnvVars.signingKeysUrls).pipe(
  Config.mapOrFail((text) => {
    const urls = new Map<string, string>()
    for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
      const at = entry.indexOf("=")
      const slug = entry.slice(0, at).trim()
      const url = entry.slice(at + 1).trim()
      if (at <= 0 || !/^[a-z0-9-]+$/.test(slug) || !(url === "off" || /^https?:\/\/[^/?#\s]+/i.test(url))) {
        return Either.left(
          ConfigError.InvalidData(
            [EnvVars.signingKeysUrls],
            `${EnvVars.signingKeysUrls} must be comma-separated slug=url pairs (e.g. ` +
              `fitbit=https://keys.example.com/keyset.json, or fitbit=off); got ${JSON.stringify(entry)}`
          )
        )
      }
      urls.set(slug, url)
    }
    return Either.right(urls as ReadonlyMap<string, string>)
  }),
  Config.withDefault(new Map() as ReadonlyMap<string, string>)
)

const allowedOriginsConfig = Config.string(EnvVars.mcpAllowedOrigins).pipe(
  Config.mapOrFail((text) => {
    const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
    const origins = entries.map(normalOrigin)
    const bad = entries.find((_, i) => origins[i] === undefined)
    return bad === undefined
      ? Either.right(origins as ReadonlyArray<string>)
      : Either.left(
        ConfigError.InvalidData(
          [EnvVars.mcpAllowedOrigins],
          `${EnvVars.mcpAllowedOrigins} must be comma-separated origins (scheme://host[:port], no path), ` +
            `e.g. https://assistant.example.com; got ${JSON.stringify(bad)}`
        )
      )
  }),
  Config.withDefault([] as ReadonlyArray<string>)
)

/**
 * The settings as the environment gives them, each with its default. Those whose default depends on other settings
 * (`ANALYZER`, `SYNC_STORE_CONCURRENCY`, `WEBHOOK_ALLOW_PRIVATE`), and `ANALYZER_BASE_URL`, whose presence picks the analyser, stay options
 * here for `resolve` to complete.
 */
const settingsConfig = Config.all({
  port: Config.integer(EnvVars.port).pipe(
    Config.validate({
      message: `${EnvVars.port} must be a port number (0 picks a free port)`,
      validation: (n) => n >= 0 && n <= 65535
    }),
    Config.withDefault(8443)
  ),
  host: Config.string(EnvVars.host).pipe(Config.withDefault("0.0.0.0")),
  publicUrl: Config.option(Config.string(EnvVars.publicUrl)),
  databaseUrl: Config.option(Config.redacted(EnvVars.databaseUrl)),
  dataDir: Config.string(EnvVars.dataDir).pipe(Config.withDefault("./.pulsebridge")),
  tlsCertFile: Config.option(Config.string(EnvVars.tlsCertFile)),
  tlsKeyFile: Config.option(Config.string(EnvVars.tlsKeyFile)),
  trustProxy: Config.boolean(EnvVars.trustProxy).pipe(Config.withDefault(false)),
  hstsMaxAge: Config.integer(EnvVars.hstsMaxAge).pipe(
    Config.validate({
      message: `${EnvVars.hstsMaxAge} must be 0 (off) or a number of seconds`,
      validation: (n) => n >= 0
    }),
    Config.withDefault(defaultHstsMaxAge)
  ),
  secretKey: Config.option(Config.redacted(EnvVars.secretKey)),
  sandbox: Config.boolean(EnvVars.sandbox).pipe(Config.withDefault(false)),
  analyzer: Config.option(Config.literal("openai", "offline", "sandbox")(EnvVars.analyzer)),
  analyzerBaseUrl: Config.option(Config.string(EnvVars.analyzerBaseUrl)),
  analyzerModel: Config.string(EnvVars.analyzerModel).pipe(Config.withDefault("gpt-4o-mini")),
  analyzerApiKey: Config.option(Config.redacted(EnvVars.analyzerApiKey)),
  role: Config.literal("all", "api", "worker")(EnvVars.role).pipe(Config.withDefault("all" as const)),
  production: Config.string(EnvVars.production).pipe(
    Config.map((env) => env === "production"),
    Config.withDefault(false)
  ),
  runnerHost: Config.string(EnvVars.runnerHost).pipe(Config.withDefault("localhost")),
  runnerPort: Config.integer(EnvVars.runnerPort).pipe(Config.withDefault(34431)),
  syncCron: Config.string(EnvVars.syncCron).pipe(Config.withDefault("0 * * * *")),
  backfillDays: Config.integer(EnvVars.backfillDays).pipe(
    Config.validate({ message: `${EnvVars.backfillDays} must be 1 to 365`, validation: (n) => n >= 1 && n <= 365 }),
    Config.withDefault(30)
  ),
  rateLimits: rateLimitsConfig,
  requestTimeoutMs: Config.integer(EnvVars.requestTimeoutMs).pipe(
    Config.validate({ message: `${EnvVars.requestTimeoutMs} must be 100 or more`, validation: (n) => n >= 100 }),
    Config.withDefault(30_000)
  ),
  uploadTimeoutMs: Config.integer(EnvVars.uploadTimeoutMs).pipe(
    Config.validate({ message: `${EnvVars.uploadTimeoutMs} must be 100 or more`, validation: (n) => n >= 100 }),
    Config.withDefault(120_000)
  ),
  statementTimeoutMs: Config.integer(EnvVars.statementTimeoutMs).pipe(
    Config.validate({
      message: `${EnvVars.statementTimeoutMs} must be 0 (no limit) or 1000 or more`,
      validation: (n) => n === 0 || n >= 1000
    }),
    Config.withDefault(60_000)
  ),
  databasePoolSize: Config.integer(EnvVars.databasePoolSize).pipe(
    Config.validate({
      message: `${EnvVars.databasePoolSize} must be 2 to 1000`,
      validation: (n) => n >= 2 && n <= 1000
    }),
    Config.withDefault(10)
  ),
  syncStoreConcurrency: Config.integer(EnvVars.syncStoreConcurrency).pipe(
    Config.validate({ message: `${EnvVars.syncStoreConcurrency} must be 1 or more`, validation: (n) => n >= 1 }),
    Config.option
  ),
  syncConcurrency: Config.integer(EnvVars.syncConcurrency).pipe(
    Config.validate({ message: `${EnvVars.syncConcurrency} must be 1 or more`, validation: (n) => n >= 1 }),
    Config.withDefault(16)
  ),
  dexcomOAuthPath: Config.literal("/v3/oauth2", "/v2/oauth2")(EnvVars.dexcomOAuthPath).pipe(
    Config.withDefault("/v3/oauth2" as const)
  ),
  webhookAllowPrivate: Config.option(Config.boolean(EnvVars.webhookAllowPrivate)),
  webhookCaFile: Config.option(Config.string(EnvVars.webhookCaFile)),
  webhookDelivery: Config.literal("on", "off")(EnvVars.webhookDelivery).pipe(
    Config.map((value) => value === "on"),
    Config.withDefault(true)
  ),
  mcpAllowedOrigins: allowedOriginsConfig,
  signingKeysUrls: signingKeysUrlsConfig,
  metricsToken: Config.redacted(EnvVars.metricsToken).pipe(
    Config.validate({
      message: `${EnvVars.metricsToken} must be at least 16 characters (e.g. \`openssl rand -hex 32\`)`,
      validation: (token) => Redacted.value(token).length >= 16
    }),
    Config.option
  ),
  metricsPort: Config.integer(EnvVars.metricsPort).pipe(
    Config.validate({
      message: `${EnvVars.metricsPort} must be a port number (0 picks a free port)`,
      validation: (n) => n >= 0 && n <= 65535
    }),
    Config.option
  ),
  metricsHost: Config.string(EnvVars.metricsHost).pipe(Config.withDefault("127.0.0.1")),
  otelEndpoint: Config.string(EnvVars.otelEndpoint).pipe(
    Config.option,
    // An empty value (`OTEL_EXPORTER_OTLP_ENDPOINT=`) turns the export off rather than failing the start.
    Config.map(Option.filter((url) => url.trim() !== "")),
    Config.validate({
      message: `${EnvVars.otelEndpoint} must be an http:// or https:// URL (the collector's OTLP/HTTP receiver)`,
      validation: (url) => Option.isNone(url) || /^https?:\/\/[^/?#]+/i.test(url.value.trim())
    })
  ),
  otelServiceName: Config.string(EnvVars.otelServiceName).pipe(Config.withDefault("pulsebridge")),
  otelMetricExportIntervalMs: Config.integer(EnvVars.otelMetricExportIntervalMs).pipe(
    Config.validate({
      message: `${EnvVars.otelMetricExportIntervalMs} must be 1000 (ms) or more`,
      validation: (n) => n >= 1000
    }),
    Config.withDefault(60_000)
  )
})

type Settings = Config.Config.Success<typeof settingsConfig>

/** The API `ANALYZER=openai` asks when `ANALYZER_BASE_URL` is unset. */
const openAiBaseUrl = "https://api.openai.com/v1"

/**
 * The analyser when `ANALYZER` is unset: the simulator in sandbox mode, an OpenAI-compatible model when one is
 * configured, else the offline caption reader.
 */
export const defaultAnalyzer = (
  settings: { readonly sandbox: boolean; readonly analyzerBaseUrl: Option.Option<string> }
): AnalyzerKind => settings.sandbox ? "sandbox" : Option.isSome(settings.analyzerBaseUrl) ? "openai" : "offline"

/** Half the pool; the embedded database's one connection is shared by turns anyway. */
const defaultSyncStoreConcurrency = (settings: Pick<ServerConfigShape, "databaseUrl" | "databasePoolSize">) =>
  Option.isSome(settings.databaseUrl) ? Math.max(1, Math.floor(settings.databasePoolSize / 2)) : 1

/**
 * `settings` with `overrides` over them. A default that depends on other settings is taken from them as overridden,
 * so that `serve --sandbox` gets the sandbox analyser and its local webhook receivers, and a pool set in code gets
 * its half for the sync's writes.
 */
const resolve = (
  { analyzer, analyzerBaseUrl, syncStoreConcurrency, webhookAllowPrivate, ...settings }: Settings,
  overrides: Partial<ServerConfigShape>
): ServerConfigShape => {
  const given = { ...settings, ...overrides }
  const baseUrl = Option.orElse(Option.fromNullable(overrides.analyzerBaseUrl), () => analyzerBaseUrl)
  return {
    ...given,
    analyzer: Option.fromNullable(overrides.analyzer).pipe(
      Option.orElse(() => analyzer),
      Option.getOrElse(() => defaultAnalyzer({ sandbox: given.sandbox, analyzerBaseUrl: baseUrl }))
    ),
    analyzerBaseUrl: Option.getOrElse(baseUrl, () => openAiBaseUrl),
    syncStoreConcurrency: Option.fromNullable(overrides.syncStoreConcurrency).pipe(
      Option.orElse(() => syncStoreConcurrency),
      Option.getOrElse(() => defaultSyncStoreConcurrency(given))
    ),
    // The address guard is on unless the operator turns it off, or sandbox mode does for its local receivers.
    webhookAllowPrivate: Option.fromNullable(overrides.webhookAllowPrivate).pipe(
      Option.orElse(() => webhookAllowPrivate),
      Option.getOrElse(() => given.sandbox)
    )
  }
}

export const serverConfig: Config.Config<ServerConfigShape> = Config.map(
  settingsConfig,
  (settings) => resolve(settings, {})
)

/** The settings of an environment that sets none of the variables: every default, as the decoder gives it. */
const unsetSettings: Settings = Effect.runSync(ConfigProvider.fromMap(new Map()).load(settingsConfig))

export class ServerConfig extends Context.Tag("@pulsebridge/server/ServerConfig")<ServerConfig, ServerConfigShape>() {
  /** Reads the environment (or the active `ConfigProvider`). */
  static readonly Default = Layer.effect(ServerConfig, serverConfig)

  /** Reads the environment, with `overrides` over it. */
  static readonly DefaultWith = (overrides: Partial<ServerConfigShape>) =>
    Layer.effect(ServerConfig, Effect.map(settingsConfig, (settings) => resolve(settings, overrides)))

  /** Every setting at its default but `overrides`, without reading the environment (tests, benchmarks). */
  static readonly make = (overrides: Partial<ServerConfigShape> = {}): ServerConfigShape =>
    resolve(unsetSettings, overrides)
}

/** Every setting at its default. */
export const defaultServerConfig: ServerConfigShape = ServerConfig.make()

export class ConfigRefusal extends Data.TaggedError("ConfigRefusal")<{ readonly message: string }> {}

/**
 * The bytes of a `SECRET_KEY` given as hex or base64 (standard or URL-safe), or `undefined` when it is neither.
 * In production the key must be at least 32 random bytes written in one of these encodings
 * (`openssl rand -base64 32` or `openssl rand -hex 32`).
 */
export const secretKeyBytes = (key: string): Buffer | undefined => {
  if (/^(?:[0-9a-fA-F]{2})+$/.test(key)) return Buffer.from(key, "hex")
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(key)) return Buffer.from(key.replace(/-/g, "+").replace(/_/g, "/"), "base64")
  return undefined
}

/** Fewer distinct byte values than this in 32 or more bytes is a pattern, not a random key. */
const minimumDistinctBytes = 16

/**
 * Why production mode (`NODE_ENV=production`) refuses this configuration, if it does: a missing or weak
 * `SECRET_KEY`, sandbox mode, or no TLS files without a TLS-terminating proxy.
 */
export const productionRefusal = (config: ServerConfigShape): Option.Option<string> => {
  if (!config.production) return Option.none()
  if (Option.isNone(config.secretKey)) {
    return Option.some(
      "production mode needs SECRET_KEY: at least 32 random bytes, hex or base64 (e.g. `openssl rand -base64 32`)"
    )
  }
  const bytes = secretKeyBytes(Redacted.value(config.secretKey.value))
  if (bytes === undefined || bytes.length < 32 || new Set(bytes).size < minimumDistinctBytes) {
    return Option.some(
      "production mode needs SECRET_KEY to be at least 32 random bytes, hex or base64 " +
        "(e.g. `openssl rand -base64 32`)"
    )
  }
  if (config.sandbox) {
    return Option.some("production mode refuses sandbox mode (SANDBOX=true or --sandbox)")
  }
  if (!config.trustProxy && (Option.isNone(config.tlsCertFile) || Option.isNone(config.tlsKeyFile))) {
    return Option.some(
      "production mode needs TLS_CERT_FILE and TLS_KEY_FILE, or TRUST_PROXY=true behind a TLS-terminating proxy"
    )
  }
  return Option.none()
}

/** Fails with the refusal of production mode, before anything (the port, the database) is touched. */
export const ProductionChecksLive = Layer.effectDiscard(
  Effect.flatMap(ServerConfig, (config) =>
    Option.match(productionRefusal(config), {
      onNone: () => Effect.void,
      onSome: (message) => Effect.fail(new ConfigRefusal({ message }))
    }))
)
