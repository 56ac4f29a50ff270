/**
 * The journal's pure rules without a server: titles, the merge of a correction, the days an entry's
 * scores can move, and what an uploaded photo is. The end-to-end tests (`Journal.test.ts`,
 * `JournalScans.test.ts`, `webhooks/JournalEvents.test.ts`) show the same rules through the API.
 */
import { describe, expect, it } from "@effect/vitest"
import { MaxImageBytes } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as N from "../../src/journal/Nutrients.js"
import {
  inspectImage,
  itemFromInput,
  MaxTitleLength,
  mergeCorrection,
  scoreDatesOf,
  storedFileName,
  titleOf
} from "../../src/journal/Rules.js"
import { gif, makeJpeg, makePng, makeWebp } from "./fixtures/Images.js"

describe("titles", () => {
  it("an entry with items is titled by their names, joined", () => {
    expect(titleOf(["Apple"])).toBe("Apple")
    expect(titleOf(["Rice", "Chicken", "Salad"])).toBe("Rice, Chicken, Salad")
  })

  it("a title of too many names is cut to the longest title, ending in an ellipsis", () => {
    const title = titleOf(Array.from({ length: 60 }, (_, i) => `Food ${i}`))
    expect(title).toHaveLength(MaxTitleLength)
    expect(title.endsWith("…")).toBe(true)
    expect(title.startsWith("Food 0, Food 1, ")).toBe(true)
  })

  it("a photo keeps the client's name cut to 255 characters, or gets one from its type when blank", () => {
    expect(storedFileName("lunch.jpg", "jpg")).toBe("lunch.jpg")
    expect(storedFileName("  ", "png")).toBe("photo.png")
    expect(storedFileName("x".repeat(300), "webp")).toHaveLength(255)
  })
})

describe("the merge of a correction", () => {
  const current = { title: "Meal", nutrients: N.fromInput({ caloriesKcal: 700, proteinGrams: 30 }) }

  it("items replace the nutrients with the sum of what is known and title the entry by their names", () => {
    const items = [
      { name: "Rice", quantity: 150, unit: "g", nutrients: { caloriesKcal: 195, proteinGrams: 4 } },
      { name: "Chicken", quantity: 120, unit: "g", nutrients: { caloriesKcal: 198.5, sodiumMg: 89 } },
      { name: "Salad", quantity: 1, unit: "bowl" }
    ].map(itemFromInput)
    const merged = mergeCorrection(current, {}, items)
    expect(merged.title).toBe("Rice, Chicken, Salad")
    expect(merged.nutrients).toMatchObject({ caloriesKcal: 393.5, proteinGrams: 4, sodiumMg: 89, fatGrams: null })
  })

  it("a title given with the items wins over their names", () => {
    const items = [itemFromInput({ name: "Rice", quantity: 1, unit: "cup" })]
    expect(mergeCorrection(current, { title: "Lunch bowl" }, items).title).toBe("Lunch bowl")
  })

  it("nutrients given replace only the keys they supply, null included; the title stays", () => {
    const merged = mergeCorrection(current, { nutrients: { caloriesKcal: 0, proteinGrams: null } }, undefined)
    expect(merged.title).toBe("Meal")
    expect(merged.nutrients).toMatchObject({ caloriesKcal: 0, proteinGrams: null, fatGrams: null })
  })

  it("an empty item list keeps the nutrients and title", () => {
    expect(mergeCorrection(current, {}, [])).toEqual(current)
  })

  it("an item of a correction is the user's, with nutrients marked as the user's only when given", () => {
    expect(itemFromInput({ name: "Apple", quantity: 1, unit: "piece" })).toMatchObject({
      category: "",
      nutrientSource: null,
      nutrients: N.emptyNutrients
    })
    expect(itemFromInput({ name: "Apple", quantity: 1, unit: "piece", nutrients: { caloriesKcal: 95 } }))
      .toMatchObject({ nutrientSource: "User", nutrients: { caloriesKcal: 95, carbsGrams: null } })
  })
})

describe("the days an entry's scores can move", () => {
  const entry = (entryKind: "Meal" | "Drink" | "Water" | "Coffee", journalDate: string, values = {}) => ({
    entryKind,
    journalDate,
    consumedAtUtc: new Date(`${journalDate}T12:00:00Z`),
    ...N.fromInput(values)
  })

  it("caffeine or a meal moves the day before its journal date to two days after", () => {
    expect(scoreDatesOf([entry("Coffee", "2026-01-05")])).toEqual([
      "2026-01-04",
      "2026-01-05",
      "2026-01-06",
      "2026-01-07"
    ])
    expect(scoreDatesOf([entry("Meal", "2026-01-05", { caloriesKcal: 600 })])).toHaveLength(4)
  })

  it("water, a drink without caffeine and a snack move nothing", () => {
    expect(scoreDatesOf([
      entry("Water", "2026-01-05", { volumeMl: 500 }),
      entry("Drink", "2026-01-05"),
      entry("Meal", "2026-01-05", { caloriesKcal: 80 })
    ])).toEqual([])
  })

  it("an entry moved to another day names the nights of both days, once each, in order", () => {
    expect(scoreDatesOf([entry("Coffee", "2026-01-10"), entry("Coffee", "2026-01-05"), entry("Coffee", "2026-01-06")]))
      .toEqual([
        "2026-01-04",
        "2026-01-05",
        "2026-01-06",
        "2026-01-07",
        "2026-01-08",
        "2026-01-09",
        "2026-01-10",
        "2026-01-11",
        "2026-01-12"
      ])
  })
})

describe("an uploaded photo", () => {
  it.effect("a PNG, a JPEG and a WebP file are read by content, with their dimensions", () =>
    Effect.gen(function*() {
      expect(yield* inspectImage(makePng(8, 6))).toEqual({
        contentType: "image/png",
        extension: "png",
        width: 8,
        height: 6
      })
      expect(yield* inspectImage(makeJpeg(10, 12))).toEqual({
        contentType: "image/jpeg",
        extension: "jpg",
        width: 10,
        height: 12
      })
      expect(yield* inspectImage(makeWebp(5, 7))).toEqual({
        contentType: "image/webp",
        extension: "webp",
        width: 5,
        height: 7
      })
    }))

  it.effect("an empty file and one over 10 MiB are refused before they are read", () =>
    Effect.gen(function*() {
      expect(yield* Effect.flip(inspectImage(new Uint8Array()))).toMatchObject({ _tag: "ImageEmpty" })
      const big = new Uint8Array(MaxImageBytes + 1)
      big.set(makePng(8, 8))
      expect(yield* Effect.flip(inspectImage(big))).toMatchObject({
        _tag: "ImageTooLarge",
        sizeBytes: MaxImageBytes + 1
      })
    }))

  it.effect("a GIF is a known type that is refused by name; text is an unknown type", () =>
    Effect.gen(function*() {
      const refusedGif = yield* Effect.flip(inspectImage(gif))
      expect(refusedGif).toMatchObject({ _tag: "ImageTypeUnsupported", recognised: true, detected: "gif" })
      expect(refusedGif.message).toBe("The image must be a JPEG, PNG or WebP file, not gif")
      const text = yield* Effect.flip(inspectImage(new TextEncoder().encode("not an image")))
      expect(text).toMatchObject({ _tag: "ImageTypeUnsupported", recognised: false })
      expect(text.message).toBe("The image must be a JPEG, PNG or WebP file")
    }))

  it.effect("a known signature on a file not built as that type is unreadable", () =>
    Effect.gen(function*() {
      const truncated = yield* Effect.flip(inspectImage(makeJpeg(10, 10).slice(0, 12)))
      expect(truncated).toMatchObject({ _tag: "ImageUnreadable" })
      expect(truncated.message).toBe("The image could not be read: it is damaged or truncated")
      const png = makePng(8, 8)
      const broken = yield* Effect.flip(inspectImage(png.slice(0, png.length - 4)))
      expect(broken).toMatchObject({ _tag: "ImageUnreadable", kind: "PNG" })
    }))
})
