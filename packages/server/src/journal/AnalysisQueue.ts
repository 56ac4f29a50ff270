/**
 * The hand-off from an accepted scan to its background analysis. The cluster implements it
 * (`MealAnalysis`); enqueueing an entry twice runs its analysis once.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export class AnalysisQueue extends Context.Tag("@pulsebridge/server/AnalysisQueue")<AnalysisQueue, {
  /** Durably records that `entryId` is to be analysed; returns once recorded. */
  readonly enqueue: (entryId: string) => Effect.Effect<void>
}>() {}
