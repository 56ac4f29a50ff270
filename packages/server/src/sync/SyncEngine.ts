/**
 * What one connection's sync does, message by message: backfill history newest window first
 * (the cursor moves in the same transaction that stores a window, so a crash resumes where it
 * stopped), re-read a recent window, and apply provider notifications. Provider faults are
 * absorbed here: a 429 waits as long as the provider asks and resumes (nothing is dropped), an
 * expired access token is refreshed once and retried, other faults retry with backoff and then
 * leave the connection in `Error` for the next periodic sync to pick up.
 *
 * The cluster entity (`ConnectionSync.ts`) calls these one at a time per connection.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type { CanonicalBatch, DateWindow, FetchInput, ProviderEndpoints, ProviderError } from "@pulsebridge/providers"
import { emptyBatch, isAccessLost, isInvalidNotification, ProviderRegistry } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { ConnectionEvents } from "../connections/ConnectionEvents.js"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"
import type { SyncTarget as ConnectionInfo } from "../connections/ConnectionsRepo.js"
import { ConnectionTokens, ConnectionUnusable } from "../connections/ConnectionTokens.js"
import { ProviderAccess } from "../connections/ProviderAccess.js"
import { ProviderPacing } from "../connections/ProviderPacing.js"
import { addDays, localToday } from "../platform/Calendar.js"
import { ServerBases } from "../platform/ServerBases.js"
import { defaultServerConfig } from "../platform/ServerConfig.js"
import { traced } from "../platform/Traced.js"
import { RecordStore } from "./RecordStore.js"
import { countProviderError, countStored, countWindow } from "./SyncMetrics.js"
import { SyncStateRepo } from "./SyncStateRepo.js"

/**
 * What a provider told us about new data for one connection: a plain JSON value its plug-in's
 * webhook receiver produced and its `notify` reads back (persisted with the cluster message).
 */
export const SyncNotification = Schema.Unknown
export type SyncNotification = typeof SyncNotification.Type

/**
 * Tunables of the sync; the defaults suit production, tests shorten the waits. Those an operator sets
 * (`BACKFILL_DAYS`, `SYNC_STORE_CONCURRENCY`, `SYNC_CONCURRENCY`) come from the configuration, defaults included.
 */
export class SyncSettings extends Context.Reference<SyncSettings>()("@pulsebridge/server/SyncSettings", {
  defaultValue: () => ({
    /** Days of history read at connect (capped by each provider's limit). */
    backfillDays: defaultServerConfig.backfillDays,
    /** Days re-read by every periodic sync, for late data. */
    overlapDays: 3 as number,
    /** Attempts of a window on transient faults (5xx, timeouts, malformed bodies). */
    maxAttempts: 6 as number,
    /** First backoff; doubles per attempt. */
    backoffBase: Duration.seconds(1) as Duration.Duration,
    /** Wait on a 429 without a usable Retry-After. */
    defaultRateLimitWait: Duration.seconds(60) as Duration.Duration,
    /**
     * Windows a backfill reads ahead of the one it stores: the provider, this process and the
     * database then work at once. Each costs a window's records in memory.
     */
    backfillReadAhead: 2 as number,
    /**
     * Windows this process writes at once at most: the rest wait their turn before taking a database
     * connection, so that the sync never holds the whole pool while requests wait for one.
     */
    storeConcurrency: defaultServerConfig.syncStoreConcurrency,
    /**
     * Connections this process syncs at once at most (a backfill, a window, a notification): the others wait
     * their turn before they read anything, so the records read and not yet stored stay bounded (at most this
     * many times the read-ahead's windows) however many connections have work.
     */
    syncConcurrency: defaultServerConfig.syncConcurrency
  })
}) {}

export class SyncFailed extends Data.TaggedError("SyncFailed")<{ readonly message: string }> {}

/** Cuts `from`..`to` into windows of at most `days`, newest first. */
export const windowsNewestFirst = (from: string, to: string, days: number): Array<DateWindow> => {
  const out: Array<DateWindow> = []
  for (let end = to; end >= from; end = addDays(end, -days)) {
    const start = addDays(end, -(days - 1))
    out.push({ from: start < from ? from : start, to: end })
  }
  return out
}

const describe = (error: ProviderError) =>
  `${error.operation}: ${error.message}${error.status === undefined ? "" : ` (HTTP ${error.status})`}`

export class SyncEngine extends Effect.Service<SyncEngine>()("@pulsebridge/server/SyncEngine", {
  effect: Effect.gen(function*() {
    const connections = yield* ConnectionsRepo
    const events = yield* ConnectionEvents
    const records = yield* RecordStore
    const states = yield* SyncStateRepo
    const tokens = yield* ConnectionTokens
    const access = yield* ProviderAccess
    const registry = yield* ProviderRegistry
    const httpClient = yield* HttpClient.HttpClient
    const settings = yield* SyncSettings
    const bases = yield* ServerBases
    const pacing = yield* ProviderPacing
    const writes = yield* Effect.makeSemaphore(Math.max(1, settings.storeConcurrency))
    /** A window's write, in its turn among the sync's writes (see `storeConcurrency`). */
    const write = writes.withPermits(1)
    const runs = yield* Effect.makeSemaphore(Math.max(1, settings.syncConcurrency))
    /** A connection's sync (one message of its entity), in its turn among this process's (see `syncConcurrency`). */
    const inTurn = <A, E, R>(effect: Effect.Effect<A, E, R>) => runs.withPermits(1)(effect)

    const load = (connectionId: string) => Effect.map(connections.syncTarget(connectionId), Option.getOrUndefined)

    /** The connection if its sync may run; otherwise records why not and yields nothing. */
    const usable = (connectionId: string) =>
      Effect.gen(function*() {
        const info = yield* load(connectionId)
        if (info === undefined) return undefined
        if (Option.isNone(registry.find(info.provider))) {
          yield* states.setState(connectionId, {
            state: "Stopped",
            lastError: `no provider named ${info.provider} is registered`
          })
          return undefined
        }
        if (info.status !== "Active" || info.userStatus !== "Active") {
          yield* states.setState(connectionId, {
            state: "Stopped",
            lastError: info.status !== "Active" ? `connection is ${info.status}` : "user is inactive"
          })
          return undefined
        }
        return info
      })

    /** Today in the user's time zone, by the `Clock`. */
    const todayOf = (info: ConnectionInfo) =>
      Effect.map(Clock.currentTimeMillis, (now) => localToday(new Date(now), info.timezone))

    /** How long a 429 asks us to wait. */
    const rateLimitWait = (error: ProviderError) =>
      error.retryAfterSeconds !== undefined && error.retryAfterSeconds >= 0
        ? Duration.seconds(error.retryAfterSeconds)
        : settings.defaultRateLimitWait

    /**
     * One provider read with fresh tokens, waiting out rate limits and retrying transient faults
     * (an expired access token is refreshed once first).
     *
     * Two schedules: a 429 waits as long as the provider asks, records `RateLimited`, and tries
     * again without counting an attempt (nothing is dropped); any other provider fault counts an
     * attempt and backs off exponentially, except a 401 on the first attempt, which is retried at
     * once with a forced refresh. After `maxAttempts` the read fails with `SyncFailed`.
     */
    const fetchWith = <A>(
      info: ConnectionInfo,
      read: (input: FetchInput) => Effect.Effect<A, ProviderError, HttpClient.HttpClient>
    ) =>
      Effect.gen(function*() {
        const resolved = yield* access.resolve(info.appId, info.provider).pipe(
          Effect.mapError((e) => new SyncFailed({ message: e.message }))
        )
        const annotations = { connectionId: info.id, provider: info.provider }
        const forceRefresh = yield* Ref.make(false)
        const attempt = Effect.gen(function*() {
          // Checked before every read and retry, so a disconnect or a user's deletion stops the reads at once.
          const current = yield* load(info.id)
          if (current === undefined || current.status !== "Active" || current.userStatus !== "Active") {
            return yield* new ConnectionUnusable({
              connectionId: info.id,
              status: current?.status ?? "Disconnected",
              message: current !== undefined && current.status === "Active"
                ? "user is inactive"
                : `connection is ${current?.status ?? "gone"}`
            })
          }
          const force = yield* Ref.getAndSet(forceRefresh, false)
          const fresh = yield* tokens.fresh(info.id, { force })
          const now = new Date(yield* Clock.currentTimeMillis)
          return yield* read({
            credentials: resolved.credentials,
            endpoints: resolved.endpoints,
            tokens: fresh,
            providerUserId: info.providerUserId,
            now
          })
        }).pipe(
          Effect.provideService(
            HttpClient.HttpClient,
            pacing.paced(info.provider, resolved.credentials.clientId, httpClient)
          ),
          Effect.tapError((error) =>
            error._tag === "ProviderError" ? countProviderError(slugOf(info), error) : Effect.void
          )
        )

        type Failure = ProviderError | ConnectionUnusable
        const isRateLimited = (error: Failure): error is ProviderError =>
          error._tag === "ProviderError" && error.status === 429
        const isRetried = (error: Failure): error is ProviderError =>
          error._tag === "ProviderError" && !isInvalidNotification(error) && !isAccessLost(error)
        // A 401 on the first attempt: the token expired early; refresh it and try again at once.
        const refreshesAtOnce = (attemptIndex: number, error: Failure) =>
          attemptIndex === 0 && error._tag === "ProviderError" && error.status === 401

        const whileRateLimited = Schedule.identity<Failure>().pipe(
          Schedule.whileInput(isRateLimited),
          Schedule.addDelay((error) => rateLimitWait(error as ProviderError)),
          Schedule.tapInput((error: Failure) =>
            Effect.gen(function*() {
              if (!isRateLimited(error)) return
              const wait = rateLimitWait(error)
              const until = new Date((yield* Clock.currentTimeMillis) + Duration.toMillis(wait))
              yield* states.setState(info.id, {
                state: "RateLimited",
                rateLimitedUntil: until,
                lastError: describe(error)
              })
              yield* Effect.logInfo("Provider rate limit; waiting").pipe(
                Effect.annotateLogs({ ...annotations, until: until.toISOString() })
              )
            })
          )
        )

        const whileTransient = Schedule.exponential(settings.backoffBase).pipe(
          Schedule.intersect(Schedule.recurs(settings.maxAttempts - 1)),
          Schedule.intersect(Schedule.identity<Failure>()),
          Schedule.whileInput(isRetried),
          Schedule.modifyDelay(([[_, n], error], delay) => refreshesAtOnce(n, error) ? Duration.zero : delay),
          // The tap runs for the fault that ends the retries too.
          Schedule.tapOutput(([[delay, n], error]) => {
            if (!isRetried(error)) return Effect.void
            if (refreshesAtOnce(n, error)) return Ref.set(forceRefresh, true)
            return Effect.logWarning("Provider call failed").pipe(
              Effect.annotateLogs({
                ...annotations,
                attempt: `${n + 1}/${settings.maxAttempts}`,
                error: describe(error),
                retryInMs: Duration.toMillis(delay)
              })
            )
          })
        )

        return yield* attempt.pipe(
          Effect.retry(whileRateLimited),
          Effect.retry(whileTransient),
          Effect.tapError((error) =>
            error._tag === "ProviderError" && isAccessLost(error) ? accessLost(info, error) : Effect.void
          ),
          Effect.mapError((error) =>
            new SyncFailed({ message: error._tag === "ProviderError" ? describe(error) : error.message })
          )
        )
      })

    /**
     * The provider says the grant is gone for good (revoked, or the API itself retired): no retry
     * can help, so the connection waits for the user to connect again, with the provider's words.
     */
    const accessLost = (info: ConnectionInfo, error: ProviderError) =>
      Effect.gen(function*() {
        // Stopped first: an app that sees `Reauthorize` never sees the backfill still running beside it.
        yield* states.setState(info.id, { state: "Stopped", lastError: describe(error) })
        yield* events.markReauthorize(
          info.id,
          `${info.provider} no longer accepts this connection: ${error.message}`
        )
        yield* Effect.logWarning("The provider no longer accepts the connection; it needs reauthorization").pipe(
          Effect.annotateLogs({ connectionId: info.id, provider: info.provider, error: describe(error) })
        )
      })

    const fetchWindow = (info: ConnectionInfo, window: DateWindow) =>
      fetchWith(info, (input) => dataOf(info).fetchWindow(input, window)).pipe(
        Effect.tap(() => countWindow(slugOf(info)))
      )

    /** The provider's slug, the label of its metrics. */
    const slugOf = (info: ConnectionInfo) => registry.plugin(info.provider).catalog.slug

    /** The data reader of the connection's provider (`usable` checked that it is registered). */
    const dataOf = (info: ConnectionInfo) => registry.plugin(info.provider).data

    /**
     * When this process last ran each connection's provider set-up (`afterBackfill`): it runs again with the first
     * sync a day after (a connection's entry is a number; the map holds one per connection this process synced).
     */
    const setUpAt = new Map<string, number>()
    const setUpEveryMs = 86_400_000

    /**
     * Where the provider sends the app's notifications: this server's webhook route for the app. A provider served
     * by this server itself (a sandbox simulator, reached at the internal base) calls it there too.
     */
    const webhookUrlOf = (info: ConnectionInfo, endpoints: ProviderEndpoints) => {
      const base = endpoints.apiBaseUrl.startsWith(`${bases.internalBase}/`) ? bases.internalBase : bases.publicBase
      return `${base}/webhooks/${slugOf(info)}/${info.appId}`
    }

    /**
     * What the provider wants once history is in (a per-user subscription, for a provider that
     * needs one, so it notifies us of new data). A failure is logged: polling still runs.
     */
    const afterBackfill = (info: ConnectionInfo) => {
      const after = dataOf(info).afterBackfill
      return after === undefined ? Effect.void : Effect.gen(function*() {
        const resolved = yield* access.resolve(info.appId, info.provider)
        const current = yield* tokens.fresh(info.id)
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* after({
          credentials: resolved.credentials,
          endpoints: resolved.endpoints,
          tokens: current,
          providerUserId: info.providerUserId,
          now,
          connectionId: info.id,
          webhookUrl: webhookUrlOf(info, resolved.endpoints)
        }).pipe(Effect.provideService(
          HttpClient.HttpClient,
          pacing.paced(info.provider, resolved.credentials.clientId, httpClient)
        ))
      }).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("Could not finish the provider's set-up after the backfill").pipe(
            Effect.annotateLogs({ connectionId: info.id, provider: info.provider, error: error.message })
          )
        )
      )
    }

    const ownerOf = (info: ConnectionInfo) => ({
      connectionId: info.id,
      userId: info.userId,
      provider: info.provider
    })

    /** Records a failure that ended a message; the next periodic sync tries again. */
    const recordFailure = (connectionId: string) => (error: SyncFailed) =>
      Effect.gen(function*() {
        const info = yield* load(connectionId)
        const stopped = info !== undefined && (info.status !== "Active" || info.userStatus !== "Active")
        yield* states.setState(connectionId, { state: stopped ? "Stopped" : "Error", lastError: error.message })
        yield* Effect.logWarning("Sync failed").pipe(Effect.annotateLogs({ connectionId, error: error.message }))
      })

    /**
     * A backfill of `from`..`to` the app asked for. A backfill left unfinished goes first; a
     * message delivered again after a restart finds its own plan and resumes at its cursor.
     */
    const backfillRange = (connectionId: string, range: DateWindow) =>
      Effect.gen(function*() {
        const current = yield* states.state(connectionId)
        const ownPlan = current?.backfillCursor != null && current.backfillFrom === range.from &&
          current.backfillTo === range.to
        if (!ownPlan) {
          if (current?.backfillCursor != null) yield* backfill(connectionId)
          if ((yield* usable(connectionId)) === undefined) return
          yield* states.planBackfill(connectionId, range.from, range.to)
        }
        yield* backfill(connectionId)
      }).pipe(Effect.withSpan("SyncEngine.backfillRange", { attributes: { connectionId } }))

    /** Plans the connect-time backfill: the last `backfillDays` days up to today, capped by the provider. */
    const planBackfill = traced("SyncEngine.planBackfill")(function*(connectionId: string, days?: number) {
      const info = yield* load(connectionId)
      if (info === undefined) return
      const source = dataOf(info)
      const span = Math.max(1, Math.min(days ?? settings.backfillDays, source.maxBackfillDays))
      const today = yield* todayOf(info)
      yield* states.planBackfill(connectionId, addDays(today, -(span - 1)), today)
    })

    /**
     * Runs (or resumes) the planned backfill to its end, newest window first. The next windows
     * are fetched while the current one is stored (`backfillReadAhead` of them: memory holds at
     * most one window more than that); the cursor only moves with a stored window, so a crash
     * resumes at the first window not stored.
     */
    const backfill = (connectionId: string) =>
      Effect.gen(function*() {
        const info = yield* usable(connectionId)
        if (info === undefined) return
        const state = yield* states.state(connectionId)
        if (state === undefined || state.backfillCursor === null || state.backfillFrom === null) return
        const from = state.backfillFrom
        const windows = windowsNewestFirst(from, state.backfillCursor, dataOf(info).windowDays)
        if (windows.length === 0) {
          yield* write(records.storeBackfillWindow(ownerOf(info), emptyBatch, state.backfillCursor, null))
          return
        }
        const ahead = Math.max(1, settings.backfillReadAhead)
        const pending: Array<Fiber.RuntimeFiber<CanonicalBatch, SyncFailed>> = []
        let fetched = 0
        const readAhead = Effect.suspend(() =>
          Effect.whileLoop({
            while: () => pending.length < ahead && fetched < windows.length,
            body: () => Effect.fork(fetchWindow(info, windows[fetched++]!)),
            step: (fiber) => pending.push(fiber)
          })
        )
        yield* readAhead
        // Reads still under way when the backfill ends (stopped, failed or interrupted) are not wanted.
        yield* Effect.addFinalizer(() => Fiber.interruptAll(pending))
        for (let i = 0; i < windows.length; i++) {
          const batch = yield* Fiber.join(pending.shift()!)
          yield* readAhead
          const window = windows[i]!
          const next = window.from > from ? addDays(window.from, -1) : null
          yield* write(records.storeBackfillWindow(ownerOf(info), batch, yield* todayOf(info), next))
          yield* countStored(slugOf(info), batch)
          if (next === null) {
            yield* afterBackfill(info)
            setUpAt.set(info.id, yield* Clock.currentTimeMillis)
          }
          // A disconnect or a user's deletion stops the backfill at the next window.
          if (next !== null && (yield* usable(connectionId)) === undefined) return
        }
      }).pipe(
        Effect.scoped,
        Effect.catchTag("SyncFailed", recordFailure(connectionId)),
        Effect.withSpan("SyncEngine.backfill", { attributes: { connectionId } })
      )

    /** Re-reads `from`..`to` (default: the overlap window ending today). */
    const syncWindow = (connectionId: string, range?: DateWindow) =>
      Effect.gen(function*() {
        const info = yield* usable(connectionId)
        if (info === undefined) return
        const state = yield* states.state(connectionId)
        if (state?.backfillCursor !== null && state?.backfillCursor !== undefined) {
          // History first: a backfill cut short resumes before newer windows are read.
          yield* backfill(connectionId)
        }
        const today = yield* todayOf(info)
        const from = range?.from ?? addDays(today, -(settings.overlapDays - 1))
        const to = range?.to ?? today
        for (const window of windowsNewestFirst(from, to, dataOf(info).windowDays)) {
          const batch = yield* fetchWindow(info, window)
          yield* write(records.storeBatch(ownerOf(info), batch, today))
          yield* countStored(slugOf(info), batch)
        }
        yield* states.setState(connectionId, { state: "Idle", synced: true })
        // The provider's set-up again once a day (subscriptions that expire, or that the provider dropped after
        // failed deliveries), and once after this process starts.
        const now = yield* Clock.currentTimeMillis
        if (now - (setUpAt.get(connectionId) ?? Number.NEGATIVE_INFINITY) >= setUpEveryMs) {
          setUpAt.set(connectionId, now)
          yield* afterBackfill(info)
        }
      }).pipe(
        Effect.catchTag("SyncFailed", recordFailure(connectionId)),
        Effect.withSpan("SyncEngine.syncWindow", { attributes: { connectionId } })
      )

    /** Stores records a provider delivered itself (a push, or what a notification fetched). */
    const storeDelivered = traced("SyncEngine.storeDelivered")(
      function*(connectionId: string, batch: CanonicalBatch) {
        const info = yield* usable(connectionId)
        if (info === undefined) return
        yield* write(records.storeBatch(ownerOf(info), batch, yield* todayOf(info)))
        yield* countStored(slugOf(info), batch)
        yield* states.setState(connectionId, { state: "Idle", synced: true })
      }
    )

    const stop = traced("SyncEngine.stop")(function*(connectionId: string) {
      const info = yield* load(connectionId)
      if (info === undefined) return
      yield* states.setState(connectionId, {
        state: "Stopped",
        lastError: info.status !== "Active" ? `connection is ${info.status}` : "user is inactive"
      })
    })

    /** Applies a provider notification, as its plug-in reads it. */
    const notify = (connectionId: string, notification: SyncNotification) =>
      Effect.gen(function*() {
        const info = yield* usable(connectionId)
        if (info === undefined) return
        const outcome = yield* fetchWith(info, (input) => dataOf(info).notify(input, notification))
        switch (outcome._tag) {
          case "Resync":
            return yield* syncWindow(connectionId, outcome.window)
          case "Store":
            return yield* storeDelivered(connectionId, outcome.batch)
          case "Delete":
            return yield* write(records.deleteRecords(ownerOf(info), outcome.deletions))
          case "Scopes":
            // What the user withdrew is no longer read: readers check the connection's scopes.
            return yield* connections.setScopes(connectionId, outcome.scopes)
        }
      }).pipe(
        Effect.catchTag("SyncFailed", recordFailure(connectionId)),
        Effect.withSpan("SyncEngine.notify", { attributes: { connectionId } })
      )

    return {
      inTurn,
      planBackfill,
      notify,
      backfill,
      backfillRange,
      syncWindow,
      storeDelivered,
      stop,
      fetchWindow,
      load,
      usable
    } as const
  }),
  dependencies: [ConnectionsRepo.Default, ConnectionEvents.Default, ProviderPacing.Default]
}) {}
