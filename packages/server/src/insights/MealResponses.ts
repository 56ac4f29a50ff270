/**
 * The glucose responses to a user's journal entries, computed on read from the stored readings (so
 * readings that land late are in the next read, and nothing derived is stored to go stale): for the full
 * entry (endpoint 19 and the entries the journal answers), the export, and the meal-responses range read.
 * However many entries, one statement reads the readings (of every glucose connection, in the windows of
 * all the entries) and one the entries around them; the figures come from the pure `MealResponse`.
 */
import type { EntryKind, UserId } from "@pulsebridge/domain"
import { GlucoseResponse, MealResponse, nutrientKeys } from "@pulsebridge/domain"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { MgDlPerMmolL } from "../healthData/GlucoseSummaries.js"
import type { NutrientValues } from "../journal/Nutrients.js"
import * as N from "../journal/Nutrients.js"
import { traced } from "../platform/Traced.js"
import type { ConnectionRow, ReadingRow } from "./InsightsRepo.js"
import { InsightsRepo } from "./InsightsRepo.js"
import type { GlucoseSource, Reading, Response } from "./MealResponse.js"
import { respond, windowOf, within } from "./MealResponse.js"

/** What a response needs of an entry. */
export interface EntryTime {
  readonly id: string
  readonly entryKind: EntryKind
  readonly consumedAtUtc: Date
}

/** The kinds that have a glucose response: water has no carbohydrate. */
export const respondingKinds: ReadonlySet<EntryKind> = new Set(["Meal", "Drink", "Coffee"])

/** The rows of each connection as sorted readings in mg/dL (rows in another unit are left out). */
const sourcesOf = (rows: ReadonlyArray<ReadingRow>): Array<GlucoseSource> => {
  const byConnection = new Map<string, { provider: string; readings: Array<Reading> }>()
  for (const row of rows) {
    const factor = row.unit === "mg/dL" ? 1 : row.unit === "mmol/L" ? MgDlPerMmolL : undefined
    if (factor === undefined) continue
    let source = byConnection.get(row.connectionId)
    if (source === undefined) {
      source = { provider: row.provider, readings: [] }
      byConnection.set(row.connectionId, source)
    }
    source.readings.push({
      t: row.systemTime.getTime(),
      mgDl: row.value * factor,
      atLimit: row.status === "Low" || row.status === "High"
    })
  }
  // The statement sorts by connection then time; the readings of one connection stay in that order.
  return [...byConnection].map(([connectionId, s]) => ({ connectionId, ...s }))
}

// Built from values computed here: the constructors' validation is skipped (it would cost more than the figures).
const toSchema = (r: Response) =>
  new GlucoseResponse({
    status: r.status,
    reason: r.reason,
    detail: r.detail,
    connectionId: r.connectionId as GlucoseResponse["connectionId"],
    provider: r.provider,
    unit: "mg/dL",
    baselineMgDl: r.baselineMgDl,
    peakMgDl: r.peakMgDl,
    peakAtUtc: r.peakAt === null ? null : new Date(r.peakAt),
    timeToPeakMinutes: r.timeToPeakMinutes,
    riseMgDl: r.riseMgDl,
    iauc2hMgDlMin: r.iauc2hMgDlMin,
    returnToBaselineMinutes: r.returnToBaselineMinutes,
    readingCount: r.readingCount,
    flags: r.flags,
    overlappingEntryIds: r.overlappingEntryIds as GlucoseResponse["overlappingEntryIds"]
  }, true)

export class MealResponses extends Effect.Service<MealResponses>()("@pulsebridge/server/MealResponses", {
  effect: Effect.gen(function*() {
    const repo = yield* InsightsRepo
    const registry = yield* ProviderRegistry

    const suppliesGlucose = (connection: ConnectionRow) =>
      Option.exists(
        registry.find(connection.provider),
        (plugin) => plugin.catalog.supportedDataTypes.includes("GlucoseReading")
      )

    /**
     * The computed response of each entry by id (`MealResponse.ts`'s own figures, before the contract's shape): null
     * for water and for entries without glucose data around them.
     */
    const computed = traced("MealResponses.computed")(
      function*(userId: UserId, entries: ReadonlyArray<EntryTime>) {
        const out = new Map<string, Response | null>()
        const responding = entries.filter((e) => respondingKinds.has(e.entryKind))
        for (const entry of entries) out.set(entry.id, null)
        if (responding.length === 0) return out
        const windows = responding.map((e) => windowOf(e.consumedAtUtc.getTime()))
        const first = Math.min(...windows.map((w) => w.start))
        const last = Math.max(...windows.map((w) => w.end))
        const [rows, connections, others] = yield* Effect.all([
          repo.readingsIn(userId, windows),
          repo.connectionsOf(userId),
          repo.entriesBetween(userId, new Date(first), new Date(last))
        ])
        const now = yield* Clock.currentTimeMillis
        const sources = sourcesOf(rows)
        const expectsData = connections.some(suppliesGlucose)
        const times = others.map((o) => ({ id: o.id, t: o.consumedAtUtc.getTime() })).sort((a, b) => a.t - b.t)
        for (const entry of responding) {
          const at = entry.consumedAtUtc.getTime()
          const window = windowOf(at)
          out.set(
            entry.id,
            respond({
              at,
              sources,
              others: within(times, window.start, window.end).filter((o) => o.id !== entry.id),
              now,
              expectsData
            })
          )
        }
        return out
      }
    )

    /** The response of each entry by id: null for water and for entries without glucose data around them. */
    const forEntries = (userId: UserId, entries: ReadonlyArray<EntryTime>) =>
      Effect.map(computed(userId, entries), (responses) => {
        const out = new Map<string, GlucoseResponse | null>()
        for (const [id, response] of responses) out.set(id, response === null ? null : toSchema(response))
        return out
      })

    /** The meal-responses range read: each meal, drink and coffee of the dates that has a response. */
    const range = traced("MealResponses.range")(function*(userId: UserId, from: string, to: string) {
      const entries = yield* repo.mealsByRange(userId, from, to)
      const responses = yield* forEntries(userId, entries)
      const out: Array<MealResponse> = []
      for (const entry of entries) {
        const glucoseResponse = responses.get(entry.id)
        if (glucoseResponse === null || glucoseResponse === undefined) continue
        out.push(
          new MealResponse({
            entryId: entry.id,
            entryKind: entry.entryKind,
            title: entry.title,
            consumedAtUtc: entry.consumedAtUtc,
            journalDate: entry.journalDate,
            timezone: entry.timezone,
            nutrients: N.toNutrients(Object.fromEntries(nutrientKeys.map((k) => [k, entry[k]])) as NutrientValues),
            glucoseResponse
          }, true)
        )
      }
      return out
    })

    return { computed, forEntries, range } as const
  }),
  dependencies: [InsightsRepo.Default]
}) {}
