/**
 * Reading a caption such as "2 eggs, toast with butter, 250 ml black coffee" into measured foods:
 * the text is cut at commas, "and", "with", "+" and line ends; each part may start with an amount
 * (digits, decimals, fractions, "a", "half", number words) and a unit, and the rest names a food of
 * the table. Parts that name no known food are reported, never guessed.
 */
import type { DetectedItem } from "./NutrientResolver.js"
import { matchFood, normaliseUnit } from "./NutrientResolver.js"

export interface CaptionReading {
  readonly items: ReadonlyArray<DetectedItem>
  /** Parts of the caption that named no food of the table. */
  readonly unknown: ReadonlyArray<string>
}

const numberWords: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  half: 0.5,
  couple: 2,
  few: 3,
  some: 1
}

const fractions: Record<string, number> = { "½": 0.5, "¼": 0.25, "¾": 0.75, "⅓": 1 / 3, "⅔": 2 / 3 }

const parseAmount = (token: string): number | undefined => {
  if (token in fractions) return fractions[token]
  const fraction = /^(\d+)\/(\d+)$/.exec(token)
  if (fraction !== null && Number(fraction[2]) > 0) return Number(fraction[1]) / Number(fraction[2])
  if (/^\d+([.,]\d+)?$/.test(token)) return Number(token.replace(",", "."))
  return numberWords[token]
}

const fillers = new Set(["of", "x", "the", "my", "some"])

/** One part of a caption: "250 ml black coffee", "2 eggs", "a slice of toast". */
export const readPart = (part: string): DetectedItem | undefined => {
  // "250ml" and "2x" come apart as "250 ml" and "2 x".
  const tokens = part.toLowerCase()
    .replace(/(\d)([a-z½¼¾])/g, "$1 $2")
    .replace(/fl\.? oz/g, "floz")
    .split(/\s+/)
    .filter((t) => t.length > 0)
  let quantity = 1
  let index = 0
  const first = tokens[0] === undefined ? undefined : parseAmount(tokens[0])
  if (first !== undefined) {
    quantity = first
    index = 1
    // "1 1/2", "a half"
    const second = tokens[1] === undefined ? undefined : parseAmount(tokens[1])
    if (second !== undefined && second < 1) {
      quantity = tokens[0] === "a" || tokens[0] === "an" ? second : quantity + second
      index = 2
    }
  }
  let unit = ""
  const candidate = tokens[index]
  if (candidate !== undefined) {
    const normalised = normaliseUnit(candidate)
    // A unit word that is also the food ("2 eggs") stays part of the name.
    if (normalised !== undefined && normalised !== "" && normalised !== "egg" && tokens.length > index + 1) {
      unit = normalised
      index++
    }
  }
  while (index < tokens.length - 1 && fillers.has(tokens[index]!)) index++
  const name = tokens.slice(index).join(" ")
  if (name === "" || matchFood(name) === undefined) return undefined
  return {
    name,
    quantity,
    unit: unit === "" ? "serving" : unit,
    estimatedGrams: null,
    estimatedVolumeMl: null,
    confidence: null,
    modelNutrients: null
  }
}

export const readCaption = (caption: string): CaptionReading => {
  const parts = caption
    .split(/,|;|\n|\+|&|\band\b|\bwith\b|\bplus\b/i)
    .map((p) => p.trim().replace(/[.!]+$/, ""))
    .filter((p) => p.length > 0)
  const items: Array<DetectedItem> = []
  const unknown: Array<string> = []
  for (const part of parts) {
    const item = readPart(part)
    if (item === undefined) unknown.push(part)
    else items.push(item)
  }
  return { items, unknown }
}
