/**
 * Factors and pillars: how a factor is recorded (`scored`, `unavailable`, `calibrating`) and how a
 * pillar is assembled from its factors, as a weighted mean over the scored ones with the weights of
 * the others renormalised away, null under `MinCoverage` or without data of the day. Penalty
 * factors (the journal's intake before sleep) only take points off that mean and never join it.
 */
import type {
  PillarBreakdown,
  Provider,
  ScoreFactor,
  ScoreFactorKey,
  ScoreFlag,
  ScoreReference
} from "@pulsebridge/domain"
import { MinCoverage } from "./Parameters.js"

/** A factor before its pillar is assembled: its effective weight is known only then. */
export interface Draft {
  readonly key: ScoreFactorKey
  readonly value: number | null
  readonly unit: string
  readonly reference: ScoreReference | null
  readonly subScore: number | null
  readonly state: ScoreFactor["state"]
  readonly source: Provider | null
}

export const r1 = (x: number): number => Math.round(x * 10) / 10
export const r2 = (x: number): number => Math.round(x * 100) / 100
export const r4 = (x: number): number => Math.round(x * 10_000) / 10_000

export const scored = (
  key: ScoreFactorKey,
  value: number,
  unit: string,
  reference: ScoreReference | null,
  subScore: number,
  source: Provider | null
): Draft => ({ key, value, unit, reference, subScore, state: "scored", source })

export const unavailable = (key: ScoreFactorKey, unit: string, reference: ScoreReference | null = null): Draft => ({
  key,
  value: null,
  unit,
  reference,
  subScore: null,
  state: "unavailable",
  source: null
})

export const calibrating = (
  key: ScoreFactorKey,
  value: number,
  unit: string,
  days: number,
  source: Provider
): Draft => ({
  key,
  value,
  unit,
  reference: { kind: "baseline", days },
  subScore: null,
  state: "calibrating",
  source
})

const factorOf = (d: Draft, weight: number, effectiveWeight: number): ScoreFactor => ({
  key: d.key,
  value: d.value === null ? null : r2(d.value),
  unit: d.unit,
  reference: d.reference,
  subScore: d.subScore === null ? null : r1(d.subScore),
  weight,
  effectiveWeight: r4(effectiveWeight),
  pointsLost: r1(effectiveWeight * (100 - (d.subScore ?? 100))),
  state: d.state,
  source: d.source
})

/**
 * Factors that only cost points: each scored one takes `weight x (100 - subScore)` off the pillar's
 * weighted mean, without renormalising the other factors and without counting in the coverage, so
 * that a pillar without them is exactly the pillar it would be if they did not exist.
 */
export interface Penalties {
  readonly weights: Readonly<Record<string, number>>
  readonly drafts: ReadonlyArray<Draft>
}

/**
 * Weighted mean over the scored factors, less the points of the penalties, or null under
 * `MinCoverage` or without data of the day.
 */
export const assemblePillar = (
  weights: Readonly<Record<string, number>>,
  drafts: ReadonlyArray<Draft>,
  hasDataOfTheDay: boolean,
  flags: ReadonlyArray<ScoreFlag> = [],
  cap = 100,
  penalties: Penalties | null = null
): PillarBreakdown => {
  let available = 0
  let total = 0
  let sum = 0
  for (const d of drafts) {
    const w = weights[d.key]!
    total += w
    if (d.state === "scored") {
      available += w
      sum += w * d.subScore!
    }
  }
  const coverage = total > 0 ? available / total : 0
  const scoredMean = hasDataOfTheDay && coverage >= MinCoverage - 1e-9 ? Math.min(cap, sum / available) : null
  let score = scoredMean === null ? null : Math.round(scoredMean)
  if (scoredMean !== null && penalties !== null) {
    let lost = 0
    for (const d of penalties.drafts) {
      if (d.state === "scored") lost += penalties.weights[d.key]! * (100 - d.subScore!)
    }
    score = Math.round(Math.max(0, scoredMean - lost))
  }
  const penaltyFactors = penalties === null ?
    [] :
    penalties.drafts.map((d) =>
      factorOf(d, penalties.weights[d.key]!, score !== null && d.state === "scored" ? penalties.weights[d.key]! : 0)
    )
  return {
    score,
    coverage: r4(coverage),
    calibrating: drafts.some((d) => d.state === "calibrating"),
    flags: score === null ? [] : flags,
    factors: [
      ...drafts.map((d) =>
        factorOf(d, weights[d.key]!, score !== null && d.state === "scored" ? weights[d.key]! / available : 0)
      ),
      ...penaltyFactors
    ]
  }
}
