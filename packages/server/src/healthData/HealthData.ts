/**
 * The rules of the health-data reads (endpoints 10-14): a `provider` filter must name a registered
 * provider, a single read takes one connection of the user (another user's looks absent) and one
 * date, and daily activity is read only of providers that report it. The SQL is `HealthDataRepo`'s.
 * The API's range reads (endpoints 10, 12, 14) answer through the fast path of `RangeReads` and
 * `RangeResponse` (ETag, paging, streaming); `activityRange` and `loadRange` decode with the contract's
 * schemas, for the portal and as the reference the fast path is tested against.
 */
import type { ConnectionId, HealthRecordId, UserId } from "@pulsebridge/domain"
import {
  BodyMeasurement,
  DailyActivity,
  DailyLoadRecord,
  DailyLoadSummary,
  Recovery,
  SleepSession,
  SleepSessionDetail,
  Workout,
  WorkoutDetail
} from "@pulsebridge/domain"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"
import { ConnectionNotFound, UnknownProvider } from "../connections/Errors.js"
import { traced } from "../platform/Traced.js"
import type { RangeQuery } from "./HealthDataRepo.js"
import { HealthDataRepo } from "./HealthDataRepo.js"
import type { RangeRead } from "./RangeReads.js"
import { RangeReads } from "./RangeReads.js"
import type { PagedQuery } from "./RangeResponse.js"
import { rangeResponse } from "./RangeResponse.js"

export type { RangeQuery } from "./HealthDataRepo.js"
export type { PagedQuery } from "./RangeResponse.js"

/** The connection's provider reports no daily activity summaries. */
export class NoDailyActivity extends Data.TaggedError("NoDailyActivity")<{ readonly provider: string }> {
  override get message() {
    return `${this.provider} has no daily activity summaries; read its daily load instead`
  }
}

/** No record of that id in the connection. */
export class RecordNotFound extends Data.TaggedError("RecordNotFound")<{
  readonly what: "sleep session" | "workout"
  readonly id: string
}> {
  override get message() {
    return `no ${this.what} ${this.id} in this connection`
  }
}

/** Nothing stored for the connection on that date. */
export class DayNotFound extends Data.TaggedError("DayNotFound")<{
  readonly what: "daily activity" | "daily load record"
  readonly date: string
}> {
  override get message() {
    return `no ${this.what} on ${this.date}`
  }
}

export class HealthData extends Effect.Service<HealthData>()("@pulsebridge/server/HealthData", {
  effect: Effect.gen(function*() {
    const repo = yield* HealthDataRepo
    const connections = yield* ConnectionsRepo
    const registry = yield* ProviderRegistry
    const reads = yield* RangeReads

    const checkFilter = (query: RangeQuery) =>
      query.provider === undefined || Option.isSome(registry.find(query.provider))
        ? Effect.void
        : Effect.fail(new UnknownProvider({ provider: query.provider }))

    const connectionOf = (userId: UserId, connectionId: ConnectionId) =>
      connections.findOfUser(userId, connectionId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new ConnectionNotFound({ connectionId })),
          onSome: Effect.succeed
        }))
      )

    /**
     * A record read of the whole range, decoded with the contract's schema (for the MCP tools and the portal; the
     * API answers through `rangeResponse`).
     */
    const decodedRange = <A, I>(read: RangeRead, schema: Schema.Schema<A, I>) => {
      const decode = Schema.decodeUnknown(Schema.Array(schema))
      return (userId: UserId, query: RangeQuery) =>
        checkFilter(query).pipe(
          Effect.zipRight(read.sections[0]!.page(userId, query, null, undefined, false)),
          Effect.flatMap((rows) => Effect.orDie(decode(rows)))
        )
    }

    /** Whether the provider reports daily activity summaries (endpoint 11). */
    const hasDailyActivity = (provider: string) =>
      Option.exists(registry.find(provider), (plugin) => plugin.catalog.supportedDataTypes.includes("DailyActivity"))

    return {
      activityRange: traced("HealthData.activityRange")(function*(userId: UserId, query: RangeQuery) {
        yield* checkFilter(query)
        return yield* repo.activityRange(userId, query)
      }),

      activityByDate: traced("HealthData.activityByDate")(
        function*(userId: UserId, connectionId: ConnectionId, date: string) {
          const connection = yield* connectionOf(userId, connectionId)
          if (!hasDailyActivity(connection.provider)) {
            return yield* new NoDailyActivity({ provider: connection.provider })
          }
          const row = yield* repo.activityDay(connectionId, date)
          if (Option.isNone(row)) return yield* new DayNotFound({ what: "daily activity", date })
          return new DailyActivity({
            steps: row.value.steps,
            caloriesOut: row.value.caloriesOut,
            distance: row.value.distanceMeters / 1000,
            fairlyActiveMinutes: row.value.moderateActiveMinutes,
            veryActiveMinutes: row.value.vigorousActiveMinutes,
            rawJson: row.value.rawJson
          })
        }
      ),

      loadRange: traced("HealthData.loadRange")(function*(userId: UserId, query: RangeQuery) {
        yield* checkFilter(query)
        const rows = yield* repo.loadRange(userId, query)
        return rows.map((row) => new DailyLoadSummary(row))
      }),

      loadByDate: traced("HealthData.loadByDate")(
        function*(userId: UserId, connectionId: ConnectionId, date: string) {
          yield* connectionOf(userId, connectionId)
          const row = yield* repo.loadDay(connectionId, date)
          if (Option.isNone(row)) return yield* new DayNotFound({ what: "daily load record", date })
          return new DailyLoadRecord(row.value)
        }
      ),

      /** Endpoint 10 as an HTTP answer. */
      activityResponse: traced("HealthData.activityResponse")(function*(userId: UserId, query: PagedQuery) {
        yield* checkFilter(query)
        return yield* rangeResponse(reads.activity, userId, query)
      }),

      /** Endpoint 12 as an HTTP answer. */
      loadResponse: traced("HealthData.loadResponse")(function*(userId: UserId, query: PagedQuery) {
        yield* checkFilter(query)
        return yield* rangeResponse(reads.activityLoad, userId, query)
      }),

      sleepRange: decodedRange(reads.sleep, SleepSession),
      workoutsRange: decodedRange(reads.workouts, Workout),
      recoveryRange: decodedRange(reads.recovery, Recovery),
      bodyRange: decodedRange(reads.body, BodyMeasurement),

      /** The sleep range read as an HTTP answer. */
      sleepResponse: traced("HealthData.sleepResponse")(function*(userId: UserId, query: PagedQuery) {
        yield* checkFilter(query)
        return yield* rangeResponse(reads.sleep, userId, query)
      }),

      /** The workouts range read as an HTTP answer. */
      workoutsResponse: traced("HealthData.workoutsResponse")(function*(userId: UserId, query: PagedQuery) {
        yield* checkFilter(query)
        return yield* rangeResponse(reads.workouts, userId, query)
      }),

      /** The recovery range read as an HTTP answer. */
      recoveryResponse: traced("HealthData.recoveryResponse")(function*(userId: UserId, query: PagedQuery) {
        yield* checkFilter(query)
        return yield* rangeResponse(reads.recovery, userId, query)
      }),

      /** The body measurements range read as an HTTP answer. */
      bodyResponse: traced("HealthData.bodyResponse")(function*(userId: UserId, query: PagedQuery) {
        yield* checkFilter(query)
        return yield* rangeResponse(reads.body, userId, query)
      }),

      sleepById: traced("HealthData.sleepById")(
        function*(userId: UserId, connectionId: ConnectionId, id: HealthRecordId) {
          yield* connectionOf(userId, connectionId)
          const row = yield* repo.sleepById(connectionId, id)
          if (Option.isNone(row)) return yield* new RecordNotFound({ what: "sleep session", id })
          return yield* Schema.decodeUnknown(SleepSessionDetail)(row.value).pipe(Effect.orDie)
        }
      ),

      workoutById: traced("HealthData.workoutById")(
        function*(userId: UserId, connectionId: ConnectionId, id: HealthRecordId) {
          yield* connectionOf(userId, connectionId)
          const row = yield* repo.workoutById(connectionId, id)
          if (Option.isNone(row)) return yield* new RecordNotFound({ what: "workout", id })
          return yield* Schema.decodeUnknown(WorkoutDetail)(row.value).pipe(Effect.orDie)
        }
      ),

      /** Endpoint 14 as an HTTP answer. */
      glucose: traced("HealthData.glucose")(function*(userId: UserId, query: PagedQuery) {
        yield* checkFilter(query)
        return yield* rangeResponse(reads.glucose, userId, query)
      })
    } as const
  }),
  dependencies: [HealthDataRepo.Default, RangeReads.Default, ConnectionsRepo.Default]
}) {}
