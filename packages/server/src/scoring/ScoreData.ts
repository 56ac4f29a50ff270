/**
 * The scores of a user (endpoints 21, 22): the rows the scores of a range read (`ScoresRepo`),
 * turned into the scoring input and scored by the pure `Scoring`.
 *
 * Scores are computed on each request and never stored or cached, so rescoring needs no hook:
 * a row stored, updated or re-dated (a WHOOP cycle moved to its wake-up day by a later sleep, or
 * by migration 0007) counts in the very next read of the dates it touches.
 */
import type { UserId } from "@pulsebridge/domain"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import { traced } from "../platform/Traced.js"
import { buildScoringInput, priorityOf } from "./Inputs.js"
import { ScoresRepo } from "./ScoresRepo.js"
import type { DateWindow } from "./Scoring.js"
import { Scoring } from "./Scoring.js"

export class ScoreData extends Effect.Service<ScoreData>()("@pulsebridge/server/ScoreData", {
  effect: Effect.gen(function*() {
    const repo = yield* ScoresRepo
    const scoring = yield* Scoring
    const priority = priorityOf(yield* ProviderRegistry)

    const inputOf = (userId: UserId, window: DateWindow) =>
      Effect.map(
        repo.rowsOf(userId, window),
        ({ timezone, ...rows }) => buildScoringInput(rows, { timezone: timezone ?? "UTC", priority })
      )

    return {
      daily: traced("ScoreData.daily")(function*(userId: UserId, range: DateWindow) {
        return scoring.daily(yield* inputOf(userId, scoring.rowsWindow(range, "daily")), range)
      }),
      weekly: traced("ScoreData.weekly")(function*(userId: UserId, range: DateWindow) {
        return scoring.weekly(yield* inputOf(userId, scoring.rowsWindow(range, "weekly")), range)
      })
    } as const
  }),
  dependencies: [Scoring.Default, ScoresRepo.Default]
}) {}
