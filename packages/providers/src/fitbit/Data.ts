/**
 * Fitbit data through the Google Health API: daily activity from
 * `POST /v4/users/me/dataTypes/{dataType}/dataPoints:dailyRollUp`, one request per data type
 * and window, rolled up per civil day of the user's own clock (`windowSizeDays: 1`), so no time
 * zone is needed. The range is closed-open in civil time; Google allows 14 days for
 * `total-calories` and `active-minutes` (90 for the others), so a window is 14 days. 14 points
 * are far below the default page of 1,440, and the reply has no page token.
 *
 * Every point is decoded on its own: a point that does not read is quarantined with its raw JSON,
 * and its day is left out (the other points of the window are stored). Notifications only say
 * which data changed and when: they become a re-read of those days.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { DailyActivityRecord, ProviderData, QuarantinedRecord } from "../Canonical.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { addDays, batchOf, checkWindow, decodeEach, decodeNotification, utcDate } from "../Shared.js"
import { fitbitContext } from "./Adapter.js"
import type { FitbitDataType, FitbitDayValues } from "./Normalise.js"
import {
  civilDate,
  fitbitDataTypes,
  fitbitDayHasData,
  normaliseFitbitDay,
  RollupPoints,
  valuesOf
} from "./Normalise.js"
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
    .filter(fitbitDayHasData)
  return { records, quarantined }
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
    return checkWindow(ctx, window).pipe(
      Effect.zipRight(
        // One at a time: a 429 or a 410 should stop the window early.
        Effect.forEach(spansOf(window.from, to), (span) => Effect.forEach(fitbitDataTypes, rollUp(span)))
      ),
      Effect.map((spans) => {
        const { quarantined, records } = assembleDays({ from: window.from, to }, spans.flat())
        return batchOf({ dailyActivity: records, quarantined })
      })
    )
  },
  // A notification only says which data changed and when: read those days again.
  notify: (_input, notification) =>
    Effect.map(decode(notification), (change) => ({ _tag: "Resync", window: { from: change.from, to: change.to } }))
}
