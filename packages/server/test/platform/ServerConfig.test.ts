/**
 * `ServerConfig.make` and the defaults that depend on other settings: an empty environment decodes to exactly
 * `defaultServerConfig`, overrides land over the same defaults, and the analyser and the sync's write concurrency
 * follow the settings as overridden, read from the environment or given in code alike.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { defaultServerConfig, productionRefusal, ServerConfig, serverConfig } from "../../src/platform/ServerConfig.js"

const environment = (env: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(env)))

const read = (env: Record<string, string>) => Effect.withConfigProvider(serverConfig, environment(env))

const readWith = (env: Record<string, string>, overrides: Parameters<typeof ServerConfig.DefaultWith>[0]) =>
  Effect.provide(ServerConfig, ServerConfig.DefaultWith(overrides)).pipe(Effect.withConfigProvider(environment(env)))

const postgres = Option.some(Redacted.make("postgres://pulsebridge@localhost/pulsebridge"))

describe("ServerConfig.make", () => {
  it.effect("an empty environment decodes to the defaults make gives", () =>
    Effect.gen(function*() {
      expect(yield* read({})).toStrictEqual(defaultServerConfig)
      expect(ServerConfig.make()).toStrictEqual(defaultServerConfig)
    }))

  it("overrides land over the defaults, the rest as documented", () => {
    const config = ServerConfig.make({ port: 0, backfillDays: 7 })
    expect(config).toStrictEqual({ ...defaultServerConfig, port: 0, backfillDays: 7 })
    expect(config.host).toBe("0.0.0.0")
    expect(config.dataDir).toBe("./.pulsebridge")
    expect(config.syncCron).toBe("0 * * * *")
    expect(config.requestTimeoutMs).toBe(30_000)
    expect(config.uploadTimeoutMs).toBe(120_000)
    expect(config.statementTimeoutMs).toBe(60_000)
    expect(config.runnerHost).toBe("localhost")
    expect(config.runnerPort).toBe(34431)
    expect(config.dexcomOAuthPath).toBe("/v3/oauth2")
    expect(config.webhookAllowPrivate).toBe(false)
    expect(config.webhookCaFile).toStrictEqual(Option.none())
    expect(config.webhookDelivery).toBe(true)
    expect(config.rateLimits).toStrictEqual({
      enabled: true,
      apiKey: { perSecond: 20, burst: 100 },
      userToken: { perSecond: 10, burst: 50 },
      address: { perSecond: 5, burst: 30 }
    })
  })

  it.effect("the analyser: ANALYZER, else the simulator in sandbox mode, else openai with a base URL, else offline", () =>
    Effect.gen(function*() {
      expect((yield* read({})).analyzer).toBe("offline")
      expect((yield* read({ SANDBOX: "true" })).analyzer).toBe("sandbox")
      expect((yield* read({ ANALYZER_BASE_URL: "http://ollama:11434/v1" })).analyzer).toBe("openai")
      expect((yield* read({ SANDBOX: "true", ANALYZER: "offline" })).analyzer).toBe("offline")
      expect((yield* readWith({}, { sandbox: true })).analyzer).toBe("sandbox")
      expect((yield* readWith({ ANALYZER: "openai" }, { sandbox: true })).analyzer).toBe("openai")
      expect(ServerConfig.make({ sandbox: true }).analyzer).toBe("sandbox")
      expect(ServerConfig.make({ analyzerBaseUrl: "http://ollama:11434/v1" }).analyzer).toBe("openai")
      expect(ServerConfig.make({ sandbox: true, analyzer: "offline" }).analyzer).toBe("offline")
    }))

  it.effect("WEBHOOK_ALLOW_PRIVATE: as set, else only in sandbox mode (the webhook address guard is on by default)", () =>
    Effect.gen(function*() {
      expect((yield* read({})).webhookAllowPrivate).toBe(false)
      expect((yield* read({ NODE_ENV: "production" })).webhookAllowPrivate).toBe(false)
      expect((yield* read({ SANDBOX: "true" })).webhookAllowPrivate).toBe(true)
      expect((yield* read({ SANDBOX: "true", WEBHOOK_ALLOW_PRIVATE: "false" })).webhookAllowPrivate).toBe(false)
      expect((yield* read({ WEBHOOK_ALLOW_PRIVATE: "true" })).webhookAllowPrivate).toBe(true)
      expect((yield* readWith({}, { sandbox: true })).webhookAllowPrivate).toBe(true)
      expect((yield* readWith({ WEBHOOK_ALLOW_PRIVATE: "false" }, { sandbox: true })).webhookAllowPrivate).toBe(false)
      expect(ServerConfig.make({ sandbox: true }).webhookAllowPrivate).toBe(true)
      expect(ServerConfig.make({ sandbox: true, webhookAllowPrivate: false }).webhookAllowPrivate).toBe(false)
    }))

  it.effect("the OpenAI-compatible API: OpenAI's and gpt-4o-mini unless set", () =>
    Effect.gen(function*() {
      const unset = yield* read({})
      expect(unset.analyzerBaseUrl).toBe("https://api.openai.com/v1")
      expect(unset.analyzerModel).toBe("gpt-4o-mini")
      const set = yield* read({ ANALYZER_BASE_URL: "http://ollama:11434/v1", ANALYZER_MODEL: "llava" })
      expect(set.analyzerBaseUrl).toBe("http://ollama:11434/v1")
      expect(set.analyzerModel).toBe("llava")
    }))

  it.effect("the sync's write concurrency: as set, else half the PostgreSQL pool, else 1 on the embedded database", () =>
    Effect.gen(function*() {
      const url = "postgres://pulsebridge@localhost/pulsebridge"
      expect((yield* read({})).syncStoreConcurrency).toBe(1)
      expect((yield* read({ DATABASE_URL: url })).syncStoreConcurrency).toBe(5)
      expect((yield* read({ DATABASE_URL: url, DATABASE_POOL_SIZE: "24" })).syncStoreConcurrency).toBe(12)
      expect((yield* read({ DATABASE_URL: url, DATABASE_POOL_SIZE: "3" })).syncStoreConcurrency).toBe(1)
      expect((yield* read({ DATABASE_URL: url, SYNC_STORE_CONCURRENCY: "7" })).syncStoreConcurrency).toBe(7)
      expect((yield* readWith({ DATABASE_POOL_SIZE: "24" }, { databaseUrl: postgres })).syncStoreConcurrency)
        .toBe(12)
      expect(ServerConfig.make({ databaseUrl: postgres, databasePoolSize: 40 }).syncStoreConcurrency).toBe(20)
      expect(ServerConfig.make({ databaseUrl: postgres, syncStoreConcurrency: 2 }).syncStoreConcurrency).toBe(2)
    }))
})

/**
 * Production mode's refusals, from the configuration as `serve` reads it (`--sandbox` is `DefaultWith({ sandbox:
 * true })`): the message `serve` prints as its one line. That a refusal is that one line, exit code 1, before the
 * database is touched, is the process's behaviour, which Lifecycle.test.ts checks on a child.
 */
describe("productionRefusal", () => {
  const strongKey = crypto.randomBytes(32).toString("base64")
  const refusal = (env: Record<string, string>, overrides: Parameters<typeof ServerConfig.DefaultWith>[0] = {}) =>
    Effect.map(
      readWith({ NODE_ENV: "production", ...env }, overrides),
      (config) => Option.getOrElse(productionRefusal(config), () => "none")
    )

  it.effect("refuses a SECRET_KEY that is not 32 random bytes", () =>
    Effect.gen(function*() {
      expect(yield* refusal({ TRUST_PROXY: "true" })).toContain("needs SECRET_KEY")
      expect(yield* refusal({ TRUST_PROXY: "true", SECRET_KEY: "abc" })).toContain("at least 32 random bytes")
      // 32 bytes, but a pattern rather than a random key.
      expect(yield* refusal({ TRUST_PROXY: "true", SECRET_KEY: "ab".repeat(32) })).toContain("at least 32 random bytes")
      // 31 random bytes.
      expect(yield* refusal({ TRUST_PROXY: "true", SECRET_KEY: crypto.randomBytes(31).toString("hex") }))
        .toContain("at least 32 random bytes")
    }))

  it.effect("refuses sandbox mode, by SANDBOX=true or --sandbox", () =>
    Effect.gen(function*() {
      expect(yield* refusal({ TRUST_PROXY: "true", SECRET_KEY: strongKey, SANDBOX: "true" }))
        .toContain("refuses sandbox mode")
      expect(yield* refusal({ TRUST_PROXY: "true", SECRET_KEY: strongKey }, { sandbox: true }))
        .toContain("refuses sandbox mode")
    }))

  it.effect("refuses to start without TLS files unless TRUST_PROXY=true", () =>
    Effect.gen(function*() {
      expect(yield* refusal({ SECRET_KEY: strongKey })).toContain("needs TLS_CERT_FILE and TLS_KEY_FILE")
      expect(yield* refusal({ SECRET_KEY: strongKey, TRUST_PROXY: "true" })).toBe("none")
      expect(yield* refusal({ SECRET_KEY: strongKey, TLS_CERT_FILE: "/c.pem", TLS_KEY_FILE: "/k.pem" })).toBe("none")
      expect(yield* refusal({ SECRET_KEY: "ab".repeat(32) }, { production: false })).toBe("none")
    }))
})
