/** `HEAP_GROWTH_PERCENT`: its default, its bounds, and a bad value refused with its name. */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { defaultHeapGrowthPercent, heapGrowthPercentConfig } from "../../src/platform/HeapGrowth.js"

const read = (env: Record<string, string>) =>
  Effect.either(
    Effect.withConfigProvider(heapGrowthPercentConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))
  )

describe("HEAP_GROWTH_PERCENT", () => {
  it.effect("defaults to 20 and takes 0 (V8's own policy) or 5 to 400", () =>
    Effect.gen(function*() {
      expect(defaultHeapGrowthPercent).toBe(20)
      expect(yield* read({})).toEqual(Either.right(20))
      expect(yield* read({ HEAP_GROWTH_PERCENT: "0" })).toEqual(Either.right(0))
      expect(yield* read({ HEAP_GROWTH_PERCENT: "400" })).toEqual(Either.right(400))
    }))

  it.effect("refuses anything else, naming the variable", () =>
    Effect.gen(function*() {
      for (const bad of ["4", "401", "-1", "twenty", "1.5"]) {
        const result = yield* read({ HEAP_GROWTH_PERCENT: bad })
        expect(Either.isLeft(result), bad).toBe(true)
        if (Either.isLeft(result)) expect(String(result.left), bad).toContain("HEAP_GROWTH_PERCENT")
      }
    }))
})
