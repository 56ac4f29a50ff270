/**
 * The journal's services with the durable analysis of meal photos: the cluster over the app's
 * database, the `MealAnalysis` entity, the configured analyser and the photo store. It runs inside a
 * listening server (the sandbox analyser is mounted on it). Kept apart from the HTTP composition so
 * that commands which do not serve never load the cluster.
 */
import * as Layer from "effect/Layer"
import { ClusterLive } from "../Cluster.js"
import { BlobStore } from "./BlobStore.js"
import { Journal } from "./Journal.js"
import { AnalysisQueueLive, MealAnalysisLive, ResumePendingLive } from "./MealAnalysis.js"
import { MealAnalyzerLive } from "./MealAnalyzer.js"
import { NutrientResolver } from "./NutrientResolver.js"

export const JournalServicesLive = Layer.mergeAll(MealAnalysisLive, ResumePendingLive).pipe(
  Layer.provideMerge(Journal.Default),
  Layer.provideMerge(Layer.mergeAll(MealAnalyzerLive, NutrientResolver.Default, BlobStore.local, AnalysisQueueLive)),
  Layer.provideMerge(ClusterLive)
)
