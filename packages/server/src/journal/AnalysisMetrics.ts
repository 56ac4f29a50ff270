/**
 * The meal-analysis metrics: analyses finished, by outcome (`completed`, `failed`, `discarded` when
 * the entry was edited meanwhile), and the queue's depth, the entries still Pending, read from the
 * database when `/metrics` is scraped (so every process reports the deployment's one queue).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Schema from "effect/Schema"

export const analyses = Metric.counter("pulsebridge_meal_analyses_total", {
  description: "Meal analyses finished by this process, by outcome",
  incremental: true
})

export const pendingAnalyses = Metric.gauge("pulsebridge_meal_analysis_pending", {
  description: "Journal entries waiting for their analysis (the whole deployment's queue, read at scrape time)"
})

/** Counts one finished analysis. */
export const countAnalysis = (outcome: "completed" | "failed" | "discarded") =>
  Metric.increment(Metric.tagged(analyses, "outcome", outcome))

const PendingRow = Schema.Struct({ pending: Schema.Number })

/** Sets the pending gauge from the database. */
export const observePendingAnalyses = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`select count(*)::int as pending from journal_entries where analysis_status = 'Pending'`
  const [row] = yield* Schema.decodeUnknown(Schema.Array(PendingRow))(rows)
  yield* Metric.set(pendingAnalyses, row?.pending ?? 0)
})
