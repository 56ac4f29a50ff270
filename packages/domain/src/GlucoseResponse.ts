/**
 * The glucose response to a journal entry: what the user's glucose did after a meal, drink or coffee
 * (baseline, peak, rise, incremental area under the curve, return to baseline), or why it cannot be said
 * yet. Served on the full journal entry and by the meal-responses range read (`Insights.ts`); the method
 * is described in `docs/insights.md`.
 */
import * as Schema from "effect/Schema"
import { ConnectionId, JournalEntryId, Provider, Timestamp } from "./Common.js"

export const GlucoseResponseStatus = Schema.Literal("Complete", "Pending", "Insufficient").annotations({
  identifier: "GlucoseResponseStatus",
  description: "Complete: every figure is computed. Pending: the readings of the window have not all arrived " +
    "yet (glucose data lands up to 3 hours late), so the figures are null for now. Insufficient: the readings " +
    "do not allow the figures (see `reason`)"
})
export type GlucoseResponseStatus = typeof GlucoseResponseStatus.Type

export const GlucoseResponseReason = Schema.Literal("awaitingData", "noBaseline", "gap").annotations({
  identifier: "GlucoseResponseReason",
  description: "Why the figures are null. awaitingData: the readings stop before the end of the 3-hour window " +
    "and may still arrive; noBaseline: fewer than 2 readings, or a gap of more than 15 minutes, in the 30 " +
    "minutes before the entry; gap: a gap of more than 15 minutes between readings in the 3 hours after it"
})
export type GlucoseResponseReason = typeof GlucoseResponseReason.Type

export const GlucoseResponseFlag = Schema.Literal(
  "otherEntryInWindow",
  "sensorLimit",
  "noRise",
  "notBackToBaseline"
).annotations({
  identifier: "GlucoseResponseFlag",
  description: "otherEntryInWindow: another meal, drink or coffee lies within 30 minutes before to 3 hours after " +
    "this entry, so the curve shows both (see `overlappingEntryIds`); sensorLimit: a reading in the window is " +
    "at the sensor's limit (Low/High), so the true value was beyond it; noRise: glucose did not go above the " +
    "baseline within 3 hours; notBackToBaseline: glucose was still above the baseline 3 hours after the entry"
})
export type GlucoseResponseFlag = typeof GlucoseResponseFlag.Type

const mgDl = (description: string) => Schema.NullOr(Schema.Number).annotations({ description })

export class GlucoseResponse extends Schema.Class<GlucoseResponse>("GlucoseResponse")({
  status: GlucoseResponseStatus,
  reason: Schema.NullOr(GlucoseResponseReason),
  detail: Schema.NullOr(Schema.String).annotations({
    description: "The reason in words, e.g. where the gap is; null when Complete"
  }),
  connectionId: Schema.NullOr(ConnectionId).annotations({
    description: "The connection whose readings were used; null when there are none in the window yet"
  }),
  provider: Schema.NullOr(Provider),
  unit: Schema.Literal("mg/dL"),
  baselineMgDl: mgDl("Mean of the readings in the 30 minutes before the entry"),
  peakMgDl: mgDl("Highest reading within 3 hours after the entry"),
  peakAtUtc: Schema.NullOr(Timestamp).annotations({ description: "When the peak was read (the first, on a tie)" }),
  timeToPeakMinutes: Schema.NullOr(Schema.Number).annotations({ description: "From the entry to the peak" }),
  riseMgDl: mgDl("Peak minus baseline (negative when glucose only fell)"),
  iauc2hMgDlMin: Schema.NullOr(Schema.Number).annotations({
    description: "Incremental area under the curve over the 2 hours after the entry, mg/dL x min: trapezoids " +
      "between the readings, counting only the area above the baseline"
  }),
  returnToBaselineMinutes: Schema.NullOr(Schema.Number).annotations({
    description: "From the entry to the first time after the peak that glucose is back at or below the " +
      "baseline (linear between readings); null with the flag noRise or notBackToBaseline"
  }),
  readingCount: Schema.Int.annotations({
    description: "Readings of the connection from 30 minutes before to 3 hours after the entry"
  }),
  flags: Schema.Array(GlucoseResponseFlag),
  overlappingEntryIds: Schema.Array(JournalEntryId).annotations({
    description: "Other meals, drinks and coffees within 30 minutes before to 3 hours after the entry"
  })
}, {
  description: "What the user's glucose did after the entry, from the readings of one glucose connection, in " +
    "mg/dL; recomputed on every read, so readings that arrive late are taken into account. Figures are rounded " +
    "to one decimal. See the status and reason for null figures"
}) {}
