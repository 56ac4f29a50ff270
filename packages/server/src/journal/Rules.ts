/**
 * The journal's pure rules: the titles an entry gets, how a correction merges its items, nutrients
 * and title, the days whose scores an entry can move, and what an uploaded photo is (its type by
 * content, its dimensions, or why it is refused). No database and no clock: `Journal` applies them.
 */
import type { EntryKind, ItemInput, UpdateJournalEntryPayload } from "@pulsebridge/domain"
import { MaxImageBytes } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import { imageSize } from "image-size"
import { addDays } from "../platform/Calendar.js"
import type { JournalRow } from "../scoring/Intake.js"
import { caffeineOf, isMeal } from "../scoring/Intake.js"
import { ImageEmpty, ImageTooLarge, ImageTypeUnsupported, ImageUnreadable } from "./Errors.js"
import { checkImageStructure, type ImageKind } from "./ImageStructure.js"
import type { NewItem } from "./JournalRepo.js"
import type { NutrientValues } from "./Nutrients.js"
import * as N from "./Nutrients.js"

// ---- titles ----

export const MaxTitleLength = 200

/** The title of an entry with items: the item's name, or the names joined. */
export const titleOf = (names: ReadonlyArray<string>): string => {
  const joined = names.join(", ")
  return joined.length <= MaxTitleLength ? joined : `${joined.slice(0, MaxTitleLength - 1)}…`
}

export const defaultTitle: Record<EntryKind, string> = {
  Meal: "Meal",
  Drink: "Drink",
  Water: "Water",
  Coffee: "Coffee"
}
export const photoTitle: Record<EntryKind, string> = {
  Meal: "Meal photo",
  Drink: "Drink photo",
  Water: "Water photo",
  Coffee: "Coffee photo"
}

// ---- corrections ----

export const cancelledReason = "Cancelled: the entry was edited before the analysis finished"

/** An item of a correction: the user's own, with the nutrients the user gave (if any). */
export const itemFromInput = (item: ItemInput): NewItem => ({
  name: item.name,
  category: "",
  quantity: item.quantity,
  unit: item.unit,
  estimatedWeightGrams: null,
  confidence: null,
  nutrients: N.fromInput(item.nutrients),
  nutrientSource: item.nutrients === undefined ? null : "User",
  foodSourceId: null
})

/**
 * The nutrients and title of an entry after a correction: items given make the nutrients their sum
 * and, unless a title is given too, the title their names; nutrients given replace the keys they
 * supply. Nutrients on an entry with items are refused before this (`NutrientsOfItemizedEntry`).
 */
export const mergeCorrection = (
  current: { readonly title: string; readonly nutrients: NutrientValues },
  payload: Pick<UpdateJournalEntryPayload, "title" | "nutrients">,
  items: ReadonlyArray<NewItem> | undefined
): { readonly title: string; readonly nutrients: NutrientValues } => {
  let nutrients = current.nutrients
  let title = payload.title ?? current.title
  if (items !== undefined && items.length > 0) {
    nutrients = N.sum(items.map((item) => item.nutrients))
    if (payload.title === undefined) title = titleOf(items.map((item) => item.name))
  }
  if (payload.nutrients !== undefined) nutrients = N.merge(nutrients, payload.nutrients)
  return { title, nutrients }
}

// ---- scores ----

/**
 * The days whose scores an entry's caffeine or meal can move (`scoring/Intake.ts` reads the 24 h before each
 * night's sleep onset): the nights that end from the day before its journal date (another time zone) to two days
 * after it (an evening coffee counts for a sleep that starts the next evening). Entries the sleep score does not
 * read (water, a drink without caffeine) move nothing.
 */
export const scoreDatesOf = (
  entries: ReadonlyArray<JournalRow & { readonly journalDate: string }>
): ReadonlyArray<string> => {
  const dates = new Set<string>()
  for (const entry of entries) {
    if (caffeineOf(entry) === null && !isMeal(entry)) continue
    for (let offset = -1; offset <= 2; offset++) dates.add(addDays(entry.journalDate, offset))
  }
  return Array.from(dates).sort()
}

// ---- photos ----

/** The image types accepted for a scan, by what the file is (not what the client says it is). */
const imageTypes: Record<string, { readonly contentType: string; readonly extension: string }> = {
  jpg: { contentType: "image/jpeg", extension: "jpg" },
  png: { contentType: "image/png", extension: "png" },
  webp: { contentType: "image/webp", extension: "webp" }
}

/** An accepted photo: its type by content and its dimensions. */
export interface InspectedImage {
  readonly contentType: string
  readonly extension: string
  readonly width: number
  readonly height: number
}

/** Reads an uploaded photo: its type (by content) and its dimensions. */
export const inspectImage = (
  bytes: Uint8Array
): Effect.Effect<InspectedImage, ImageEmpty | ImageTooLarge | ImageTypeUnsupported | ImageUnreadable> => {
  if (bytes.length === 0) return Effect.fail(new ImageEmpty())
  if (bytes.length > MaxImageBytes) return Effect.fail(new ImageTooLarge({ sizeBytes: bytes.length }))
  let size: ReturnType<typeof imageSize>
  try {
    size = imageSize(bytes)
  } catch (e) {
    const message = (e as Error).message
    return Effect.fail(
      message.startsWith("unsupported file type")
        ? new ImageTypeUnsupported({ recognised: false, detected: undefined })
        : new ImageUnreadable({})
    )
  }
  const type = size.type === undefined ? undefined : imageTypes[size.type]
  if (type === undefined) return Effect.fail(new ImageTypeUnsupported({ recognised: true, detected: size.type }))
  const structure = checkImageStructure(size.type as ImageKind, bytes)
  if (structure._tag === "Invalid") {
    return Effect.fail(new ImageUnreadable({ kind: type.extension.toUpperCase(), reason: structure.reason }))
  }
  return Effect.succeed({ ...type, width: structure.shape.width, height: structure.shape.height })
}

/** The stored name of an uploaded photo: the client's, cut to the column, or one from its type when blank. */
export const storedFileName = (fileName: string, extension: string): string =>
  fileName.trim() === "" ? `photo.${extension}` : fileName.slice(0, 255)
