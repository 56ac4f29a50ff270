/**
 * Fitbit data through the Google Health API, one window of civil days at a time:
 *
 * - daily activity from `POST /v4/users/me/dataTypes/{dataType}/dataPoints:dailyRollUp`, one request per data type
 *   and span, rolled up per civil day of the user's own clock (`windowSizeDays: 1`), so no time zone is needed. The
 *   range is closed-open in civil time; Google allows 14 days for `total-calories` and `active-minutes` (90 for
 *   the others), so a window is 14 days. 14 points are far below the default page of 1,440: no page token comes.
 * - sleep, exercise, the five daily recovery metrics, weight and body fat from the raw points,
 *   `GET /v4/users/me/dataTypes/{dataType}/dataPoints` with Google's `filter` on the civil day (sleep by the day it
 *   ends, exercise by the day it starts, daily metrics by their `date`, samples by their civil time), following
 *   `nextPageToken` (sessions come 25 a page at most). A data type whose scope the user did not grant is not asked
 *   for (Google's consent is granular; only the activity scope is required).
 *
 * Every point is decoded on its own: a point that does not read is quarantined with its raw JSON, and the others
 * are stored (an activity day with a spoilt point is left out; a recovery day with one is stored `partial`, so the
 * stored value of that metric stays). Notifications only say which data changed and when: they become a re-read
 * of those days.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { DailyActivityRecord, FetchInput, ProviderData, QuarantinedRecord } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { addDays, batchOf, checkWindow, collectPages, decodeEach, decodeNotification, utcDate } from "../Shared.js"
import { fitbitContext } from "./Adapter.js"
import { assembleBodyMeasurements, assembleRecoveries, assembleSleeps, assembleWorkouts } from "./Assemble.js"
import type { FitbitDataType, FitbitDayValues } from "./Normalise.js"
import { civilDate, fitbitDataTypes, normaliseFitbitDay, RollupPoints, valuesOf } from "./Normalise.js"
import type { GoogleRecoveryDataType } from "./Points.js"
import { googleRecoveryDataTypes, listedDataTypes } from "./Points.js"
import { FitbitNotification } from "./Webhooks.js"

/** `dailyRollUp`'s longest range for `total-calories` and `active-minutes`. */
const maxRangeDays = 14

/** The reply envelope; its points are decoded one by one. */
const DailyRollUpResponse = Schema.Struct({ rollupDataPoints: Schema.optional(Schema.Array(Schema.Unknown)) })

/** A `google.type.Date` of a `YYYY-MM-DD` date. */
export const googleDate = (date: string) => ({
  year: Number(date.slice(0, 4)),
  month: Number(date.slice(5, 7)),
  day: Number(date.slice(8, 10))
})

/** The body of a daily roll-up of the civil days `from`..`to` (both inclusive). */
export const dailyRollUpBody = (from: string, to: string) => ({
  range: { start: { date: googleDate(from) }, end: { date: googleDate(addDays(to, 1)) } },
  windowSizeDays: 1
})

/**
 * `from`..`to` in spans Google accepts (14 days at most; none when `from` is after `to`). The
 * engine's windows are one span; a notification may name a longer stretch.
 */
export const spansOf = (from: string, to: string): ReadonlyArray<{ readonly from: string; readonly to: string }> => {
  const spans: Array<{ from: string; to: string }> = []
  for (let start = from; start <= to; start = addDays(start, maxRangeDays)) {
    const end = addDays(start, maxRangeDays - 1)
    spans.push({ from: start, to: end < to ? end : to })
  }
  return spans
}

/** The day a raw point is for, when it can be read: the quarantine keys the day by it. */
const dateOfRaw = (raw: unknown): string | null => {
  try {
    const date = (raw as { civilStartTime?: { date?: { year: number; month: number; day: number } } })
      .civilStartTime?.date
    return date === undefined ? null : civilDate(date)
  } catch {
    return null
  }
}

/**
 * Puts the decoded points of each data type together by day. A day any of whose points was
 * quarantined is left out: stored without that point it would read as a zero the user never had.
 * Every other day Google returned a point for is kept, zeros included: Google writes true zeros
 * (a tracker worn but still) and leaves out the time it was not worn, so a still day keeps its
 * calories and sedentary time.
 */
export const assembleDays = (
  window: { readonly from: string; readonly to: string },
  pages: ReadonlyArray<{ readonly dataType: FitbitDataType; readonly items: ReadonlyArray<unknown> }>
): { readonly records: ReadonlyArray<DailyActivityRecord>; readonly quarantined: ReadonlyArray<QuarantinedRecord> } => {
  const days = new Map<string, FitbitDayValues>()
  const quarantined: Array<QuarantinedRecord> = []
  for (const { dataType, items } of pages) {
    const decoded = decodeEach({
      kind: "DailyActivity",
      schema: RollupPoints[dataType] as Schema.Schema<any, any>,
      items,
      normalise: (point, raw) => ({ ...valuesOf(dataType, point), raw }),
      // a day's key is its date (see Normalise.ts)
      idOf: dateOfRaw
    })
    for (const q of decoded.quarantined) {
      quarantined.push({ ...q, reason: `${dataType}: ${q.reason}`.slice(0, 300) })
    }
    for (const { date, raw, values } of decoded.records) {
      const day = days.get(date) ?? { raw: {} }
      Object.assign(day, values)
      day.raw[dataType] = raw
      days.set(date, day)
    }
  }
  const spoilt = new Set(quarantined.map((q) => q.providerRecordId))
  const records = [...days.entries()]
    .filter(([date]) => date >= window.from && date <= window.to && !spoilt.has(date))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, day]) => normaliseFitbitDay(date, day))
  return { records, quarantined }
}

// ---- raw points ----

/** The raw points' reply: `dataPoints` (decoded one by one) and the next page's token. */
const ListResponse = Schema.Struct({
  dataPoints: Schema.optional(Schema.Array(Schema.Unknown)),
  nextPageToken: Schema.optional(Schema.String)
})

/** Google's largest page of `sleep` and `exercise` points (and their default). */
export const sessionPageSize = 25

/** Whether the grant covers `scope`: its read-only form or the full one (`...sleep` covers `...sleep.readonly`). */
export const grants = (granted: string, scope: string): boolean => {
  const scopes = granted.split(/\s+/)
  return scopes.includes(scope) || scopes.includes(scope.replace(/\.readonly$/, ""))
}

/** The `dataPoints` URL of a list with its filter and page. */
export const listUrl = (
  apiBaseUrl: string,
  dataType: string,
  filter: string,
  pageToken: string | undefined
): string =>
  ProviderHttp.withQuery(`${apiBaseUrl}/v4/users/me/dataTypes/${dataType}/dataPoints`, [
    ["filter", filter],
    ...(dataType === "sleep" || dataType === "exercise" ? [["pageSize", String(sessionPageSize)] as const] : []),
    ...(pageToken === undefined ? [] : [["pageToken", pageToken] as const])
  ])

/** Every point of one data type whose civil day is in `from`..`to`, page after page. */
const listAll = (
  ctx: CallContext,
  input: FetchInput,
  listed: typeof listedDataTypes[number],
  from: string,
  to: string
) => {
  const read = ProviderHttp.readJson(ctx, ListResponse)
  return collectPages(ctx, (token) =>
    ProviderHttp.send(
      ctx,
      HttpClientRequest.get(
        listUrl(input.endpoints.apiBaseUrl, listed.dataType, listed.filter(from, addDays(to, 1)), token)
      )
        .pipe(HttpClientRequest.bearerToken(input.tokens.accessToken), HttpClientRequest.acceptJson),
      read
    ).pipe(Effect.map((reply) => ({
      records: reply.dataPoints ?? [],
      // an empty token means the last page
      next: reply.nextPageToken === undefined || reply.nextPageToken === "" ? undefined : reply.nextPageToken
    }))))
}

const decode = decodeNotification("Fitbit", FitbitNotification, "a GoogleHealthChange notification")

export const FitbitData: ProviderData = {
  windowDays: maxRangeDays,
  maxBackfillDays: 365,
  fetchWindow: (input, window) => {
    const ctx = fitbitContext("daily activity read", input)
    // Days are the user's civil days; a user east of UTC may already be a day ahead of us.
    const lastDate = addDays(utcDate(input.now.getTime()), 1)
    const to = window.to < lastDate ? window.to : lastDate
    const read = ProviderHttp.readJson(ctx, DailyRollUpResponse)
    const rollUp = (span: { readonly from: string; readonly to: string }) => (dataType: FitbitDataType) =>
      ProviderHttp.send(
        ctx,
        HttpClientRequest.post(
          `${input.endpoints.apiBaseUrl}/v4/users/me/dataTypes/${dataType}/dataPoints:dailyRollUp`
        ).pipe(
          HttpClientRequest.bearerToken(input.tokens.accessToken),
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyUnsafeJson(dailyRollUpBody(span.from, span.to))
        ),
        read
      ).pipe(Effect.map((reply) => ({ dataType, items: reply.rollupDataPoints ?? [] })))
    // only what the user granted; the activity scope is required, so daily activity is always read
    const listed = listedDataTypes.filter((l) => grants(input.tokens.scopes, l.scope))
    const list = (l: typeof listedDataTypes[number]) =>
      listAll(fitbitContext(`${l.dataType} read`, input), input, l, window.from, to).pipe(
        Effect.map((items) => [l.dataType, items] as const)
      )
    return checkWindow(ctx, window).pipe(
      Effect.zipRight(Effect.all({
        // One at a time: a 429 or a 410 should stop the window early.
        spans: Effect.forEach(spansOf(window.from, to), (span) => Effect.forEach(fitbitDataTypes, rollUp(span))),
        lists: window.from > to ? Effect.succeed([]) : Effect.forEach(listed, list)
      })),
      Effect.map(({ lists, spans }) => {
        const activity = assembleDays({ from: window.from, to }, spans.flat())
        const points = new Map<string, ReadonlyArray<unknown>>(lists)
        const of = (dataType: string) => points.get(dataType) ?? []
        const sleeps = assembleSleeps(of("sleep"))
        const workouts = assembleWorkouts(of("exercise"))
        const recoveries = assembleRecoveries(
          googleRecoveryDataTypes.map((dataType: GoogleRecoveryDataType) => ({ dataType, items: of(dataType) }))
        )
        const body = assembleBodyMeasurements(of("weight"), of("body-fat"))
        // the day's resting heart rate, when read, is the day's activity's too
        const resting = new Map(recoveries.records.map((r) => [r.date, r.restingHeartRate]))
        return batchOf({
          dailyActivity: activity.records.map((day): DailyActivityRecord => ({
            ...day,
            restingHeartRate: resting.get(day.date) ?? day.restingHeartRate
          })),
          sleep: sleeps.records,
          workouts: workouts.records,
          recovery: recoveries.records,
          bodyMeasurements: body.records,
          quarantined: [
            ...activity.quarantined,
            ...sleeps.quarantined,
            ...workouts.quarantined,
            ...recoveries.quarantined,
            ...body.quarantined
          ]
        })
      })
    )
  },
  // A notification only says which data changed and when: read those days again.
  notify: (_input, notification) =>
    Effect.map(decode(notification), (change) => ({ _tag: "Resync", window: { from: change.from, to: change.to } }))
}
