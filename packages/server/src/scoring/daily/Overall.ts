/**
 * The overall score: the weighted mean of the available pillars, with at least two of the three.
 */
import type { PillarContribution, PillarKey } from "@pulsebridge/domain"
import { r1, r4 } from "./Factors.js"
import { Weights } from "./Parameters.js"

/** Weighted mean of the available pillars; null with fewer than two. */
export const overallOf = (
  scores: Readonly<Record<PillarKey, number | null>>
): { score: number | null; pillars: ReadonlyArray<PillarContribution> } => {
  const keys: ReadonlyArray<PillarKey> = ["sleep", "recovery", "activity"]
  let available = 0
  let sum = 0
  let count = 0
  for (const key of keys) {
    const s = scores[key]
    if (s === null) continue
    available += Weights.overall[key]
    sum += Weights.overall[key] * s
    count++
  }
  const score = count >= 2 ? Math.round(sum / available) : null
  return {
    score,
    pillars: keys.map((key) => {
      const s = scores[key]
      const effectiveWeight = score !== null && s !== null ? Weights.overall[key] / available : 0
      return {
        key,
        score: s,
        weight: Weights.overall[key],
        effectiveWeight: r4(effectiveWeight),
        pointsLost: r1(effectiveWeight * (100 - (s ?? 100)))
      }
    })
  }
}
