/**
 * Withings data, one window of the user's local days at a time, each service a form POST with the access token
 * (developer.withings.com/api-reference):
 *
 * - `measure getmeas` (`user.metrics`): real measures (`category=1`) of the body composition types, blood pressure
 *   and pulse, between `startdate` and `enddate` (Unix seconds). A local day lies between 14 hours before and 12
 *   hours after its UTC day, so the window is read over that span (records a little outside it are stored too:
 *   storage is idempotent).
 * - `v2/measure getactivity`, `v2/measure getworkouts` and `v2/sleep getsummary` (`user.activity`) by local date,
 *   `startdateymd`/`enddateymd`, with the `data_fields` read; sleep a day either side, since a night is filed by
 *   the morning it ends.
 *
 * Every list is paged: an answer with `more` true (or 1) and an `offset` is asked again with that `offset`, to the
 * end. One service at a time: Withings' limit (120 requests a minute) is the whole app's. A service whose scope was
 * not granted is not asked. A notification reads its category over its range (`Store`); `afterBackfill` subscribes
 * the user's categories to the server's callback URL when that URL is one Withings accepts.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ProviderError } from "../Adapter.js"
import type { CanonicalBatch, FetchInput, NotificationOutcome, ProviderData } from "../Canonical.js"
import { emptyBatch } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import {
  addDays,
  batchOf,
  checkWindow,
  collectPages,
  dayMs,
  decodeNotification,
  hourMs,
  utcDate,
  utcMidnight
} from "../Shared.js"
import { withingsDefaultEndpoints, withingsScopeList } from "./Adapter.js"
import {
  normaliseWithingsActivities,
  normaliseWithingsMeasureGroups,
  normaliseWithingsSleeps,
  normaliseWithingsWorkouts
} from "./Normalise.js"
import type { CallKind } from "./Status.js"
import { withingsContext, withingsPost } from "./Status.js"
import { WithingsAppli, WithingsNotification } from "./Webhooks.js"

/** The measure types read: body composition, then blood pressure and pulse (kept in the raw JSON). */
export const withingsMeasureTypes = [1, 4, 5, 6, 8, 9, 10, 11, 76, 77, 88] as const

export const withingsActivityFields = [
  "steps",
  "distance",
  "elevation",
  "soft",
  "moderate",
  "intense",
  "active",
  "calories",
  "totalcalories",
  "hr_average",
  "hr_min",
  "hr_max",
  "hr_zone_0",
  "hr_zone_1",
  "hr_zone_2",
  "hr_zone_3"
] as const

export const withingsWorkoutFields = [
  "calories",
  "intensity",
  "manual_distance",
  "manual_calories",
  "hr_average",
  "hr_min",
  "hr_max",
  "hr_zone_0",
  "hr_zone_1",
  "hr_zone_2",
  "hr_zone_3",
  "pause_duration",
  "algo_pause_duration",
  "spo2_average",
  "steps",
  "distance",
  "elevation"
] as const

export const withingsSleepFields = [
  "total_timeinbed",
  "total_sleep_time",
  "asleepduration",
  "lightsleepduration",
  "remsleepduration",
  "deepsleepduration",
  "sleep_efficiency",
  "sleep_latency",
  "wakeup_latency",
  "wakeupduration",
  "wakeupcount",
  "waso",
  "hr_average",
  "hr_min",
  "hr_max",
  "rr_average",
  "rr_min",
  "rr_max",
  "sleep_score"
] as const

/** `more` is a boolean in the v2 services and 0/1 in `getmeas`. */
const More = Schema.optional(Schema.Union(Schema.Boolean, Schema.Int))
const Offset = Schema.optional(Schema.Int)

const MeasurePage = Schema.Struct({
  timezone: Schema.optional(Schema.String),
  measuregrps: Schema.Array(Schema.Unknown),
  more: More,
  offset: Offset
})
const ActivityPage = Schema.Struct({ activities: Schema.Array(Schema.Unknown), more: More, offset: Offset })
const SeriesPage = Schema.Struct({ series: Schema.Array(Schema.Unknown), more: More, offset: Offset })

const nextOffset = (page: { readonly more?: boolean | number | undefined; readonly offset?: number | undefined }) =>
  (page.more === true || page.more === 1) && page.offset !== undefined ? String(page.offset) : undefined

/** Every page of one service: `offset` passed back until `more` is false. */
const pages = <A, I, P extends { readonly more?: boolean | number | undefined; readonly offset?: number | undefined }>(
  ctx: CallContext,
  input: FetchInput,
  options: {
    readonly path: string
    readonly form: Readonly<Record<string, string>>
    readonly schema: Schema.Schema<P, I>
    readonly items: (page: P) => ReadonlyArray<A>
    readonly kind: CallKind
  }
) => {
  const collected: Array<P> = []
  return collectPages(ctx, (offset) =>
    withingsPost(ctx, {
      url: `${input.endpoints.apiBaseUrl}${options.path}`,
      form: offset === undefined ? options.form : { ...options.form, offset },
      accessToken: input.tokens.accessToken,
      schema: options.schema,
      kind: options.kind
    }).pipe(
      Effect.map((page) => {
        collected.push(page)
        return { records: options.items(page), next: nextOffset(page) }
      })
    )).pipe(Effect.map((records) => ({ records, pages: collected as ReadonlyArray<P> })))
}

/** Whether the grant holds `scope` (an empty grant is one the provider did not describe: everything is tried). */
const grants = (input: FetchInput) => {
  const granted = withingsScopeList(input.tokens.scopes)
  return (scope: string) => granted.length === 0 || granted.includes(scope)
}

type Read = Effect.Effect<CanonicalBatch, ProviderError, HttpClient.HttpClient>

/** Measures between two instants (Unix seconds), each page's groups dated by that page's `timezone`. */
export const readWithingsMeasures = (input: FetchInput, startSeconds: number, endSeconds: number): Read =>
  Effect.gen(function*() {
    const ctx = withingsContext("measure read", input)
    const read = yield* pages(ctx, input, {
      path: "/measure",
      form: {
        action: "getmeas",
        meastypes: withingsMeasureTypes.join(","),
        category: "1",
        startdate: String(startSeconds),
        enddate: String(endSeconds)
      },
      schema: MeasurePage,
      items: (page) => page.measuregrps,
      kind: { _tag: "data", scope: "user.metrics" }
    })
    const records = []
    const quarantined = []
    for (const page of read.pages) {
      // Withings dates a user's groups in one time zone, the answer's; UTC when it names none.
      const normalised = normaliseWithingsMeasureGroups(page.measuregrps, page.timezone ?? "UTC")
      records.push(...normalised.records)
      quarantined.push(...normalised.quarantined)
    }
    return batchOf({ bodyMeasurements: records, quarantined })
  })

const byDates = (from: string, to: string) => ({ startdateymd: from, enddateymd: to })

/** Daily activity and workouts of local dates `from`..`to`. */
export const readWithingsActivity = (input: FetchInput, from: string, to: string): Read =>
  Effect.gen(function*() {
    const kind: CallKind = { _tag: "data", scope: "user.activity" }
    const days = yield* pages(withingsContext("activity read", input), input, {
      path: "/v2/measure",
      form: { action: "getactivity", ...byDates(from, to), data_fields: withingsActivityFields.join(",") },
      schema: ActivityPage,
      items: (page) => page.activities,
      kind
    })
    const workouts = yield* pages(withingsContext("workout read", input), input, {
      path: "/v2/measure",
      form: { action: "getworkouts", ...byDates(from, to), data_fields: withingsWorkoutFields.join(",") },
      schema: SeriesPage,
      items: (page) => page.series,
      kind
    })
    const activity = normaliseWithingsActivities(days.records)
    const sessions = normaliseWithingsWorkouts(workouts.records)
    return batchOf({
      dailyActivity: activity.records,
      workouts: sessions.records,
      quarantined: [...activity.quarantined, ...sessions.quarantined]
    })
  })

/** Sleep summaries of the nights filed under local dates `from`..`to` (asked a day either side). */
export const readWithingsSleep = (input: FetchInput, from: string, to: string): Read =>
  Effect.gen(function*() {
    const nights = yield* pages(withingsContext("sleep read", input), input, {
      path: "/v2/sleep",
      form: {
        action: "getsummary",
        ...byDates(addDays(from, -1), addDays(to, 1)),
        data_fields: withingsSleepFields.join(",")
      },
      schema: SeriesPage,
      items: (page) => page.series,
      kind: { _tag: "data", scope: "user.activity" }
    })
    const sleeps = normaliseWithingsSleeps(nights.records)
    return batchOf({ sleep: sleeps.records, quarantined: sleeps.quarantined })
  })

const merge = (batches: ReadonlyArray<CanonicalBatch>): CanonicalBatch =>
  batches.reduce((out, batch) => ({
    ...out,
    dailyActivity: [...out.dailyActivity, ...batch.dailyActivity],
    sleep: [...out.sleep, ...batch.sleep],
    workouts: [...out.workouts, ...batch.workouts],
    bodyMeasurements: [...out.bodyMeasurements, ...batch.bodyMeasurements],
    quarantined: [...out.quarantined, ...batch.quarantined]
  }), emptyBatch)

/** The instants (Unix seconds) a window of local dates can cover at any offset, capped at now. */
export const withingsWindowSeconds = (window: { readonly from: string; readonly to: string }, nowMs: number) => ({
  start: Math.floor((utcMidnight(window.from) - 14 * hourMs) / 1000),
  end: Math.floor(Math.min(utcMidnight(window.to) + dayMs + 12 * hourMs, nowMs) / 1000)
})

/** The local dates a range of instants may fall on, a day either side of its UTC dates. */
const datesAround = (startSeconds: number, endSeconds: number) => ({
  from: addDays(utcDate(Math.min(startSeconds, endSeconds) * 1000), -1),
  to: addDays(utcDate(Math.max(startSeconds, endSeconds) * 1000), 1)
})

/** What a notification names: its own date, else the dates its instants can fall on, else around now. */
const notifiedDates = (notification: WithingsNotification, nowMs: number) => {
  if (notification.date !== undefined) return { from: notification.date, to: notification.date }
  const start = notification.startdate ?? notification.enddate
  const end = notification.enddate ?? notification.startdate
  if (start !== undefined && end !== undefined) return datesAround(start, end)
  return datesAround(nowMs / 1000, nowMs / 1000)
}

/** Reads one notification's category over its range. */
export const fetchWithingsNotified = (input: FetchInput, notification: WithingsNotification): Read => {
  const can = grants(input)
  const nowMs = input.now.getTime()
  switch (notification.appli) {
    case WithingsAppli.weight:
    case WithingsAppli.bloodPressure: {
      if (!can("user.metrics")) return Effect.succeed(emptyBatch)
      if (notification.startdate !== undefined && notification.enddate !== undefined) {
        return readWithingsMeasures(input, notification.startdate, notification.enddate)
      }
      const range = withingsWindowSeconds(notifiedDates(notification, nowMs), nowMs)
      return readWithingsMeasures(input, range.start, range.end)
    }
    case WithingsAppli.activity: {
      const dates = notifiedDates(notification, nowMs)
      return can("user.activity") ? readWithingsActivity(input, dates.from, dates.to) : Effect.succeed(emptyBatch)
    }
    case WithingsAppli.sleep: {
      const dates = notifiedDates(notification, nowMs)
      return can("user.activity") ? readWithingsSleep(input, dates.from, dates.to) : Effect.succeed(emptyBatch)
    }
    default:
      return Effect.succeed(emptyBatch)
  }
}

// ---- notifications ----

/**
 * A callback URL Withings registers without putting the app in restricted mode (the subscribe page: HTTPS, a
 * domain name rather than an IP address or localhost, port 443, at most 255 characters).
 */
export const isWithingsCallbackUrl = (url: string): boolean => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  const host = parsed.hostname
  return url.length <= 255 && parsed.protocol === "https:" && (parsed.port === "" || parsed.port === "443") &&
    host !== "localhost" && !host.endsWith(".localhost") && !/^[\d.]+$/.test(host) && !host.startsWith("[")
}

/** The categories subscribed, with the scope each needs. */
export const withingsSubscriptions: ReadonlyArray<{ readonly appli: number; readonly scope: string }> = [
  { appli: WithingsAppli.weight, scope: "user.metrics" },
  { appli: WithingsAppli.activity, scope: "user.activity" },
  { appli: WithingsAppli.sleep, scope: "user.activity" },
  { appli: WithingsAppli.user, scope: "user.info" }
]

/**
 * Subscribes the user's categories (those whose scope was granted) to `callbackUrl`, one `notify subscribe` each;
 * Withings checks the URL answers before it accepts. Subscribing a category already subscribed to the same URL is
 * answered as a success by the simulator; Withings' reference does not say.
 */
export const withingsSubscribe = (input: FetchInput, callbackUrl: string) => {
  const can = grants(input)
  return Effect.forEach(
    withingsSubscriptions.filter((s) => can(s.scope)),
    (s) =>
      withingsPost(withingsContext("notification subscription", input), {
        url: `${input.endpoints.apiBaseUrl}/notify`,
        form: { action: "subscribe", callbackurl: callbackUrl, appli: String(s.appli), comment: "PulseBridge" },
        accessToken: input.tokens.accessToken,
        schema: Schema.Unknown,
        kind: { _tag: "data", scope: s.scope }
      }),
    { discard: true }
  )
}

const decode = decodeNotification("Withings", WithingsNotification, "a WithingsChange notification")

export const WithingsData: ProviderData = {
  windowDays: 30,
  maxBackfillDays: 365,
  fetchWindow: (input, window) =>
    Effect.gen(function*() {
      yield* checkWindow(withingsContext("data read", input), window)
      const can = grants(input)
      const nowMs = input.now.getTime()
      const range = withingsWindowSeconds(window, nowMs)
      const batches: Array<CanonicalBatch> = []
      if (can("user.metrics") && range.end > range.start) {
        batches.push(yield* readWithingsMeasures(input, range.start, range.end))
      }
      if (can("user.activity")) {
        batches.push(yield* readWithingsActivity(input, window.from, window.to))
        batches.push(yield* readWithingsSleep(input, window.from, window.to))
      }
      return merge(batches)
    }),
  // Notifications need a callback URL Withings accepts; without one, periodic sync alone keeps the connection
  // fresh. Any other API than Withings' own (the sandbox's simulator, on the server's own network) takes any.
  afterBackfill: (input) =>
    isWithingsCallbackUrl(input.webhookUrl) || input.endpoints.apiBaseUrl !== withingsDefaultEndpoints.apiBaseUrl
      ? withingsSubscribe(input, input.webhookUrl)
      : Effect.void,
  notify: (input, notification) =>
    Effect.flatMap(
      decode(notification),
      (change) =>
        Effect.map(fetchWithingsNotified(input, change), (batch): NotificationOutcome => ({ _tag: "Store", batch }))
    )
}
