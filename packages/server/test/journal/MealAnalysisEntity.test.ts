/**
 * The `MealAnalysis` entity on its own (`Entity.makeTestClient`), with the journal and the analyser swapped
 * for recording ones: a Pending entry is analysed once and completed with the resolved items; an entry that is
 * no longer Pending is left alone; transient failures are retried on the schedule (driven by the test clock)
 * and a lasting one fails the entry with its reason; a missing photo fails it without asking the analyser.
 */
import { Entity, ShardingConfig } from "@effect/cluster"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { makeMemoryBlobStore } from "../../src/journal/BlobStore.js"
import type { AnalysisSubject } from "../../src/journal/Journal.js"
import { Journal } from "../../src/journal/Journal.js"
import type { NewItem } from "../../src/journal/Journal.js"
import { MealAnalysisEntity, MealAnalysisLive } from "../../src/journal/MealAnalysis.js"
import type { AnalysisOutput } from "../../src/journal/MealAnalyzer.js"
import { AnalysisFailed, MealAnalyzer } from "../../src/journal/MealAnalyzer.js"
import { NutrientResolver } from "../../src/journal/NutrientResolver.js"

interface Recorded {
  readonly completed: Array<{ readonly entryId: string; readonly items: ReadonlyArray<NewItem> }>
  readonly failed: Array<{ readonly entryId: string; readonly reason: string }>
  readonly analyses: number
}

const banana: AnalysisOutput = {
  model: "test-model",
  items: [{
    name: "banana",
    quantity: 1,
    unit: "piece",
    estimatedGrams: 120,
    estimatedVolumeMl: null,
    confidence: 0.9,
    modelNutrients: null
  }]
}

const subjectOf = (entryId: string, status: AnalysisSubject["status"], photo: boolean): AnalysisSubject => ({
  entryId,
  status,
  entryKind: "Meal",
  notes: null,
  image: photo ? Option.some({ storageKey: `photos/${entryId}`, contentType: "image/jpeg" }) : Option.none()
})

/**
 * The entity over a journal holding `subjects` (photos exist for the keys in `photos`) and an analyser that
 * answers each attempt with the next of `answers` (the last one repeats).
 */
const setup = (
  subjects: ReadonlyArray<AnalysisSubject>,
  answers: ReadonlyArray<Effect.Effect<AnalysisOutput, AnalysisFailed>>,
  photos: ReadonlyArray<string> = subjects.flatMap((s) => Option.isSome(s.image) ? [s.image.value.storageKey] : [])
) =>
  Effect.gen(function*() {
    const completed: Recorded["completed"] = []
    const failed: Recorded["failed"] = []
    const blobs = makeMemoryBlobStore()
    yield* Effect.forEach(photos, (key) => blobs.put(key, new Uint8Array([0xff, 0xd8, 0xff])))
    const journal = Layer.succeed(
      Journal,
      Journal.make({
        subject: (entryId: string) => Effect.succeed(Option.fromNullable(subjects.find((s) => s.entryId === entryId))),
        photo: blobs.get,
        completeAnalysis: (entryId: string, items: ReadonlyArray<NewItem>) =>
          Effect.sync(() => completed.push({ entryId, items })).pipe(Effect.as(true)),
        failAnalysis: (entryId: string, reason: string) =>
          Effect.sync(() => failed.push({ entryId, reason })).pipe(Effect.as(true))
      } as unknown as Journal)
    )
    const attempts = { count: 0 }
    const analyzer = MealAnalyzer.Test(answers, attempts)
    const makeClient = yield* Entity.makeTestClient(MealAnalysisEntity, MealAnalysisLive).pipe(
      Effect.provide(Layer.mergeAll(journal, analyzer, NutrientResolver.Default)),
      Effect.provide(ShardingConfig.layer())
    )
    const recorded = {
      get completed() {
        return completed
      },
      get failed() {
        return failed
      },
      get analyses() {
        return attempts.count
      }
    }
    return { makeClient, recorded }
  })

const transient = (reason: string) => Effect.fail(new AnalysisFailed({ reason, transient: true }))

describe("the MealAnalysis entity", () => {
  it.scoped("analyses a Pending entry once and completes it with the resolved items", () =>
    Effect.gen(function*() {
      const { makeClient, recorded } = yield* setup([subjectOf("e1", "Pending", true)], [Effect.succeed(banana)])
      yield* (yield* makeClient("e1")).Analyze({ entryId: "e1" })
      expect(recorded.analyses).toBe(1)
      expect(recorded.failed).toEqual([])
      expect(recorded.completed.map(({ entryId, items }) => [entryId, items.map((item) => item.name)])).toEqual([
        ["e1", ["banana"]]
      ])
      // The food table's banana, not the analyser's estimate: about 89 kcal per 100 g.
      expect(recorded.completed[0]!.items[0]!.nutrients.caloriesKcal).toBeGreaterThan(90)
    }))

  it.scoped("leaves an entry that is no longer Pending, or gone, without asking the analyser", () =>
    Effect.gen(function*() {
      const { makeClient, recorded } = yield* setup(
        [subjectOf("done", "Completed", true), subjectOf("failed", "Failed", false)],
        [Effect.succeed(banana)]
      )
      for (const entryId of ["done", "failed", "gone"]) yield* (yield* makeClient(entryId)).Analyze({ entryId })
      expect([recorded.completed, recorded.failed, recorded.analyses]).toEqual([[], [], 0])
    }))

  it.scoped("retries transient failures on its schedule and then completes", () =>
    Effect.gen(function*() {
      const { makeClient, recorded } = yield* setup(
        [subjectOf("e2", "Pending", true)],
        [transient("The analyser answered 503"), transient("The analyser answered 429"), Effect.succeed(banana)]
      )
      const running = yield* Effect.fork((yield* makeClient("e2")).Analyze({ entryId: "e2" }))
      // 1 s, then about 2 s (with jitter): well inside a minute of the test clock.
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(running)
      expect(recorded.analyses).toBe(3)
      expect(recorded.completed.map((c) => c.entryId)).toEqual(["e2"])
    }))

  it.scoped("fails the entry with the reason after the last attempt, or at once when the failure is lasting", () =>
    Effect.gen(function*() {
      const { makeClient, recorded } = yield* setup(
        [subjectOf("e3", "Pending", true)],
        [transient("The analyser answered 503")]
      )
      const running = yield* Effect.fork((yield* makeClient("e3")).Analyze({ entryId: "e3" }))
      yield* TestClock.adjust("10 minutes")
      yield* Fiber.join(running)
      expect(recorded.analyses).toBe(5)
      expect(recorded.failed).toEqual([{ entryId: "e3", reason: "The analyser answered 503" }])

      const lasting = yield* setup(
        [subjectOf("e4", "Pending", false)],
        [Effect.fail(new AnalysisFailed({ reason: "Not food", transient: false }))]
      )
      yield* (yield* lasting.makeClient("e4")).Analyze({ entryId: "e4" })
      expect(lasting.recorded.analyses).toBe(1)
      expect(lasting.recorded.failed).toEqual([{ entryId: "e4", reason: "Not food" }])
    }))

  it.scoped("fails an entry whose stored photo is missing without asking the analyser", () =>
    Effect.gen(function*() {
      const { makeClient, recorded } = yield* setup([subjectOf("e5", "Pending", true)], [Effect.succeed(banana)], [])
      yield* (yield* makeClient("e5")).Analyze({ entryId: "e5" })
      expect([recorded.completed, recorded.failed, recorded.analyses]).toEqual([
        [],
        [{ entryId: "e5", reason: "The stored photo is missing" }],
        0
      ])
    }))
})
