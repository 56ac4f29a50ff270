/**
 * Nutrient arithmetic shared by the journal and the analysers: the nine keys, where null means
 * unknown. A sum keeps what is known (null + n = n) and stays null only when nothing is known.
 */
import type { NutrientKey, NutrientsInput } from "@pulsebridge/domain"
import { nutrientKeys, Nutrients } from "@pulsebridge/domain"

export type NutrientValues = { readonly [K in NutrientKey]: number | null }

export const emptyNutrients: NutrientValues = Object.fromEntries(nutrientKeys.map((k) => [k, null])) as any

/** Supplied keys of a request, the rest null. */
export const fromInput = (input: NutrientsInput | undefined): NutrientValues =>
  Object.fromEntries(nutrientKeys.map((k) => [k, input?.[k] ?? null])) as any

/** `base` with the keys that `input` supplies (null included) replaced. */
export const merge = (base: NutrientValues, input: NutrientsInput): NutrientValues =>
  Object.fromEntries(nutrientKeys.map((k) => [k, k in input && input[k] !== undefined ? input[k] : base[k]])) as any

const round = (n: number) => Math.round(n * 100) / 100

export const sum = (values: ReadonlyArray<NutrientValues>): NutrientValues =>
  Object.fromEntries(nutrientKeys.map((k) => {
    let total: number | null = null
    for (const v of values) {
      const n = v[k]
      if (n !== null) total = (total ?? 0) + n
    }
    return [k, total === null ? null : round(total)]
  })) as any

export const toNutrients = (values: NutrientValues): Nutrients => new Nutrients({ ...values }, true)

export const isEmpty = (values: NutrientValues): boolean => nutrientKeys.every((k) => values[k] === null)

/** The nine keys of a row that holds them beside other columns. */
export const nutrientsOf = (row: NutrientValues): NutrientValues =>
  Object.fromEntries(nutrientKeys.map((k) => [k, row[k]])) as any
