/**
 * The registry service: one adapter per provider, consistent with the catalog, and the production
 * endpoints of each.
 */
import { describe, expect, it } from "@effect/vitest"
import { providers } from "@pulsebridge/domain"
import { adapters, builtinPlugins, catalog, DexcomHosts, makeRegistry, ProviderRegistry } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const fakeFitbit = { ...adapters.Fitbit, defaultEndpoints: { authBaseUrl: "a", tokenBaseUrl: "t", apiBaseUrl: "p" } }

describe("ProviderRegistry", () => {
  it.effect("holds an adapter for every provider, matching the catalog", () =>
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      for (const provider of providers) {
        const adapter = registry.get(provider)
        expect(adapter.provider).toBe(provider)
        expect(adapter.authType).toBe(catalog[provider].authType)
        expect(registry.defaultEndpoints(provider)).toEqual(adapter.defaultEndpoints)
      }
    }).pipe(Effect.provide(ProviderRegistry.Default)))

  it.effect("knows the production endpoints", () =>
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      expect(registry.defaultEndpoints("Fitbit")).toEqual({
        authBaseUrl: "https://www.fitbit.com",
        tokenBaseUrl: "https://api.fitbit.com",
        apiBaseUrl: "https://api.fitbit.com"
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
      expect(registry.get("Garmin")).toBe(adapters.Garmin)
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
    expect(registry.get("Fitbit").defaultScopes).toEqual(["activity", "heartrate", "profile", "sleep"])
    expect(registry.get("WHOOP").defaultScopes).toContain("offline")
    expect(registry.get("Dexcom").defaultScopes).toEqual(["offline_access"])
    expect(registry.get("Garmin").defaultScopes).toEqual([])
  })
})
