/**
 * WHOOP data (API v2, under `/developer`): the cycle, recovery, sleep and workout collections of
 * a window (`start`/`end`, `limit=25`, `nextToken` in, `next_token` out), the basic profile and
 * body measurement as snapshots, the by-id reads a webhook needs, and the normalisers into
 * `DailyLoadRecord`, `RecoveryRecord`, `SleepRecord`, `WorkoutRecord` and the two snapshots.
 *
 * Dates: a cycle and a workout fall on the local date of their `start`, a sleep on the local date
 * of its `end` (the morning it ends), a recovery on the date of its cycle; local means shifted by
 * the record's `timezone_offset`. Energy: kJ / 4.184. Durations: milliseconds / 60000.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ProviderError } from "../Adapter.js"
import type {
  BodyMeasurementSnapshot,
  CanonicalBatch,
  DailyLoadRecord,
  FetchInput,
  ProfileSnapshot,
  ProviderData,
  RecoveryRecord,
  SleepRecord,
  WorkoutRecord
} from "../Canonical.js"
import { emptyBatch } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import {
  batchOf,
  checkWindow,
  collectPages,
  DateTimeString,
  dayMs,
  keepUnknownFields,
  kilocaloriesFromKilojoules,
  lastByKey,
  localDate,
  millisToMinutes,
  offsetMinutes,
  parseInstant,
  utcDate,
  utcMidnight
} from "./Shared.js"

// ---- provider shapes ----

const TimezoneOffset = Schema.String.pipe(
  Schema.filter((offset) => offsetMinutes(offset) !== undefined, {
    message: () => "expected a time zone offset (+hh:mm, -hh:mm or Z)"
  })
)

/** WHOOP ids: int64 for cycles and users, UUIDs for sleeps and workouts. */
const NumericId = Schema.Union(Schema.Int, Schema.NonEmptyString)
const optionalNumber = Schema.optional(Schema.NullOr(Schema.Number))

export const WhoopCycle = Schema.Struct({
  id: NumericId,
  user_id: Schema.optional(NumericId),
  start: DateTimeString,
  // absent while the cycle is in progress
  end: Schema.optional(Schema.NullOr(DateTimeString)),
  timezone_offset: TimezoneOffset,
  score_state: Schema.String,
  // absent unless SCORED
  score: Schema.optional(Schema.NullOr(Schema.Struct({
    strain: Schema.Number,
    kilojoule: Schema.Number,
    average_heart_rate: Schema.Number,
    max_heart_rate: Schema.Number
  })))
}).annotations(keepUnknownFields)
export type WhoopCycle = typeof WhoopCycle.Type

export const WhoopRecovery = Schema.Struct({
  cycle_id: NumericId,
  sleep_id: Schema.optional(Schema.NullOr(Schema.String)),
  score_state: Schema.String,
  score: Schema.optional(Schema.NullOr(Schema.Struct({
    user_calibrating: Schema.optional(Schema.NullOr(Schema.Boolean)),
    recovery_score: optionalNumber,
    resting_heart_rate: optionalNumber,
    hrv_rmssd_milli: optionalNumber,
    // WHOOP 4.0 and later only
    spo2_percentage: optionalNumber,
    skin_temp_celsius: optionalNumber
  })))
}).annotations(keepUnknownFields)
export type WhoopRecovery = typeof WhoopRecovery.Type

export const WhoopSleep = Schema.Struct({
  id: Schema.NonEmptyString,
  cycle_id: Schema.optional(NumericId),
  start: DateTimeString,
  end: DateTimeString,
  timezone_offset: TimezoneOffset,
  nap: Schema.Boolean,
  score_state: Schema.String,
  score: Schema.optional(Schema.NullOr(Schema.Struct({
    stage_summary: Schema.optional(Schema.Struct({
      total_in_bed_time_milli: optionalNumber,
      total_awake_time_milli: optionalNumber,
      total_light_sleep_time_milli: optionalNumber,
      total_slow_wave_sleep_time_milli: optionalNumber,
      total_rem_sleep_time_milli: optionalNumber,
      disturbance_count: optionalNumber
    })),
    sleep_needed: Schema.optional(Schema.Struct({
      baseline_milli: Schema.Number,
      need_from_sleep_debt_milli: Schema.Number,
      need_from_recent_strain_milli: Schema.Number,
      need_from_recent_nap_milli: Schema.Number
    })),
    respiratory_rate: optionalNumber,
    sleep_performance_percentage: optionalNumber,
    sleep_consistency_percentage: optionalNumber,
    sleep_efficiency_percentage: optionalNumber
  })))
}).annotations(keepUnknownFields)
export type WhoopSleep = typeof WhoopSleep.Type

const ZoneDurations = Schema.Struct({
  zone_zero_milli: optionalNumber,
  zone_one_milli: optionalNumber,
  zone_two_milli: optionalNumber,
  zone_three_milli: optionalNumber,
  zone_four_milli: optionalNumber,
  zone_five_milli: optionalNumber
})

export const WhoopWorkout = Schema.Struct({
  id: Schema.NonEmptyString,
  start: DateTimeString,
  end: DateTimeString,
  timezone_offset: TimezoneOffset,
  sport_name: Schema.optional(Schema.NullOr(Schema.String)),
  score_state: Schema.String,
  score: Schema.optional(Schema.NullOr(Schema.Struct({
    strain: optionalNumber,
    average_heart_rate: optionalNumber,
    max_heart_rate: optionalNumber,
    kilojoule: optionalNumber,
    distance_meter: optionalNumber,
    zone_durations: Schema.optional(Schema.NullOr(ZoneDurations))
  })))
}).annotations(keepUnknownFields)
export type WhoopWorkout = typeof WhoopWorkout.Type

export const WhoopProfile = Schema.Struct({
  user_id: NumericId,
  email: Schema.optional(Schema.NullOr(Schema.String)),
  first_name: Schema.optional(Schema.NullOr(Schema.String)),
  last_name: Schema.optional(Schema.NullOr(Schema.String))
}).annotations(keepUnknownFields)
export type WhoopProfile = typeof WhoopProfile.Type

export const WhoopBodyMeasurement = Schema.Struct({
  height_meter: optionalNumber,
  weight_kilogram: optionalNumber,
  max_heart_rate: optionalNumber
}).annotations(keepUnknownFields)
export type WhoopBodyMeasurement = typeof WhoopBodyMeasurement.Type

const PageOf = <A, I>(record: Schema.Schema<A, I>) =>
  Schema.Struct({
    records: Schema.Array(record),
    next_token: Schema.optional(Schema.NullOr(Schema.String))
  })

// ---- normalisers ----

/** The local date of an instant written in UTC, at the record's `timezone_offset`. */
export const whoopLocalDate = (instant: string, timezoneOffset: string): string =>
  localDate(parseInstant(instant), offsetMinutes(timezoneOffset) ?? 0)

const nullable = <A>(value: A | null | undefined): A | null => value ?? null
const minutes = (millis: number | null | undefined): number | null =>
  millis === null || millis === undefined ? null : millisToMinutes(millis)
const kilocalories = (kilojoules: number | null | undefined): number | null =>
  kilojoules === null || kilojoules === undefined ? null : kilocaloriesFromKilojoules(kilojoules)

/** A cycle as a load window. An in-progress cycle has no end and no score: those fields are null. */
export const normaliseWhoopCycle = (cycle: WhoopCycle): DailyLoadRecord => {
  const score = cycle.score ?? null
  return {
    providerRecordId: String(cycle.id),
    date: whoopLocalDate(cycle.start, cycle.timezone_offset),
    windowKind: "PhysiologicalCycle",
    windowStart: new Date(parseInstant(cycle.start)),
    windowEnd: cycle.end === undefined || cycle.end === null ? null : new Date(parseInstant(cycle.end)),
    loadScore: score?.strain ?? null,
    loadScoreScale: "WhoopStrain0To21",
    energyKilocalories: kilocalories(score?.kilojoule),
    averageHeartRate: score?.average_heart_rate ?? null,
    maxHeartRate: score?.max_heart_rate ?? null,
    distanceMeters: null,
    steps: null,
    zoneDurationsJson: "{}",
    sourceConfidence: "ProviderNative",
    scoreState: cycle.score_state,
    rawJson: JSON.stringify(cycle)
  }
}

export const normaliseWhoopSleep = (sleep: WhoopSleep): SleepRecord => {
  const score = sleep.score ?? null
  const stages = score?.stage_summary
  const need = score?.sleep_needed
  return {
    providerRecordId: sleep.id,
    date: whoopLocalDate(sleep.end, sleep.timezone_offset),
    start: new Date(parseInstant(sleep.start)),
    end: new Date(parseInstant(sleep.end)),
    nap: sleep.nap,
    scoreState: sleep.score_state,
    inBedMinutes: minutes(stages?.total_in_bed_time_milli),
    awakeMinutes: minutes(stages?.total_awake_time_milli),
    lightMinutes: minutes(stages?.total_light_sleep_time_milli),
    deepMinutes: minutes(stages?.total_slow_wave_sleep_time_milli),
    remMinutes: minutes(stages?.total_rem_sleep_time_milli),
    sleepNeedMinutes: need === undefined
      ? null
      : millisToMinutes(
        need.baseline_milli + need.need_from_sleep_debt_milli + need.need_from_recent_strain_milli +
          need.need_from_recent_nap_milli
      ),
    respiratoryRate: nullable(score?.respiratory_rate),
    performancePercent: nullable(score?.sleep_performance_percentage),
    consistencyPercent: nullable(score?.sleep_consistency_percentage),
    efficiencyPercent: nullable(score?.sleep_efficiency_percentage),
    disturbanceCount: nullable(stages?.disturbance_count),
    rawJson: JSON.stringify(sleep)
  }
}

/** A recovery, dated by its cycle (`cycleDate`: the normalised cycle's `date`). */
export const normaliseWhoopRecovery = (recovery: WhoopRecovery, cycleDate: string): RecoveryRecord => {
  const score = recovery.score ?? null
  return {
    providerRecordId: String(recovery.cycle_id),
    sleepId: recovery.sleep_id ?? null,
    date: cycleDate,
    scoreState: recovery.score_state,
    calibrating: nullable(score?.user_calibrating),
    recoveryScore: nullable(score?.recovery_score),
    restingHeartRate: nullable(score?.resting_heart_rate),
    hrvRmssdMs: nullable(score?.hrv_rmssd_milli),
    spo2Percent: nullable(score?.spo2_percentage),
    skinTempCelsius: nullable(score?.skin_temp_celsius),
    rawJson: JSON.stringify(recovery)
  }
}

const zoneNames = ["zero", "one", "two", "three", "four", "five"] as const

/**
 * Minutes per heart-rate zone as JSON text, `{"zone0": m, ..., "zone5": m}` with the zones WHOOP
 * reported (`{}` when none).
 */
export const whoopZoneDurationsJson = (zones: typeof ZoneDurations.Type | null | undefined): string => {
  if (zones === null || zones === undefined) return "{}"
  const out: Record<string, number> = {}
  zoneNames.forEach((name, i) => {
    const millis = zones[`zone_${name}_milli`]
    if (millis !== null && millis !== undefined) out[`zone${i}`] = millisToMinutes(millis)
  })
  return JSON.stringify(out)
}

export const normaliseWhoopWorkout = (workout: WhoopWorkout): WorkoutRecord => {
  const score = workout.score ?? null
  return {
    providerRecordId: workout.id,
    date: whoopLocalDate(workout.start, workout.timezone_offset),
    start: new Date(parseInstant(workout.start)),
    end: new Date(parseInstant(workout.end)),
    sportName: workout.sport_name ?? null,
    scoreState: workout.score_state,
    strain: nullable(score?.strain),
    averageHeartRate: nullable(score?.average_heart_rate),
    maxHeartRate: nullable(score?.max_heart_rate),
    energyKilocalories: kilocalories(score?.kilojoule),
    distanceMeters: nullable(score?.distance_meter),
    zoneDurationsJson: whoopZoneDurationsJson(score?.zone_durations),
    rawJson: JSON.stringify(workout)
  }
}

/** The profile as read on `asOf`'s UTC date: one snapshot per user and day. */
export const normaliseWhoopProfile = (profile: WhoopProfile, asOf: Date): ProfileSnapshot => ({
  providerRecordId: `${profile.user_id}:${utcDate(asOf.getTime())}`,
  firstName: profile.first_name ?? null,
  lastName: profile.last_name ?? null,
  email: profile.email ?? null,
  rawJson: JSON.stringify(profile)
})

/** Body measurements as read on `asOf`'s UTC date: one snapshot per user and day. */
export const normaliseWhoopBodyMeasurement = (
  providerUserId: string,
  body: WhoopBodyMeasurement,
  asOf: Date
): BodyMeasurementSnapshot => ({
  providerRecordId: `${providerUserId}:${utcDate(asOf.getTime())}`,
  heightMeters: body.height_meter ?? null,
  weightKilograms: body.weight_kilogram ?? null,
  maxHeartRate: body.max_heart_rate ?? null,
  rawJson: JSON.stringify(body)
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
        const read = yield* getOptional(ctx, input, `/v2/cycle/${encodeURIComponent(id)}`, WhoopCycle)
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
    })
}

/** A WHOOP v2 webhook: `type` such as `sleep.updated`, `id` the resource's id. */
export interface WhoopEvent {
  readonly type: string
  readonly id: string
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
    const id = encodeURIComponent(event.id)
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
        const cyclePath = `/v2/cycle/${encodeURIComponent(String(cycleId))}`
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
