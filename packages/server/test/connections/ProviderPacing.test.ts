/**
 * The pacing of provider calls against an app's budget (tier 1, on the test clock): a budget of n requests per
 * window lets n go at once, then each next one when the oldest leaves the window; calls reserve their turns, so
 * calls made together never share one; each app (client id) and provider has its own budgets; a budget stated per
 * user is not paced.
 */
import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import type { ProviderPlugin } from "@pulsebridge/providers"
import { makeRegistry, ProviderRegistry, WhoopPlugin, WithingsPlugin } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { ProviderPacing } from "../../src/connections/ProviderPacing.js"

const withLimits = (plugin: ProviderPlugin, rateLimits: ProviderPlugin["catalog"]["limits"]["rateLimits"]) => ({
  ...plugin,
  catalog: { ...plugin.catalog, limits: { ...plugin.catalog.limits, rateLimits } }
})

const registry = makeRegistry([
  withLimits(WithingsPlugin, [{ requests: 3, windowSeconds: 60, per: "app" }]),
  withLimits(WhoopPlugin, [
    { requests: 2, windowSeconds: 10, per: "app" },
    { requests: 3, windowSeconds: 60, per: "app" },
    { requests: 1, windowSeconds: 60, per: "user" }
  ])
])

const PacingTest = ProviderPacing.Default.pipe(
  Layer.provide(Layer.succeed(ProviderRegistry, ProviderRegistry.make(registry)))
)

/** When each of `count` calls made together at time 0 got its turn, in seconds. */
const turnsAt = (provider: string, clientId: string, count: number) =>
  Effect.gen(function*() {
    const pacing = yield* ProviderPacing
    const times: Array<number> = []
    const fibers = yield* Effect.forEach(
      Array.from({ length: count }),
      () =>
        Effect.fork(
          Effect.zipRight(
            pacing.turn(provider, clientId),
            Effect.flatMap(Clock.currentTimeMillis, (ms) => Effect.sync(() => times.push(ms / 1000)))
          )
        )
    )
    yield* TestClock.adjust("10 minutes")
    yield* Fiber.joinAll(fibers)
    return times.sort((a, b) => a - b)
  })

describe("ProviderPacing", () => {
  it.effect("an app's budget lets its requests go at once, then each next one when the oldest leaves the window", () =>
    Effect.gen(function*() {
      expect(yield* turnsAt("Withings", "app-a", 7)).toEqual([0, 0, 0, 60, 60, 60, 120])
    }).pipe(Effect.provide(PacingTest)))

  it.effect("another app at the same provider has a budget of its own", () =>
    Effect.gen(function*() {
      const pacing = yield* ProviderPacing
      yield* Effect.forEach(Array.from({ length: 3 }), () => pacing.turn("Withings", "app-a"))
      expect(yield* turnsAt("Withings", "app-b", 3)).toEqual([0, 0, 0])
    }).pipe(Effect.provide(PacingTest)))

  it.effect("every per-app budget of a provider holds; a per-user budget is left to the provider", () =>
    Effect.gen(function*() {
      // two in any 10 s, and three in any minute: the third waits for the first 10 s to pass, the fourth for the
      // minute
      expect(yield* turnsAt("WHOOP", "app-a", 5)).toEqual([0, 0, 10, 60, 60])
    }).pipe(Effect.provide(PacingTest)))

  it.effect("a provider without a per-app budget is not paced, and neither is an unknown one", () =>
    Effect.gen(function*() {
      const pacing = yield* ProviderPacing
      const client = HttpClient.make((request) => Effect.succeed(HttpClientResponse.fromWeb(request, new Response())))
      expect(pacing.paced("Dexcom", "app-a", client)).toBe(client)
      expect(yield* turnsAt("Acme", "app-a", 5)).toEqual([0, 0, 0, 0, 0])
    }).pipe(Effect.provide(PacingTest)))

  it.effect("a paced client sends each request at its turn", () =>
    Effect.gen(function*() {
      const pacing = yield* ProviderPacing
      const sent: Array<number> = []
      const client = HttpClient.make((request) =>
        Effect.flatMap(Clock.currentTimeMillis, (ms) =>
          Effect.sync(() => {
            sent.push(ms / 1000)
            return HttpClientResponse.fromWeb(request, new Response())
          }))
      )
      const paced = pacing.paced("Withings", "app-c", client)
      const fibers = yield* Effect.forEach(
        Array.from({ length: 5 }),
        () => Effect.fork(paced.execute(HttpClientRequest.get("https://wbsapi.withings.test/measure")))
      )
      yield* TestClock.adjust("2 minutes")
      yield* Fiber.joinAll(fibers)
      expect(sent).toEqual([0, 0, 0, 60, 60])
    }).pipe(Effect.provide(PacingTest)))
})
