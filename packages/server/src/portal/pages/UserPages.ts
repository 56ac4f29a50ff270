/**
 * The rules of the portal's users pages: an app's users (paged, searched), a user with its
 * connections, what the user page charts, its journal and photos, and the operator's changes to a
 * user (re-sync, erasure) and its export. Operators see the users of every app (there are no
 * per-app operator roles), so a user is found by id alone and each feature service is then asked
 * in the user's own app, with the same rules as the public API.
 */
import type { AppId, User } from "@pulsebridge/domain"
import { checkDateRange, dayNumber, MaxRangeDays } from "@pulsebridge/domain"
import { GlucosePoint, JournalMark, UserDetail, UserOverview, UserPage, UserSummary } from "@pulsebridge/portal/api"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Apps } from "../../apps/Apps.js"
import { Connections } from "../../connections/Connections.js"
import { GlucoseSummaries, TargetRange } from "../../healthData/GlucoseSummaries.js"
import { HealthData } from "../../healthData/HealthData.js"
import { Journal } from "../../journal/Journal.js"
import { addDays, localToday } from "../../platform/Calendar.js"
import { traced } from "../../platform/Traced.js"
import { ScoreData } from "../../scoring/ScoreData.js"
import { Resync } from "../../sync/Resync.js"
import { Erasure } from "../../users/Erasure.js"
import { UserExport } from "../../users/Export.js"
import { UserNotFound } from "../../users/Users.js"
import { defaultPageSize, UserDirectoryRepo } from "./UserDirectoryRepo.js"

/** No app with this id. */
export class PortalAppNotFound extends Data.TaggedError("PortalAppNotFound")<{ readonly appId: string }> {
  override get message() {
    return `no app with id ${this.appId}`
  }
}

/** The erasure's confirmation is not the user's external id. */
export class ErasureNotConfirmed extends Data.TaggedError("ErasureNotConfirmed")<{}> {
  override get message() {
    return "confirmExternalUserId must be the user's externalUserId exactly"
  }
}

/** A range of days the page cannot ask for (the user page's or the journal's). */
export class PageRangeRefused extends Data.TaggedError("PageRangeRefused")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

export const defaultOverviewDays = 14
/** The journal list's default span. */
const journalDefaultDays = 14

/** Glucose bucket length by span: every reading of a 5-minute CGM up to two weeks, means beyond. */
export const glucoseBucketMinutes = (days: number) => days <= 14 ? 5 : days <= 92 ? 15 : 60

/** The public range reads' rule: `from` not after `to`, at most 366 days. */
const checkRange = checkDateRange(MaxRangeDays)

const refuseRange = (range: { readonly from: string; readonly to: string }) => {
  const checked = checkRange(range)
  return checked === true ? Effect.void : Effect.fail(new PageRangeRefused({ reason: checked }))
}

/** What the user page asks for: `days` ending today, or `from` and `to`. */
export interface OverviewQuery {
  readonly days?: number | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
}

export class UserPages extends Effect.Service<UserPages>()("@pulsebridge/server/UserPages", {
  effect: Effect.gen(function*() {
    const repo = yield* UserDirectoryRepo
    const apps = yield* Apps
    const connections = yield* Connections
    const health = yield* HealthData
    const journal = yield* Journal
    const glucoseSummaries = yield* GlucoseSummaries
    const scores = yield* ScoreData
    const exporter = yield* UserExport

    const requireUser = (userId: string) =>
      Effect.flatMap(
        repo.findById(userId),
        Option.match({ onNone: () => Effect.fail(new UserNotFound({ userId })), onSome: Effect.succeed })
      )

    const today = (user: User) => Effect.map(Clock.currentTimeMillis, (now) => localToday(new Date(now), user.timezone))

    const journalUser = (user: User) => ({ appId: user.appId, userId: user.id, timezone: user.timezone })

    const marksOf = (user: User, from: string, to: string) =>
      Effect.map(
        journal.listRange(user.id, from, to),
        (entries): ReadonlyArray<JournalMark> =>
          entries.map((entry) =>
            new JournalMark({
              id: entry.id,
              kind: entry.entryKind,
              title: entry.title,
              consumedAtUtc: entry.consumedAtUtc,
              localDate: entry.journalDate,
              analysisStatus: entry.analysisStatus,
              energyKcal: entry.nutrients.caloriesKcal,
              imageUrl: entry.hasImage ? `/portal/api/users/${user.id}/journal/${entry.id}/photo` : null
            })
          )
      )

    return {
      /** A page of the app's users, newest first; `search` is a case-insensitive prefix of the external id. */
      list: traced("UserPages.list")(function*(
        appId: AppId,
        query: {
          readonly search?: string | undefined
          readonly cursor?: string | undefined
          readonly limit?: number | undefined
        }
      ) {
        if (Option.isNone(yield* apps.get(appId))) return yield* new PortalAppNotFound({ appId })
        const page = yield* repo.page({
          appId,
          search: query.search,
          cursor: query.cursor,
          limit: query.limit ?? defaultPageSize
        })
        return new UserPage({
          data: page.data.map((row) =>
            new UserSummary({
              id: row.id,
              externalUserId: row.externalUserId,
              status: row.status,
              createdAt: row.createdAt,
              connections: row.connections
            })
          ),
          nextCursor: page.nextCursor
        })
      }),

      /** The user (any app's) with its connections that are not disconnected, as the public API shows them. */
      detail: traced("UserPages.detail")(function*(userId: string) {
        const user = yield* requireUser(userId)
        return new UserDetail({ user, connections: yield* connections.listOpen(user.id) })
      }),

      /**
       * What the user page charts: for `days` days ending today in the user's time zone (14 unless said), or
       * for `from` to `to` (both, never with `days`; the range reads' bounds).
       */
      overview: traced("UserPages.overview")(function*(userId: string, query: OverviewQuery) {
        const custom = query.from !== undefined || query.to !== undefined
        if (custom && query.days !== undefined) {
          return yield* new PageRangeRefused({ reason: "give either `days` or `from` and `to`, not both" })
        }
        if (custom && (query.from === undefined || query.to === undefined)) {
          return yield* new PageRangeRefused({ reason: "a custom range needs both `from` and `to`" })
        }
        const user = yield* requireUser(userId)
        const { from, to } = custom
          ? { from: query.from!, to: query.to! }
          : yield* Effect.map(
            today(user),
            (to) => ({ from: addDays(to, -((query.days ?? defaultOverviewDays) - 1)), to })
          )
        yield* refuseRange({ from, to })
        const days = dayNumber(to) - dayNumber(from) + 1
        const bucketMinutes = glucoseBucketMinutes(days)
        const range = { from, to }
        const [dailyActivity, dailyLoad, sleep, workouts, recovery, body, glucose, glucoseSummary, meals, dailyScores] =
          yield* Effect.all([
            Effect.orDie(health.activityRange(user.id, range)),
            Effect.orDie(health.loadRange(user.id, range)),
            Effect.orDie(health.sleepRange(user.id, range)),
            Effect.orDie(health.workoutsRange(user.id, range)),
            Effect.orDie(health.recoveryRange(user.id, range)),
            Effect.orDie(health.bodyRange(user.id, range)),
            repo.glucose(user.id, from, to, bucketMinutes * 60),
            glucoseSummaries.range(user.id, from, to),
            marksOf(user, from, to),
            scores.daily(user.id, range)
          ], { concurrency: 3 })
        return new UserOverview({
          from,
          to,
          days,
          timezone: user.timezone,
          dailyActivity,
          dailyLoad,
          sleep,
          workouts,
          recovery,
          body,
          glucoseBucketMinutes: bucketMinutes,
          glucose: glucose.map((point) => new GlucosePoint(point)),
          glucoseTarget: TargetRange,
          glucoseSummaries: glucoseSummary.connections,
          meals,
          scores: dailyScores
        })
      }),

      /** The journal entries of `from` to `to` (default: the last 14 days), each with its photo's URL. */
      journal: traced("UserPages.journal")(function*(
        userId: string,
        range: { readonly from?: string | undefined; readonly to?: string | undefined }
      ) {
        const user = yield* requireUser(userId)
        const to = range.to ?? (yield* today(user))
        const from = range.from ?? addDays(to, -(journalDefaultDays - 1))
        yield* refuseRange({ from, to })
        return yield* marksOf(user, from, to)
      }),

      /** The stored photo of one of the user's entries. */
      photo: traced("UserPages.photo")(function*(userId: string, entryId: string) {
        const user = yield* requireUser(userId)
        return yield* journal.image(journalUser(user), entryId)
      }),

      /** The user's export, as the public export streams it (without raw provider JSON). */
      exportOf: traced("UserPages.exportOf")(function*(userId: string) {
        const user = yield* requireUser(userId)
        const stream = yield* exporter.stream(user.appId, user.id, { includeRaw: false })
        return { user, stream }
      }),

      requireUser
    } as const
  }),
  dependencies: [UserDirectoryRepo.Default, GlucoseSummaries.Default]
}) {}

/**
 * The operator's changes to a user: a re-sync of one connection and the erasure. Kept apart from
 * the reads because they need the sync and erasure runtimes, which only a serving process has.
 */
export class UserChanges extends Effect.Service<UserChanges>()("@pulsebridge/server/UserChanges", {
  effect: Effect.gen(function*() {
    const pages = yield* UserPages
    const resync = yield* Resync
    const erasure = yield* Erasure

    return {
      /** The recent days of one connection again, as `POST .../connections/{id}/sync` without a range. */
      resync: traced("UserChanges.resync")(function*(userId: string, connectionId: string) {
        const user = yield* pages.requireUser(userId)
        return {
          user,
          accepted: yield* resync.request({ userId: user.id, timezone: user.timezone }, connectionId, null)
        }
      }),

      /**
       * The public API's erasure of the user in its own app, when `confirmExternalUserId` is the user's
       * external id; `record` (the audit event) joins the transaction that hides the user.
       */
      erase: traced("UserChanges.erase")(function*<E, R>(
        userId: string,
        confirmExternalUserId: string,
        record: (user: User) => Effect.Effect<void, E, R>
      ) {
        const user = yield* pages.requireUser(userId)
        if (user.externalUserId !== confirmExternalUserId) return yield* new ErasureNotConfirmed()
        const accepted = yield* erasure.erase(user.appId, user.id, record(user))
        return { user, accepted }
      })
    } as const
  })
}) {}
