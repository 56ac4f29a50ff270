/**
 * The journal's services with the durable analysis of meal photos: the `MealAnalysis` entity, the
 * configured analyser and the photo store. The entity registers on the process's one cluster
 * (`Sharding`, provided by the sync runtime below it); API nodes (`ROLE=api`) only enqueue, the
 * entity runs where the background work runs. It runs inside a listening server (the sandbox
 * analyser is mounted on it).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ServerConfig } from "../platform/ServerConfig.js"
import { BlobStore } from "./BlobStore.js"
import { Journal } from "./Journal.js"
import { AnalysisQueueLive, MealAnalysisLive, ResumePendingLive } from "./MealAnalysis.js"
import { MealAnalyzerLive } from "./MealAnalyzer.js"
import { NutrientResolver } from "./NutrientResolver.js"

export const JournalServicesLive = Layer.unwrapEffect(
  Effect.map(
    ServerConfig,
    (config) =>
      (config.role === "api" ? ResumePendingLive : Layer.mergeAll(MealAnalysisLive, ResumePendingLive)).pipe(
        Layer.provideMerge(Journal.Default),
        Layer.provideMerge(
          Layer.mergeAll(MealAnalyzerLive, NutrientResolver.Default, BlobStore.local, AnalysisQueueLive)
        )
      )
  )
)
