/**
 * The registry: one plug-in per provider in listing order, found by name and by slug, consistent
 * with itself and with the catalogue; a fifth provider registered next to the built-in ones;
 * duplicates refused; score priorities as the scoring table; and the production endpoints.
 */
import { describe, expect, it } from "@effect/vitest"
import { ProviderInfo, providers } from "@pulsebridge/domain"
import type { ProviderAdapter, ProviderData, ProviderPlugin, ScoreInput } from "@pulsebridge/providers"
import {
  builtinPlugins,
  DexcomHosts,
  DexcomPlugin,
  emptyBatch,
  FitbitPlugin,
  GarminPlugin,
  makeRegistry,
  OuraPlugin,
  ProviderError,
  ProviderRegistry,
  scoreInputs,
  toProviderInfo,
  WhoopPlugin,
  WithingsPlugin
} from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const fakeFitbit = {
  ...FitbitPlugin.adapter,
  defaultEndpoints: { authBaseUrl: "a", tokenBaseUrl: "t", apiBaseUrl: "p" }
}

describe("ProviderRegistry", () => {
  it.effect("holds an adapter for every provider, matching the catalog", () =>
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      for (const provider of providers) {
        const adapter = registry.get(provider)
        expect(adapter.provider).toBe(provider)
        expect(adapter.authType).toBe(registry.plugin(provider).catalog.authType)
        expect(registry.defaultEndpoints(provider)).toEqual(adapter.defaultEndpoints)
      }
    }).pipe(Effect.provide(ProviderRegistry.Default)))

  it.effect("knows the production endpoints", () =>
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      expect(registry.defaultEndpoints("Fitbit")).toEqual({
        authBaseUrl: "https://accounts.google.com",
        tokenBaseUrl: "https://oauth2.googleapis.com",
        apiBaseUrl: "https://health.googleapis.com"
      })
      expect(registry.defaultEndpoints("Garmin")).toEqual({
        authBaseUrl: "https://connect.garmin.com",
        tokenBaseUrl: "https://connectapi.garmin.com",
        apiBaseUrl: "https://apis.garmin.com"
      })
      expect(registry.defaultEndpoints("WHOOP")).toEqual({
        authBaseUrl: "https://api.prod.whoop.com",
        tokenBaseUrl: "https://api.prod.whoop.com",
        apiBaseUrl: "https://api.prod.whoop.com"
      })
      expect(registry.defaultEndpoints("Dexcom").apiBaseUrl).toBe(DexcomHosts.us)
    }).pipe(Effect.provide(ProviderRegistry.Default)))

  it.effect("can be built over other adapters", () =>
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      expect(registry.defaultEndpoints("Fitbit").authBaseUrl).toBe("a")
      expect(registry.get("Garmin")).toBe(GarminPlugin.adapter)
    }).pipe(
      Effect.provide(
        Layer.succeed(
          ProviderRegistry,
          new ProviderRegistry(
            makeRegistry(
              builtinPlugins.map((plugin) =>
                plugin.catalog.name === "Fitbit" ? { ...plugin, adapter: fakeFitbit } : plugin
              )
            )
          )
        )
      )
    ))

  it("lists the default scopes of each provider", () => {
    const registry = makeRegistry()
    expect(registry.get("Fitbit").defaultScopes).toEqual([
      "https://www.googleapis.com/auth/googlehealth.activity_and_fitness.readonly",
      "https://www.googleapis.com/auth/googlehealth.sleep.readonly",
      "https://www.googleapis.com/auth/googlehealth.health_metrics_and_measurements.readonly"
    ])
    expect(registry.get("WHOOP").defaultScopes).toContain("offline")
    expect(registry.get("Dexcom").defaultScopes).toEqual(["offline_access"])
    expect(registry.get("Garmin").defaultScopes).toEqual([])
  })
})

// ---- the plug-ins ----

/** A provider the domain does not list, as a test or a deployment would plug it in. */
const polarAdapter: ProviderAdapter = {
  ...FitbitPlugin.adapter,
  provider: "Polar",
  defaultScopes: ["daily"],
  defaultEndpoints: { authBaseUrl: "https://auth.polar.test", tokenBaseUrl: "t", apiBaseUrl: "a" }
}
const polarData: ProviderData = {
  windowDays: 10,
  maxBackfillDays: 90,
  fetchWindow: () => Effect.succeed(emptyBatch),
  notify: (_input, notification) =>
    Effect.fail(new ProviderError({ provider: "Polar", operation: "notification", message: String(notification) }))
}
const polarPlugin: ProviderPlugin = {
  catalog: {
    name: "Polar",
    slug: "polar",
    authType: "OAuth2",
    logoUrl: null,
    supportedDataTypes: ["Sleep"],
    scorePriority: { sleep: 1, hrv: 0 },
    limits: { maxBackfillDays: 90, windowDays: 10, rateLimits: [{ requests: 5000, windowSeconds: 300, per: "app" }] }
  },
  adapter: polarAdapter,
  data: polarData
}

describe("the plug-in registry", () => {
  it("lists the six built-in plug-ins in listing order, each consistent with itself", () => {
    const registry = makeRegistry()
    expect(registry.plugins.map((p) => p.catalog.name)).toEqual([
      "Fitbit",
      "Garmin",
      "WHOOP",
      "Dexcom",
      "Oura",
      "Withings"
    ])
    // beyond the contract's four: listed outside sandbox mode only where an app configured them
    expect(registry.plugins.filter((p) => p.catalog.listedWhenConfigured === true).map((p) => p.catalog.name))
      .toEqual(["Oura", "Withings"])
    expect(builtinPlugins.map((p) => p.catalog.name)).toEqual([...providers])
    for (const plugin of registry.plugins) {
      expect(plugin.adapter.provider).toBe(plugin.catalog.name)
      expect(plugin.adapter.authType).toBe(plugin.catalog.authType)
      expect(plugin.catalog.limits.windowDays).toBe(plugin.data.windowDays)
      expect(plugin.catalog.limits.maxBackfillDays).toBe(plugin.data.maxBackfillDays)
    }
    expect(builtinPlugins.filter((p) => p.webhooks !== undefined).map((p) => p.catalog.name)).toEqual([
      "Fitbit",
      "Garmin",
      "WHOOP",
      "Oura",
      "Withings"
    ])
  })

  it("finds a plug-in by name and by slug, and nothing for an unknown one", () => {
    const registry = makeRegistry()
    expect(registry.find("WHOOP")).toEqual(Option.some(WhoopPlugin))
    expect(registry.bySlug("whoop")).toEqual(Option.some(WhoopPlugin))
    expect(registry.bySlug("garmin").pipe(Option.map((p) => p.catalog.name))).toEqual(Option.some("Garmin"))
    expect(registry.find("Polar")).toEqual(Option.none())
    expect(registry.bySlug("WHOOP")).toEqual(Option.none())
    expect(registry.plugin("Dexcom")).toBe(DexcomPlugin)
    expect(registry.get("Fitbit")).toBe(FitbitPlugin.adapter)
    expect(() => registry.plugin("Polar")).toThrow(/No provider plug-in is named Polar/)
    expect(() => registry.get("Polar")).toThrow(/Polar/)
  })

  it("registers a fifth provider the domain does not list, next to the built-in ones", () => {
    const registry = makeRegistry([...builtinPlugins, polarPlugin])
    expect(registry.plugins.map((p) => p.catalog.slug)).toEqual([
      "fitbit",
      "garmin",
      "whoop",
      "dexcom",
      "oura",
      "withings",
      "polar"
    ])
    expect(registry.get("Polar")).toBe(polarAdapter)
    expect(registry.defaultEndpoints("Polar").authBaseUrl).toBe("https://auth.polar.test")
    expect(registry.bySlug("polar")).toEqual(Option.some(polarPlugin))
    expect(registry.adapters.Polar).toBe(polarAdapter)
    // equal ranks keep the listing order
    expect(registry.scoreOrder("hrv")).toEqual(["WHOOP", "Oura", "Polar", "Garmin", "Fitbit"])
    expect(registry.scoreOrder("sleep")).toEqual(["WHOOP", "Oura", "Garmin", "Polar", "Fitbit", "Withings"])
  })

  it("refuses two plug-ins with one name or one slug, and an adapter for another provider", () => {
    expect(() => makeRegistry([...builtinPlugins, FitbitPlugin])).toThrow(/named Fitbit/)
    expect(() =>
      makeRegistry([...builtinPlugins, { ...polarPlugin, catalog: { ...polarPlugin.catalog, slug: "dexcom" } }])
    )
      .toThrow(/slug dexcom/)
    expect(() => makeRegistry([{ ...polarPlugin, adapter: WhoopPlugin.adapter }])).toThrow(/adapter is for WHOOP/)
  })

  it("ranks score sources exactly as the scoring's provider priority table", () => {
    const registry = makeRegistry()
    const table: Record<ScoreInput, ReadonlyArray<string>> = {
      sleep: ["WHOOP", "Oura", "Garmin", "Fitbit", "Withings"],
      hrv: ["WHOOP", "Oura", "Garmin", "Fitbit"],
      restingHeartRate: ["WHOOP", "Oura", "Garmin", "Fitbit"],
      skinTemperature: ["WHOOP", "Oura", "Garmin", "Fitbit"],
      spo2: ["WHOOP", "Oura", "Garmin", "Fitbit"],
      steps: ["Garmin", "Fitbit", "WHOOP", "Oura", "Withings"],
      activeMinutes: ["Garmin", "Fitbit", "WHOOP", "Oura", "Withings"],
      sedentaryTime: ["Garmin", "Fitbit", "Oura"],
      activeCalories: ["Garmin", "Fitbit", "Oura", "Withings"],
      trainingLoad: ["WHOOP", "Garmin", "Fitbit"]
    }
    expect([...scoreInputs].sort()).toEqual(Object.keys(table).sort())
    for (const input of scoreInputs) expect(registry.scoreOrder(input)).toEqual(table[input])
    expect(DexcomPlugin.catalog.scorePriority).toEqual({})
  })

  it("carries each provider's documented rate limit", () => {
    expect(FitbitPlugin.catalog.limits.rateLimits).toEqual([
      { requests: 300, windowSeconds: 60, per: "user" },
      { requests: 120_000, windowSeconds: 60, per: "app" }
    ])
    expect(WhoopPlugin.catalog.limits.rateLimits).toEqual([
      { requests: 100, windowSeconds: 60, per: "app" },
      { requests: 10_000, windowSeconds: 86_400, per: "app" }
    ])
    expect(DexcomPlugin.catalog.limits.rateLimits).toEqual([{ requests: 60_000, windowSeconds: 3600, per: "app" }])
    expect(GarminPlugin.catalog.limits.rateLimits).toEqual([])
    expect(OuraPlugin.catalog.limits.rateLimits).toEqual([
      { requests: 5000, windowSeconds: 86_400, per: "user" },
      { requests: 300, windowSeconds: 60, per: "user" }
    ])
    expect(WithingsPlugin.catalog.limits.rateLimits).toEqual([{ requests: 120, windowSeconds: 60, per: "app" }])
  })

  it("lists the built-in providers in order, each catalogue entry as the contract's ProviderInfo", () => {
    const registry = makeRegistry()
    for (const plugin of registry.plugins) {
      const name = plugin.catalog.name
      expect(registry.adapters[name]).toBe(plugin.adapter)
      expect(registry.plugin(name).data).toBe(plugin.data)
      expect(toProviderInfo(plugin.catalog)).toEqual(
        new ProviderInfo({
          name,
          slug: plugin.catalog.slug,
          authType: plugin.catalog.authType,
          logoUrl: plugin.catalog.logoUrl,
          supportedDataTypes: plugin.catalog.supportedDataTypes
        })
      )
    }
    expect(registry.plugins.map((plugin) => plugin.catalog.name)).toEqual([
      "Fitbit",
      "Garmin",
      "WHOOP",
      "Dexcom",
      "Oura",
      "Withings"
    ])
    expect(WhoopPlugin.catalog.supportedDataTypes).toContain("Recovery")
    expect(DexcomPlugin.catalog.supportedDataTypes).toEqual(["GlucoseReading", "GlucoseEvent", "GlucoseCalibration"])
  })
})
