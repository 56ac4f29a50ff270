/**
 * Oura data (API v2, `https://api.ouraring.com/v2/usercollection/...`), one window of local days at a time:
 * `daily_activity`, `sleep`, `daily_sleep`, `daily_readiness`, `daily_spo2` and `workout`, each read with
 * `start_date`/`end_date` (local dates) and followed through `next_token` to the last page, one collection after
 * another (the limits are per user: 300 requests a minute, 5,000 a day); `personal_info` once the window reaches
 * the present.
 *
 * Dates: the docs say nothing of whether `end_date` is inclusive, and clients measuring the live API report that
 * it is not for `daily_activity`, `sleep` and `workout` (and that `workout` is filtered by the UTC date of its
 * start while its `day` is local). So a window is read from the day before `from` to the day after `to` (workouts
 * to two days after, since an evening workout west of UTC starts on the next UTC day), and only documents whose
 * `day` lies in the window are kept: every day is read whole, whatever the filter does.
 *
 * Every document is decoded on its own: one that does not read is quarantined with its raw JSON and the others
 * are kept. A collection whose scope the user did not grant is not asked for; one Oura refuses with a 403 naming
 * missing scopes (the user may untick scopes at consent, and Oura's token reply need not say) is skipped.
 *
 * Notifications name one document: created or updated ones are read by id for their `day`, which is read again
 * whole (the day's recovery joins several collections); a deleted sleep or workout is deleted here.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ProviderError } from "../Adapter.js"
import { InsufficientScope } from "../Adapter.js"
import type { DateWindow, FetchInput, NotificationOutcome, ProviderData, QuarantinedRecord } from "../Canonical.js"
import { emptyBatch } from "../Canonical.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import {
  addDays,
  batchOf,
  checkWindow,
  collectPages,
  DateString,
  decodeEach,
  decodeNotification,
  lastByKey,
  utcDate
} from "../Shared.js"
import { ouraContext } from "./Adapter.js"
import type { OuraDailyActivity, OuraDailySleep, OuraSleep, OuraWorkout } from "./Normalise.js"
import {
  normaliseOuraDailyActivity,
  normaliseOuraPersonalInfo,
  normaliseOuraSleep,
  normaliseOuraWorkout,
  OuraDailyActivity as DailyActivitySchema,
  OuraDailySleep as DailySleepSchema,
  OuraPersonalInfo,
  OuraSleep as SleepSchema,
  OuraWorkout as WorkoutSchema
} from "./Normalise.js"
import type { OuraDailyReadiness, OuraDailySpo2 } from "./NormaliseRecovery.js"
import {
  assembleOuraRecoveries,
  OuraDailyReadiness as ReadinessSchema,
  OuraDailySpo2 as Spo2Schema,
  ouraMainSleeps
} from "./NormaliseRecovery.js"
import { callbackUrlOf, ensureOuraSubscriptions } from "./Subscriptions.js"
import type { OuraNotifiedDataType } from "./Webhooks.js"
import { OuraNotification } from "./Webhooks.js"

/** A page as an envelope: its documents are decoded one by one. */
const Page = Schema.Struct({
  data: Schema.Array(Schema.Unknown),
  next_token: Schema.optional(Schema.NullOr(Schema.String))
})

/** The scope each collection is read under (see `ouraDefaultScopes`). */
export const ouraCollectionScopes: Readonly<Record<OuraNotifiedDataType | "personal_info", string>> = {
  daily_activity: "daily",
  sleep: "daily",
  daily_sleep: "daily",
  daily_readiness: "daily",
  daily_spo2: "spo2",
  workout: "workout",
  personal_info: "personal"
}

/** The scopes granted; an empty list means the provider did not say, so everything is tried. */
const grants = (input: FetchInput) => {
  const granted = input.tokens.scopes.split(/[\s,]+/).filter((s) => s !== "")
  return (scope: string) => granted.length === 0 || granted.includes(scope)
}

const isMissingScope = (error: ProviderError) => error.status === 403 && error.code === InsufficientScope

const get = (input: FetchInput, operation: string, url: string) => {
  const ctx = ouraContext(operation, input)
  return (read: ReturnType<typeof ProviderHttp.readJson<any, any>>) =>
    ProviderHttp.send(
      ctx,
      HttpClientRequest.get(url).pipe(
        HttpClientRequest.bearerToken(input.tokens.accessToken),
        HttpClientRequest.acceptJson
      ),
      read
    )
}

/**
 * Every document of a collection between two local dates (both as Oura takes them), page after page;
 * nothing when the user did not grant its scope, or Oura says so with a 403.
 */
export const ouraCollection = (
  input: FetchInput,
  dataType: OuraNotifiedDataType,
  range: { readonly startDate: string; readonly endDate: string }
): Effect.Effect<ReadonlyArray<unknown>, ProviderError, HttpClient.HttpClient> => {
  if (!grants(input)(ouraCollectionScopes[dataType])) return Effect.succeed([])
  const ctx = ouraContext(`${dataType} read`, input)
  const read = ProviderHttp.readJson(ctx, Page)
  return collectPages(ctx, (token) =>
    get(
      input,
      `${dataType} read`,
      ProviderHttp.withQuery(`${input.endpoints.apiBaseUrl}/v2/usercollection/${dataType}`, [
        ["start_date", range.startDate],
        ["end_date", range.endDate],
        ...(token === undefined ? [] : [["next_token", token] as const])
      ])
    )(read).pipe(
      Effect.map((page: typeof Page.Type) => ({
        records: page.data,
        next: page.next_token === undefined || page.next_token === null || page.next_token === "" ?
          undefined :
          page.next_token
      }))
    )).pipe(Effect.catchIf(isMissingScope, () => Effect.succeed([] as ReadonlyArray<unknown>)))
}

const stringField = (raw: unknown, key: string): string | null => {
  const value = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)[key] : undefined
  return typeof value === "string" && value !== "" ? value : null
}

/** Decodes a collection's documents one by one; `check` normalises once, so what it refuses is quarantined. */
const decodeDocuments = <A>(
  kind: string,
  schema: Schema.Schema<A, any>,
  items: ReadonlyArray<unknown>,
  check: (decoded: A) => unknown = () => undefined,
  idOf?: (raw: unknown) => string | null
) =>
  decodeEach({
    kind,
    schema,
    items,
    normalise: (decoded: A) => {
      check(decoded)
      return decoded
    },
    ...(idOf === undefined ? {} : { idOf })
  })

const inWindow = (window: DateWindow) => (document: { readonly day: string }) =>
  document.day >= window.from && document.day <= window.to

/** The pieces of one window, read and decoded (not yet normalised). */
interface Read {
  readonly activity: ReadonlyArray<OuraDailyActivity>
  readonly sleeps: ReadonlyArray<OuraSleep>
  readonly dailySleeps: ReadonlyArray<OuraDailySleep>
  readonly readiness: ReadonlyArray<OuraDailyReadiness>
  readonly spo2: ReadonlyArray<OuraDailySpo2>
  readonly workouts: ReadonlyArray<OuraWorkout>
  readonly quarantined: ReadonlyArray<QuarantinedRecord>
}

const readWindow = (input: FetchInput, window: DateWindow) =>
  Effect.gen(function*() {
    const range = { startDate: addDays(window.from, -1), endDate: addDays(window.to, 1) }
    // workouts are filtered by the UTC date of their start, before an exclusive end: one of the window's last day
    // that starts on the next UTC day (an evening west of UTC) is only listed up to the day after that
    const workoutRange = { ...range, endDate: addDays(window.to, 2) }
    // one collection at a time: the per-minute limit is the user's, and a 429 should stop the window early
    const activity = decodeDocuments(
      "DailyActivity",
      DailyActivitySchema,
      yield* ouraCollection(input, "daily_activity", range),
      normaliseOuraDailyActivity,
      // a day of activity is keyed by its day (Normalise.ts), so its quarantine is too
      (raw) => stringField(raw, "day")
    )
    const sleeps = decodeDocuments("Sleep", SleepSchema, yield* ouraCollection(input, "sleep", range), (s) =>
      normaliseOuraSleep(s))
    const dailySleeps = decodeDocuments("Sleep", DailySleepSchema, yield* ouraCollection(input, "daily_sleep", range))
    const readiness = decodeDocuments(
      "Recovery",
      ReadinessSchema,
      yield* ouraCollection(input, "daily_readiness", range)
    )
    const spo2 = decodeDocuments("Recovery", Spo2Schema, yield* ouraCollection(input, "daily_spo2", range))
    const workouts = decodeDocuments(
      "Workout",
      WorkoutSchema,
      yield* ouraCollection(input, "workout", workoutRange),
      normaliseOuraWorkout
    )
    const keep = inWindow(window)
    return {
      activity: activity.records.filter(keep),
      // a period Oura marks deleted is no sleep
      sleeps: sleeps.records.filter((s) =>
        keep(s) && s.type !== "deleted"
      ),
      dailySleeps: dailySleeps.records.filter(keep),
      readiness: readiness.records.filter(keep),
      spo2: spo2.records.filter(keep),
      workouts: workouts.records.filter(keep),
      quarantined: [
        ...activity.quarantined,
        ...sleeps.quarantined,
        ...dailySleeps.quarantined,
        ...readiness.quarantined,
        ...spo2.quarantined,
        ...workouts.quarantined
      ]
    } satisfies Read
  })

/** Height and weight, read when the window reaches yesterday or later (a snapshot of now, not of the past). */
const personalInfo = (input: FetchInput, window: DateWindow) =>
  Effect.gen(function*() {
    const today = utcDate(input.now.getTime())
    if (window.to < addDays(today, -1) || !grants(input)(ouraCollectionScopes.personal_info)) {
      return { bodyMeasurements: [], quarantined: [] }
    }
    const ctx = ouraContext("personal info read", input)
    const raw = yield* get(
      input,
      "personal info read",
      `${input.endpoints.apiBaseUrl}/v2/usercollection/personal_info`
    )(
      ProviderHttp.readJson(ctx, Schema.Unknown)
    ).pipe(Effect.catchIf(isMissingScope, () => Effect.succeed(undefined)))
    if (raw === undefined) return { bodyMeasurements: [], quarantined: [] }
    const decoded = decodeEach({
      kind: "BodyMeasurement",
      schema: OuraPersonalInfo,
      items: [raw],
      normalise: (info) => normaliseOuraPersonalInfo(info, input.now)
    })
    return { bodyMeasurements: decoded.records, quarantined: decoded.quarantined }
  })

/** Normalises a window's documents into its batch. */
export const assembleOuraWindow = (read: Read) => {
  const scores = new Map(read.dailySleeps.map((d) => [d.day, d.score ?? null]))
  const mainSleeps = ouraMainSleeps(read.sleeps)
  return {
    dailyActivity: lastByKey(
      read.activity.map((a) => normaliseOuraDailyActivity(a, mainSleeps.get(a.day)?.lowest_heart_rate ?? null)),
      (r) => r.providerRecordId
    ),
    sleep: lastByKey(
      read.sleeps.map((s) => normaliseOuraSleep(s, scores.get(s.day) ?? null)),
      (r) => r.providerRecordId
    ),
    recovery: assembleOuraRecoveries({ readiness: read.readiness, spo2: read.spo2, sleeps: read.sleeps }),
    workouts: lastByKey(read.workouts.map(normaliseOuraWorkout), (r) => r.providerRecordId)
  }
}

const decode = decodeNotification("Oura", OuraNotification, "an OuraEvent notification")

const DocumentDay = Schema.Struct({ day: DateString })

/**
 * The local day a document is of, read by id; none when it is gone (404) or its scope is not granted, null
 * when it has no readable day.
 */
const documentDay = (input: FetchInput, event: OuraNotification) =>
  get(
    input,
    `${event.dataType} read`,
    `${input.endpoints.apiBaseUrl}/v2/usercollection/${event.dataType}/${ProviderHttp.encodeComponent(event.objectId)}`
  )(ProviderHttp.readJson(ouraContext(`${event.dataType} read`, input), Schema.Unknown)).pipe(
    // a document whose day does not read: null, the days around now are read instead
    Effect.map((raw) =>
      Option.some(Option.getOrNull(Option.map(Schema.decodeUnknownOption(DocumentDay)(raw), (d) => d.day)))
    ),
    Effect.catchIf((error) => error.status === 404 || isMissingScope(error), () => Effect.succeed(Option.none()))
  )

export const OuraData: ProviderData = {
  // a month of local days: 6 collections, one or two pages each
  windowDays: 30,
  // Oura keeps the ring's history from the start of the account; two years is what a backfill reads
  maxBackfillDays: 730,
  fetchWindow: (input, window) =>
    Effect.gen(function*() {
      yield* checkWindow(ouraContext("data read", input), window)
      // the user's day may already be tomorrow in UTC
      const lastDate = addDays(utcDate(input.now.getTime()), 1)
      const bounded = { from: window.from, to: window.to < lastDate ? window.to : lastDate }
      if (bounded.from > bounded.to) return emptyBatch
      const read = yield* readWindow(input, bounded)
      const body = yield* personalInfo(input, bounded)
      return batchOf({
        ...assembleOuraWindow(read),
        bodyMeasurements: body.bodyMeasurements,
        quarantined: [...read.quarantined, ...body.quarantined]
      })
    }),
  // Subscriptions are the app's: made or renewed when the server can be reached (see Subscriptions.ts).
  afterBackfill: (input) => {
    const callbackUrl = callbackUrlOf(input)
    return callbackUrl === null ? Effect.void : ensureOuraSubscriptions({
      credentials: input.credentials,
      endpoints: input.endpoints,
      callbackUrl,
      nowMs: input.now.getTime()
    }).pipe(Effect.asVoid)
  },
  notify: (input, notification) =>
    Effect.flatMap(decode(notification), (event): Effect.Effect<
      NotificationOutcome,
      ProviderError,
      HttpClient.HttpClient
    > => {
      if (event.eventType === "delete") {
        if (event.dataType === "sleep") {
          return Effect.succeed({ _tag: "Delete", deletions: [{ kind: "Sleep", providerRecordId: event.objectId }] })
        }
        if (event.dataType === "workout") {
          return Effect.succeed({
            _tag: "Delete",
            deletions: [{ kind: "Workout", providerRecordId: event.objectId }]
          })
        }
        return Effect.succeed({ _tag: "Store", batch: emptyBatch })
      }
      return Effect.map(documentDay(input, event), (day): NotificationOutcome => {
        if (Option.isNone(day)) return { _tag: "Store", batch: emptyBatch }
        return day.value === null
          ? {
            _tag: "Resync",
            window: { from: addDays(utcDate(input.now.getTime()), -1), to: addDays(utcDate(input.now.getTime()), 1) }
          }
          : { _tag: "Resync", window: { from: day.value, to: day.value } }
      })
    })
}
