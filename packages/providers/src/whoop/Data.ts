/**
 * WHOOP data (API v2, under `/developer`): the cycle, recovery, sleep and workout collections of
 * a window (`start`/`end`, `limit=25`, `nextToken` in, `next_token` out), the basic profile and
 * body measurement as snapshots, and the by-id reads a webhook needs; normalised by
 * `Normalise.ts`. A notification names one record: created or updated ones are read by id, deleted
 * ones become canonical deletions.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ProviderError } from "../Adapter.js"
import type {
  CanonicalBatch,
  DailyLoadRecord,
  FetchInput,
  NotificationOutcome,
  ProviderData,
  RecoveryRecord
} from "../Canonical.js"
import { emptyBatch } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { batchOf, checkWindow, collectPages, dayMs, decodeNotification, lastByKey, utcMidnight } from "../Shared.js"
import type { WhoopEvent } from "./Normalise.js"
import {
  normaliseWhoopBodyMeasurement,
  normaliseWhoopCycle,
  normaliseWhoopProfile,
  normaliseWhoopRecovery,
  normaliseWhoopSleep,
  normaliseWhoopWorkout,
  WhoopBodyMeasurement,
  WhoopCycle,
  whoopDeletions,
  whoopLocalDate,
  WhoopProfile,
  WhoopRecovery,
  WhoopSleep,
  WhoopWorkout
} from "./Normalise.js"
import { WhoopNotification } from "./Webhooks.js"

const PageOf = <A, I>(record: Schema.Schema<A, I>) =>
  Schema.Struct({
    records: Schema.Array(record),
    next_token: Schema.optional(Schema.NullOr(Schema.String))
  })

// ---- reading ----

const context = (operation: string, input: ProviderHttp.SecretsSource): CallContext => ({
  provider: "WHOOP",
  operation,
  readError: ProviderHttp.oauthErrorReader,
  secrets: ProviderHttp.secretsOf(input)
})

/** WHOOP's largest page. */
export const whoopPageLimit = 25

const get = <A, I>(
  ctx: CallContext,
  input: FetchInput,
  path: string,
  schema: Schema.Schema<A, I>,
  query: ReadonlyArray<readonly [string, string]> = []
) => {
  const base = `${input.endpoints.apiBaseUrl}/developer${path}`
  return ProviderHttp.send(
    ctx,
    HttpClientRequest.get(query.length === 0 ? base : ProviderHttp.withQuery(base, query)).pipe(
      HttpClientRequest.bearerToken(input.tokens.accessToken),
      HttpClientRequest.acceptJson
    ),
    ProviderHttp.readJson(ctx, schema)
  )
}

/** A by-id read; `None` when WHOOP answers 404 (deleted, or not there yet). */
const getOptional = <A, I>(ctx: CallContext, input: FetchInput, path: string, schema: Schema.Schema<A, I>) =>
  get(ctx, input, path, schema).pipe(
    Effect.map(Option.some),
    Effect.catchIf((error) => error.status === 404, () => Effect.succeed(Option.none<A>()))
  )

/** Every record of a collection intersecting [start, end), page after page. */
const collection = <A, I>(
  input: FetchInput,
  path: string,
  what: string,
  record: Schema.Schema<A, I>,
  range: { readonly start: string; readonly end: string }
) => {
  const ctx = context(`${what} read`, input)
  const page = PageOf(record)
  return collectPages(ctx, (token) =>
    get(ctx, input, path, page, [
      ["start", range.start],
      ["end", range.end],
      ["limit", String(whoopPageLimit)],
      ...(token === undefined ? [] : [["nextToken", token] as const])
    ]).pipe(
      Effect.map((reply) => ({
        records: reply.records,
        next: reply.next_token === undefined || reply.next_token === null || reply.next_token === "" ?
          undefined :
          reply.next_token
      }))
    ))
}

/** The scopes granted; an empty list means the provider did not say, so everything is tried. */
const grants = (input: FetchInput) => {
  const granted = input.tokens.scopes.split(/[\s,]+/).filter((s) => s !== "")
  return (scope: string) => granted.length === 0 || granted.includes(scope)
}

/**
 * Dates the recoveries by their cycles: from `cycles` when the cycle is there, else read by id
 * (`GET /v2/cycle/{id}`; those cycles join the batch). Without `read:cycles`, or when WHOOP no
 * longer has the cycle, the recovery's sleep stands in: a cycle begins when its sleep does, so
 * the sleep's local start date is the cycle's date. A recovery with neither is left out.
 */
const withCycles = (
  input: FetchInput,
  recoveries: ReadonlyArray<WhoopRecovery>,
  cycles: ReadonlyArray<DailyLoadRecord>,
  sleeps: ReadonlyArray<WhoopSleep>
): Effect.Effect<
  { readonly recovery: ReadonlyArray<RecoveryRecord>; readonly cycles: ReadonlyArray<DailyLoadRecord> },
  ProviderError,
  HttpClient.HttpClient
> =>
  Effect.gen(function*() {
    const ctx = context("cycle read", input)
    const canReadCycles = grants(input)("read:cycles")
    const known = new Map(cycles.map((cycle) => [cycle.providerRecordId, cycle]))
    const sleepStarts = new Map(sleeps.map((sleep) => [sleep.id, whoopLocalDate(sleep.start, sleep.timezone_offset)]))
    const fetched: Array<DailyLoadRecord> = []
    const out: Array<RecoveryRecord> = []
    for (const recovery of recoveries) {
      const id = String(recovery.cycle_id)
      let cycle = known.get(id)
      if (cycle === undefined && canReadCycles) {
        const read = yield* getOptional(ctx, input, `/v2/cycle/${ProviderHttp.encodeComponent(id)}`, WhoopCycle)
        if (Option.isSome(read)) {
          cycle = normaliseWhoopCycle(read.value)
          known.set(id, cycle)
          fetched.push(cycle)
        }
      }
      const date = cycle?.date ?? (recovery.sleep_id === undefined || recovery.sleep_id === null ?
        undefined :
        sleepStarts.get(recovery.sleep_id))
      if (date !== undefined) out.push(normaliseWhoopRecovery(recovery, date))
    }
    return { recovery: out, cycles: [...cycles, ...fetched] }
  })

/** The profile and body measurement snapshots of today (those whose scopes were granted). */
const snapshots = (input: FetchInput) =>
  Effect.gen(function*() {
    const can = grants(input)
    const profiles = can("read:profile")
      ? [
        normaliseWhoopProfile(
          yield* get(context("profile read", input), input, "/v2/user/profile/basic", WhoopProfile),
          input.now
        )
      ]
      : []
    const bodyMeasurements = can("read:body_measurement")
      ? [
        normaliseWhoopBodyMeasurement(
          input.providerUserId,
          yield* get(context("body measurement read", input), input, "/v2/user/measurement/body", WhoopBodyMeasurement),
          input.now
        )
      ]
      : []
    return { profiles, bodyMeasurements }
  })

/** ISO 8601 in UTC, as WHOOP's `start`/`end` take it. */
const isoInstant = (ms: number) => new Date(ms).toISOString()

const decode = decodeNotification("WHOOP", WhoopNotification, "a WhoopEvent notification")

export const WhoopData: ProviderData = {
  windowDays: 30,
  maxBackfillDays: 365,
  fetchWindow: (input, window) =>
    Effect.gen(function*() {
      yield* checkWindow(context("data read", input), window)
      // A local date lies within a day of the same UTC date (offsets run from -12 to +14 hours).
      const startMs = utcMidnight(window.from) - dayMs
      const endMs = Math.min(utcMidnight(window.to) + 2 * dayMs, input.now.getTime())
      if (endMs <= startMs) return emptyBatch
      const range = { start: isoInstant(startMs), end: isoInstant(endMs) }
      const can = grants(input)
      const read = <A, I>(scope: string, path: string, what: string, schema: Schema.Schema<A, I>) =>
        can(scope) ? collection(input, path, what, schema, range) : Effect.succeed([] as ReadonlyArray<A>)
      // One collection at a time: WHOOP's limit (100 a minute) is per app, shared by all users.
      const cycles = yield* read("read:cycles", "/v2/cycle", "cycle", WhoopCycle)
      const recoveries = yield* read("read:recovery", "/v2/recovery", "recovery", WhoopRecovery)
      const sleeps = yield* read("read:sleep", "/v2/activity/sleep", "sleep", WhoopSleep)
      const workouts = yield* read("read:workout", "/v2/activity/workout", "workout", WhoopWorkout)
      const dated = yield* withCycles(input, recoveries, cycles.map(normaliseWhoopCycle), sleeps)
      const snapshot = yield* snapshots(input)
      return batchOf({
        dailyLoad: lastByKey(dated.cycles, (r) => r.providerRecordId),
        recovery: lastByKey(dated.recovery, (r) => r.providerRecordId),
        sleep: lastByKey(sleeps.map(normaliseWhoopSleep), (r) => r.providerRecordId),
        workouts: lastByKey(workouts.map(normaliseWhoopWorkout), (r) => r.providerRecordId),
        ...snapshot
      })
    }),
  // Deletions need no read; anything else is read by id (an unknown type reads nothing).
  notify: (input, notification) =>
    Effect.flatMap(decode(notification), (event): Effect.Effect<
      NotificationOutcome,
      ProviderError,
      HttpClient.HttpClient
    > =>
      event.type.endsWith(".deleted")
        ? Effect.succeed({ _tag: "Delete", deletions: whoopDeletions(event) })
        : Effect.map(fetchWhoopNotified(input, event), (batch) => ({ _tag: "Store", batch })))
}

/**
 * The records one webhook event announces. `sleep.updated`: the sleep, its cycle and the cycle's
 * recovery. `recovery.updated` carries the SLEEP id (v2): the sleep, then its cycle and
 * `GET /v2/cycle/{id}/recovery`. `workout.updated`: the workout. A resource that is gone (404)
 * gives an empty batch, as do `*.deleted` and unknown types (deletions are not records).
 */
export const fetchWhoopNotified = (
  input: FetchInput,
  event: WhoopEvent
): Effect.Effect<CanonicalBatch, ProviderError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const id = ProviderHttp.encodeComponent(event.id)
    switch (event.type) {
      case "workout.updated": {
        const workout = yield* getOptional(
          context("workout read", input),
          input,
          `/v2/activity/workout/${id}`,
          WhoopWorkout
        )
        return batchOf({ workouts: Option.toArray(Option.map(workout, normaliseWhoopWorkout)) })
      }
      case "sleep.updated":
      case "recovery.updated": {
        const sleep = yield* getOptional(context("sleep read", input), input, `/v2/activity/sleep/${id}`, WhoopSleep)
        if (Option.isNone(sleep)) return emptyBatch
        const sleeps = [normaliseWhoopSleep(sleep.value)]
        const cycleId = sleep.value.cycle_id
        if (cycleId === undefined) return batchOf({ sleep: sleeps })
        const cyclePath = `/v2/cycle/${ProviderHttp.encodeComponent(String(cycleId))}`
        const cycle = yield* getOptional(context("cycle read", input), input, cyclePath, WhoopCycle)
        if (Option.isNone(cycle)) return batchOf({ sleep: sleeps })
        const load = normaliseWhoopCycle(cycle.value)
        const recovery = yield* getOptional(
          context("recovery read", input),
          input,
          `${cyclePath}/recovery`,
          WhoopRecovery
        )
        return batchOf({
          sleep: sleeps,
          dailyLoad: [load],
          recovery: Option.toArray(Option.map(recovery, (r) => normaliseWhoopRecovery(r, load.date)))
        })
      }
      default:
        return emptyBatch
    }
  })
