/**
 * The background analysis of a scan, as a cluster entity `MealAnalysis` (entity id = entry id) with
 * one persisted message, `Analyze`. The message is stored before the upload is answered and has a
 * primary key, so an entry is analysed at most once however often it is enqueued; a message without
 * a reply is delivered again after a restart. Transient analyser failures are retried with
 * exponential backoff; then the entry ends Completed or Failed through the conditional updates of
 * `Journal`, which also make a re-run after a crash harmless.
 */
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { countAnalysis } from "./AnalysisMetrics.js"
import { AnalysisQueue } from "./AnalysisQueue.js"
import { Journal } from "./Journal.js"
import type { AnalysisFailed } from "./MealAnalyzer.js"
import { MealAnalyzer } from "./MealAnalyzer.js"
import { NutrientResolver } from "./NutrientResolver.js"

export const Analyze = Rpc.make("Analyze", {
  payload: { entryId: Schema.String },
  primaryKey: ({ entryId }) => entryId
}).annotate(ClusterSchema.Persisted, true)

export const MealAnalysisEntity = Entity.make("MealAnalysis", [Analyze])

/** Up to 5 attempts, 1 s then doubling (with jitter), for failures that may pass. */
export const retryPolicy = Schedule.exponential(Duration.seconds(1)).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(4))
)

/** Analyses one entry, if it is still Pending. */
export const analyzeEntry = (entryId: string) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const analyzer = yield* MealAnalyzer
    const resolver = yield* NutrientResolver
    const subject = yield* journal.subject(entryId)
    if (Option.isNone(subject) || subject.value.status !== "Pending") return
    const { entryKind, image, notes } = subject.value
    const bytes = Option.isNone(image) ? Option.none() : Option.some(
      yield* journal.photo(image.value.storageKey).pipe(Effect.option)
    ).pipe(Option.flatten)
    if (Option.isSome(image) && Option.isNone(bytes)) {
      yield* journal.failAnalysis(entryId, "The stored photo is missing")
      yield* countAnalysis("failed")
      return
    }
    const outcome = yield* analyzer.analyze({
      entryKind,
      notes,
      image: Option.map(bytes, (b) => ({ bytes: b, contentType: Option.getOrThrow(image).contentType }))
    }).pipe(
      Effect.tapError((e: AnalysisFailed) =>
        e.transient
          ? Effect.logWarning("Meal analysis attempt failed; retrying").pipe(
            Effect.annotateLogs({ entryId, reason: e.reason })
          )
          : Effect.void
      ),
      Effect.retry({ schedule: retryPolicy, while: (e) => e.transient }),
      Effect.either
    )
    if (outcome._tag === "Left") {
      yield* journal.failAnalysis(entryId, outcome.left.reason)
      yield* countAnalysis("failed")
      yield* Effect.logInfo("Meal analysis failed").pipe(Effect.annotateLogs({ entryId, reason: outcome.left.reason }))
      return
    }
    const items = resolver.resolve(outcome.right.items)
    const applied = yield* journal.completeAnalysis(entryId, items, outcome.right.model)
    yield* countAnalysis(applied ? "completed" : "discarded")
    yield* Effect.logInfo(applied ? "Meal analysis completed" : "Meal analysis result discarded: the entry was edited")
      .pipe(Effect.annotateLogs({ entryId, items: items.length }))
  }).pipe(Effect.withSpan("MealAnalysis.analyze", { attributes: { entryId } }))

/** The entity's behaviour; it runs wherever the entry's shard lives. */
export const MealAnalysisLive = MealAnalysisEntity.toLayer(
  Effect.gen(function*() {
    const context = yield* Effect.context<Journal | MealAnalyzer | NutrientResolver>()
    return {
      Analyze: (request) => analyzeEntry(request.payload.entryId).pipe(Effect.provide(context))
    }
  }),
  { concurrency: 1 }
)

/** Enqueueing stores the `Analyze` message and returns; the entity picks it up. */
export const AnalysisQueueLive = Layer.effect(
  AnalysisQueue,
  Effect.gen(function*() {
    const client = yield* MealAnalysisEntity.client
    return {
      enqueue: (entryId: string) => client(entryId).Analyze({ entryId }, { discard: true }).pipe(Effect.orDie)
    }
  })
)

/**
 * At start, hands every Pending entry to the queue again: a crash between storing an entry and
 * storing its message would otherwise leave it Pending forever. Entries already queued are not
 * analysed twice (the message's primary key).
 */
export const ResumePendingLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const journal = yield* Journal
    const queue = yield* AnalysisQueue
    const pending = yield* journal.pendingEntryIds
    yield* Effect.forEach(pending, queue.enqueue, { discard: true })
    if (pending.length > 0) {
      yield* Effect.logInfo("Resumed pending meal analyses").pipe(
        Effect.annotateLogs({ count: pending.length })
      )
    }
  }).pipe(Effect.forkScoped, Effect.asVoid)
)
