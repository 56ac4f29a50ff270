/**
 * The `DataCoverage` service: a user's data coverage over a range of days, computed on read (so data that
 * lands late, a sync that moves on, a connection added or lost is seen at the next read, and nothing derived
 * is stored to go stale). Three statements read the user's time zone, connections and per-day counts
 * (`CoverageRepo`); the scores of the range come from `ScoreData`, the same computation as the daily scores;
 * the statuses and reasons are the pure rules of `DayCoverage`.
 */
import type { ConnectionId, Provider, UserId } from "@pulsebridge/domain"
import {
  Coverage,
  CoverageDay,
  CoverageSource,
  DataTypeCoverage,
  DayDataCoverage,
  DayScoresCoverage
} from "@pulsebridge/domain"
import type { ScoreInput } from "@pulsebridge/providers"
import { dataDelayHoursOf, ProviderRegistry } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { addDays } from "../platform/Calendar.js"
import { traced } from "../platform/Traced.js"
import { ScoreData } from "../scoring/ScoreData.js"
import { CoverageRepo } from "./CoverageRepo.js"
import type { CoverageDataType, LocalClock, Measure, SourceConnection } from "./DayCoverage.js"
import {
  bestSource,
  journalStatus,
  localClock,
  noMeasure,
  scoresCoverage,
  sourceStatus,
  suppliedBy
} from "./DayCoverage.js"

/** The range asked for ends after the user's today: those days have no data yet to describe. */
export class RangeAfterToday extends Data.TaggedError("RangeAfterToday")<{ readonly today: string }> {
  override get message() {
    return `\`to\` must not be after today (${this.today} for this user)`
  }
}

/** The score input whose provider order breaks a tie between two sources of a type, so coverage names the one the scores read. */
const preferenceInput: Readonly<Record<Exclude<CoverageDataType, "journal">, ScoreInput | null>> = {
  dailyActivity: "steps",
  dailyLoad: "trainingLoad",
  sleep: "sleep",
  recovery: "hrv",
  workouts: "activeMinutes",
  body: null,
  glucose: null
}

const measureKey = (dataType: CoverageDataType, connectionId: string | null, date: string) =>
  `${dataType}|${connectionId ?? ""}|${date}`

export class DataCoverage extends Effect.Service<DataCoverage>()("@pulsebridge/server/DataCoverage", {
  effect: Effect.gen(function*() {
    const repo = yield* CoverageRepo
    const scores = yield* ScoreData
    const registry = yield* ProviderRegistry

    const listing = registry.plugins.map((p) => p.catalog.name)
    const preference = (dataType: Exclude<CoverageDataType, "journal">): ReadonlyArray<string> => {
      const input = preferenceInput[dataType]
      return input === null ? listing : [...registry.scoreOrder(input), ...listing]
    }

    /** The types each provider supplies, from its catalogue entry. */
    const typesOf = (provider: string): ReadonlyArray<Exclude<CoverageDataType, "journal">> =>
      Option.match(registry.find(provider), {
        onNone: () => [],
        onSome: (plugin) =>
          suppliedBy.filter(([catalogType]) => plugin.catalog.supportedDataTypes.includes(catalogType as never))
            .map(([, dataType]) => dataType)
      })

    const typeCoverage = (
      dataType: Exclude<CoverageDataType, "journal">,
      suppliers: ReadonlyArray<SourceConnection>,
      date: string,
      measures: ReadonlyMap<string, Measure>,
      clock: LocalClock
    ): DataTypeCoverage => {
      const sources = suppliers.map((c) => {
        const m = measures.get(measureKey(dataType, c.id, date)) ?? noMeasure
        const { reason, status } = sourceStatus(dataType, c, date, m, clock)
        return new CoverageSource({
          connectionId: c.id as ConnectionId,
          provider: c.provider as Provider,
          status,
          reason,
          dayFraction: m.dayFraction === null ? null : Math.round(Math.min(1, m.dayFraction) * 1000) / 1000
        }, true)
      })
      const best = bestSource(sources, preference(dataType))
      return new DataTypeCoverage({
        status: best?.status ?? "missing",
        reason: best === undefined ? "notConnected" : best.reason,
        provider: best?.provider ?? null,
        connectionId: best?.connectionId ?? null,
        sources
      }, true)
    }

    const range = traced("DataCoverage.range")(function*(userId: UserId, from: string, to: string) {
      const timezone = yield* repo.timezoneOf(userId)
      const clock = localClock(yield* Clock.currentTimeMillis, timezone)
      if (to > clock.today) return yield* new RangeAfterToday({ today: clock.today })
      const [connections, rows, daily] = yield* Effect.all([
        repo.connectionsOf(userId),
        repo.measuresOf(userId, from, to),
        scores.daily(userId, { from, to })
      ], { concurrency: "unbounded" })

      const measures = new Map<string, Measure>()
      for (const row of rows) measures.set(measureKey(row.dataType, row.connectionId, row.date), row)
      const scoreOf = new Map(daily.map((s) => [s.date, s]))
      const suppliersOf = new Map<CoverageDataType, Array<SourceConnection>>()
      for (const c of connections) {
        const plugin = registry.find(c.provider)
        const source: SourceConnection = {
          ...c,
          delayHours: Option.match(plugin, { onNone: () => 0, onSome: (p) => dataDelayHoursOf(p.catalog) })
        }
        for (const dataType of typesOf(c.provider)) {
          const list = suppliersOf.get(dataType) ?? []
          list.push(source)
          suppliersOf.set(dataType, list)
        }
      }

      const days: Array<CoverageDay> = []
      for (let date = from; date <= to; date = addDays(date, 1)) {
        const of = (dataType: Exclude<CoverageDataType, "journal">) =>
          typeCoverage(dataType, suppliersOf.get(dataType) ?? [], date, measures, clock)
        const journal = journalStatus(date, measures.get(measureKey("journal", null, date)) ?? noMeasure, clock)
        const data = new DayDataCoverage({
          dailyActivity: of("dailyActivity"),
          dailyLoad: of("dailyLoad"),
          sleep: of("sleep"),
          recovery: of("recovery"),
          workouts: of("workouts"),
          body: of("body"),
          glucose: of("glucose"),
          journal: new DataTypeCoverage({ ...journal, provider: null, connectionId: null, sources: [] }, true)
        }, true)
        const dayScores = new DayScoresCoverage(
          scoresCoverage(scoreOf.get(date), {
            sleep: data.sleep.status === "pending",
            recovery: data.recovery.status === "pending",
            activity: data.dailyActivity.status === "pending"
          }),
          true
        )
        days.push(new CoverageDay({ date, data, scores: dayScores }, true))
      }
      return new Coverage({ from, to, timezone, today: clock.today, days }, true)
    })

    return { range } as const
  }),
  dependencies: [CoverageRepo.Default, ScoreData.Default]
}) {}
