/**
 * WHOOP data (API v2, under `/developer`): the cycle, recovery, sleep and workout collections of
 * a window (`start`/`end`, `limit=25`, `nextToken` in, `next_token` out, passed back exactly as
 * WHOOP wrote it: padded base64, percent-encoded in the query), the basic profile and body
 * measurement as snapshots, and the by-id reads a webhook needs; normalised by `Normalise.ts`.
 *
 * Pages are decoded record by record: a record that does not match its schema is quarantined with
 * its raw JSON and the others are stored. Dates follow WHOOP's day (see `Normalise.ts`): a window
 * reads cycles and sleeps over the same padded range, so each cycle is dated by the end of the
 * sleep that opens it. A notification names one record: created or updated ones are read by id
 * (a sleep with its cycle, the cycle's opening sleep and its recovery, so a late sleep re-dates
 * the cycle and recovery it belongs to), deleted ones become canonical deletions.
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
  QuarantinedRecord,
  RecoveryRecord,
  SleepRecord
} from "../Canonical.js"
import { emptyBatch } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import {
  batchOf,
  checkWindow,
  collectPages,
  dayMs,
  decodeEach,
  decodeNotification,
  lastByKey,
  utcMidnight
} from "../Shared.js"
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
  whoopOpeningSleep,
  WhoopProfile,
  WhoopRecovery,
  WhoopSleep,
  WhoopWorkout
} from "./Normalise.js"
import { WhoopNotification } from "./Webhooks.js"

/** A page as an envelope: its records are decoded one by one (`decodeEach`). */
const Page = Schema.Struct({
  records: Schema.Array(Schema.Unknown),
  next_token: Schema.optional(Schema.NullOr(Schema.String))
})

/** A recovery is named by its cycle. */
const recoveryIdOf = (raw: unknown): string | null => {
  const id = typeof raw === "object" && raw !== null ? (raw as { cycle_id?: unknown }).cycle_id : undefined
  return typeof id === "string" || typeof id === "number" ? String(id) : null
}

/** How one kind of WHOOP record is decoded, and the canonical kind it is quarantined as. */
interface RecordKind<A> {
  readonly what: string
  readonly kind: string
  readonly schema: Schema.Schema<A, any>
  readonly idOf?: (raw: unknown) => string | null
  /** Normalises once while decoding, so a record the normaliser refuses is quarantined too. */
  readonly check?: (decoded: A) => unknown
}

const cycleKind: RecordKind<WhoopCycle> = {
  what: "cycle",
  kind: "DailyLoad",
  schema: WhoopCycle,
  check: (cycle) => normaliseWhoopCycle(cycle)
}
const recoveryKind: RecordKind<WhoopRecovery> = {
  what: "recovery",
  kind: "Recovery",
  schema: WhoopRecovery,
  idOf: recoveryIdOf
}
const sleepKind: RecordKind<WhoopSleep> = {
  what: "sleep",
  kind: "Sleep",
  schema: WhoopSleep,
  check: (sleep) => normaliseWhoopSleep(sleep)
}
const workoutKind: RecordKind<WhoopWorkout> = {
  what: "workout",
  kind: "Workout",
  schema: WhoopWorkout,
  check: normaliseWhoopWorkout
}

/**
 * Decodes raw records of one kind, keeping WHOOP's shape: the records are normalised for good
 * once the cycles can date the rest.
 */
const decodeRecords = <A>(spec: RecordKind<A>, items: ReadonlyArray<unknown>) =>
  decodeEach({
    kind: spec.kind,
    schema: spec.schema,
    items,
    normalise: (decoded: A) => {
      spec.check?.(decoded)
      return decoded
    },
    ...(spec.idOf === undefined ? {} : { idOf: spec.idOf })
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

/** A record read by id, decoded alone: quarantined when malformed. */
interface ReadOne<A> {
  readonly record: Option.Option<A>
  readonly quarantined: ReadonlyArray<QuarantinedRecord>
}

const nothing: ReadOne<never> = { record: Option.none(), quarantined: [] }

/** A by-id read; no record when WHOOP answers 404 (deleted, or not there yet). */
const getOne = <A>(
  input: FetchInput,
  spec: RecordKind<A>,
  path: string
): Effect.Effect<ReadOne<A>, ProviderError, HttpClient.HttpClient> =>
  get(context(`${spec.what} read`, input), input, path, Schema.Unknown).pipe(
    Effect.map((raw): ReadOne<A> => {
      const decoded = decodeRecords(spec, [raw])
      return { record: Option.fromNullable(decoded.records[0]), quarantined: decoded.quarantined }
    }),
    Effect.catchIf((error) => error.status === 404, () => Effect.succeed<ReadOne<A>>(nothing))
  )

/**
 * The raw records of a collection intersecting [start, end), page after page. `next_token` is
 * handed back exactly as WHOOP wrote it (`withQuery` percent-encodes its `+`, `/` and `=`).
 */
const collection = (
  input: FetchInput,
  path: string,
  what: string,
  range: { readonly start: string; readonly end: string }
) => {
  const ctx = context(`${what} read`, input)
  return collectPages(ctx, (token) =>
    get(ctx, input, path, Page, [
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
 * Dates a window's records: each cycle by its opening sleep (among `sleeps`), each sleep by its
 * cycle, each recovery by its cycle. A recovery whose cycle is not among `cycles` has its cycle
 * read by id (`GET /v2/cycle/{id}`; that cycle joins the batch). Without `read:cycles`, or when
 * WHOOP no longer has the cycle, the recovery's own sleep (the one that opens its cycle) dates
 * it. A recovery with neither is left out.
 */
const dated = (
  input: FetchInput,
  cycles: ReadonlyArray<WhoopCycle>,
  recoveries: ReadonlyArray<WhoopRecovery>,
  sleeps: ReadonlyArray<WhoopSleep>
): Effect.Effect<
  {
    readonly cycles: ReadonlyArray<DailyLoadRecord>
    readonly recovery: ReadonlyArray<RecoveryRecord>
    readonly sleep: ReadonlyArray<SleepRecord>
    readonly quarantined: ReadonlyArray<QuarantinedRecord>
  },
  ProviderError,
  HttpClient.HttpClient
> =>
  Effect.gen(function*() {
    const canReadCycles = grants(input)("read:cycles")
    const sleepsById = new Map(sleeps.map((sleep) => [sleep.id, sleep]))
    const load = new Map<string, DailyLoadRecord>()
    const addCycle = (cycle: WhoopCycle) => {
      const record = normaliseWhoopCycle(cycle, whoopOpeningSleep(cycle.id, sleeps))
      load.set(record.providerRecordId, record)
      return record
    }
    cycles.forEach(addCycle)
    const quarantined: Array<QuarantinedRecord> = []
    const recovery: Array<RecoveryRecord> = []
    for (const item of recoveries) {
      const id = String(item.cycle_id)
      let date = load.get(id)?.date
      if (date === undefined && canReadCycles) {
        const read = yield* getOne(input, cycleKind, `/v2/cycle/${ProviderHttp.encodeComponent(id)}`)
        quarantined.push(...read.quarantined)
        if (Option.isSome(read.record)) date = addCycle(read.record.value).date
      }
      if (date === undefined) {
        const own = item.sleep_id === undefined || item.sleep_id === null ? undefined : sleepsById.get(item.sleep_id)
        date = own === undefined ? undefined : normaliseWhoopSleep(own).date
      }
      if (date !== undefined) recovery.push(normaliseWhoopRecovery(item, date))
    }
    const sleep = sleeps.map((item) =>
      normaliseWhoopSleep(item, item.cycle_id === undefined ? undefined : load.get(String(item.cycle_id))?.date)
    )
    return { cycles: Array.from(load.values()), recovery, sleep, quarantined }
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

/**
 * The UTC range a window of local dates reads. A cycle dated D starts at the onset of the sleep
 * that ends on D (at most about a day before) or, without one, no earlier than noon of D - 1; with
 * offsets from -12 to +14 hours both lie after midnight UTC of D - 2. It starts before the end
 * of D, which lies before midnight UTC of D + 2. Sleeps are read over the same range, so the
 * sleep that opens a cycle (it starts when the cycle does) is read with it.
 */
export const whoopWindowRange = (window: { readonly from: string; readonly to: string }, nowMs: number) => ({
  startMs: utcMidnight(window.from) - 2 * dayMs,
  endMs: Math.min(utcMidnight(window.to) + 2 * dayMs, nowMs)
})

const decode = decodeNotification("WHOOP", WhoopNotification, "a WhoopEvent notification")

export const WhoopData: ProviderData = {
  windowDays: 30,
  maxBackfillDays: 365,
  fetchWindow: (input, window) =>
    Effect.gen(function*() {
      yield* checkWindow(context("data read", input), window)
      const { endMs, startMs } = whoopWindowRange(window, input.now.getTime())
      if (endMs <= startMs) return emptyBatch
      const range = { start: isoInstant(startMs), end: isoInstant(endMs) }
      const can = grants(input)
      const read = (scope: string, path: string, what: string) =>
        can(scope) ? collection(input, path, what, range) : Effect.succeed([] as ReadonlyArray<unknown>)
      // One collection at a time: WHOOP's limit (100 a minute) is per app, shared by all users.
      const cycles = decodeRecords(cycleKind, yield* read("read:cycles", "/v2/cycle", "cycle"))
      const recoveries = decodeRecords(recoveryKind, yield* read("read:recovery", "/v2/recovery", "recovery"))
      const sleeps = decodeRecords(sleepKind, yield* read("read:sleep", "/v2/activity/sleep", "sleep"))
      const workouts = decodeRecords(workoutKind, yield* read("read:workout", "/v2/activity/workout", "workout"))
      const records = yield* dated(input, cycles.records, recoveries.records, sleeps.records)
      const snapshot = yield* snapshots(input)
      return batchOf({
        dailyLoad: lastByKey(records.cycles, (r) => r.providerRecordId),
        recovery: lastByKey(records.recovery, (r) => r.providerRecordId),
        sleep: lastByKey(records.sleep, (r) => r.providerRecordId),
        workouts: lastByKey(workouts.records.map(normaliseWhoopWorkout), (r) => r.providerRecordId),
        quarantined: [
          ...cycles.quarantined,
          ...recoveries.quarantined,
          ...sleeps.quarantined,
          ...workouts.quarantined,
          ...records.quarantined
        ],
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
 * The records one webhook event announces. `sleep.updated`: the sleep, its cycle, the cycle's
 * opening sleep (the sleep itself unless it is a nap: then `GET /v2/cycle/{id}/sleep`) and the
 * cycle's recovery, all dated by the opening sleep, so a sleep that arrives after its cycle was
 * stored re-dates the cycle and the recovery. `recovery.updated` carries the SLEEP id (v2): the
 * same reads. `workout.updated`: the workout. A resource that is gone (404) gives an empty
 * batch, as do `*.deleted` and unknown types (deletions are not records); a malformed record is
 * quarantined.
 */
export const fetchWhoopNotified = (
  input: FetchInput,
  event: WhoopEvent
): Effect.Effect<CanonicalBatch, ProviderError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const id = ProviderHttp.encodeComponent(event.id)
    switch (event.type) {
      case "workout.updated": {
        const workout = yield* getOne(input, workoutKind, `/v2/activity/workout/${id}`)
        return batchOf({
          workouts: Option.toArray(Option.map(workout.record, normaliseWhoopWorkout)),
          quarantined: workout.quarantined
        })
      }
      case "sleep.updated":
      case "recovery.updated": {
        const quarantined: Array<QuarantinedRecord> = []
        const sleepRead = yield* getOne(input, sleepKind, `/v2/activity/sleep/${id}`)
        quarantined.push(...sleepRead.quarantined)
        if (Option.isNone(sleepRead.record)) return batchOf({ quarantined })
        const sleep = sleepRead.record.value
        const cycleId = sleep.cycle_id
        const can = grants(input)
        if (cycleId === undefined || !can("read:cycles")) {
          return batchOf({ sleep: [normaliseWhoopSleep(sleep)], quarantined })
        }
        const cyclePath = `/v2/cycle/${ProviderHttp.encodeComponent(String(cycleId))}`
        const cycleRead = yield* getOne(input, cycleKind, cyclePath)
        quarantined.push(...cycleRead.quarantined)
        if (Option.isNone(cycleRead.record)) return batchOf({ sleep: [normaliseWhoopSleep(sleep)], quarantined })
        let opening: WhoopSleep | undefined = sleep.nap ? undefined : sleep
        if (opening === undefined) {
          const read = yield* getOne(input, sleepKind, `${cyclePath}/sleep`)
          quarantined.push(...read.quarantined)
          opening = Option.getOrUndefined(read.record)
          if (opening !== undefined && (opening.nap || String(opening.cycle_id) !== String(cycleId))) {
            opening = undefined
          }
        }
        const load = normaliseWhoopCycle(cycleRead.record.value, opening)
        const recoveryRead = can("read:recovery")
          ? yield* getOne(input, recoveryKind, `${cyclePath}/recovery`)
          : nothing
        quarantined.push(...recoveryRead.quarantined)
        const sleeps = [sleep, ...(opening === undefined || opening.id === sleep.id ? [] : [opening])]
        return batchOf({
          sleep: sleeps.map((s) => normaliseWhoopSleep(s, load.date)),
          dailyLoad: [load],
          recovery: Option.toArray(Option.map(recoveryRead.record, (r) => normaliseWhoopRecovery(r, load.date))),
          quarantined
        })
      }
      default:
        return emptyBatch
    }
  })
