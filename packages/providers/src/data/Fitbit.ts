/**
 * Fitbit data: the daily activity summary (`GET /1/user/-/activities/date/{date}.json`), one
 * request per local date, read in the metric unit system and normalised into a
 * `DailyActivityRecord` keyed `<providerUserId>:<date>`. Dates Fitbit has no data for come back
 * as zeros and are left out.
 *
 * Fitbit allows 150 requests per user per hour, so a full backfill (365 days) runs into the limit
 * more than once; the 429 carries `retryAfterSeconds` (the reset at the top of the hour) for the
 * engine to wait on.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { DailyActivityRecord, ProviderData } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { addDays, batchOf, checkWindow, datesOf, keepUnknownFields, utcDate } from "./Shared.js"

const FitbitErrorBody = Schema.Struct({
  errors: Schema.NonEmptyArray(Schema.Struct({ errorType: Schema.String, message: Schema.optional(Schema.String) }))
})

/** Fitbit's `{"errors":[{"errorType","message"}]}`; `expired_token` / `invalid_token` on a 401. */
const readError = ProviderHttp.errorReader(FitbitErrorBody, (body) => ({
  code: body.errors[0].errorType,
  description: body.errors[0].message
}))

/**
 * The unit systems `Accept-Language` selects: `en_US` imperial (miles), `en_GB` kilometres (but
 * stone), anything else metric. We always ask for metric.
 */
export type FitbitUnitSystem = "en_US" | "en_GB" | "METRIC"

/** What we send as `Accept-Language`: any value but `en_US`/`en_GB` selects metric units. */
export const fitbitAcceptLanguage = "METRIC"

const NonNegative = Schema.Number.pipe(Schema.nonNegative())

/** The part of the daily summary we read; everything else is kept for `rawJson`. */
export const FitbitDailySummary = Schema.Struct({
  summary: Schema.Struct({
    steps: NonNegative,
    caloriesOut: NonNegative,
    activityCalories: Schema.optional(Schema.Number),
    distances: Schema.optional(Schema.Array(Schema.Struct({ activity: Schema.String, distance: Schema.Number }))),
    lightlyActiveMinutes: NonNegative,
    fairlyActiveMinutes: NonNegative,
    veryActiveMinutes: NonNegative,
    sedentaryMinutes: NonNegative,
    // only devices with an altimeter report floors
    floors: Schema.optional(NonNegative),
    // only with heart-rate data
    restingHeartRate: Schema.optional(Schema.NullOr(Schema.Number))
  }).annotations(keepUnknownFields)
}).annotations(keepUnknownFields)
export type FitbitDailySummary = typeof FitbitDailySummary.Type

const metersPer = { METRIC: 1000, en_GB: 1000, en_US: 1609.344 } as const

/** A Fitbit distance (km, or miles for `en_US`) in metres, to the millimetre. */
export const fitbitDistanceMeters = (distance: number, units: FitbitUnitSystem = "METRIC"): number =>
  Math.round(distance * metersPer[units] * 1000) / 1000

/** One day's summary as a canonical record; `date` is the date in the request path. */
export const normaliseFitbitDay = (
  providerUserId: string,
  date: string,
  day: FitbitDailySummary,
  units: FitbitUnitSystem = "METRIC"
): DailyActivityRecord => {
  const s = day.summary
  const total = s.distances?.find((d) => d.activity === "total")
  return {
    providerRecordId: `${providerUserId}:${date}`,
    date,
    steps: s.steps,
    caloriesOut: s.caloriesOut,
    activeCalories: s.activityCalories ?? null,
    distanceMeters: total === undefined ? 0 : fitbitDistanceMeters(total.distance, units),
    lightActiveMinutes: s.lightlyActiveMinutes,
    moderateActiveMinutes: s.fairlyActiveMinutes,
    vigorousActiveMinutes: s.veryActiveMinutes,
    sedentaryMinutes: s.sedentaryMinutes,
    floorsClimbed: s.floors ?? 0,
    restingHeartRate: s.restingHeartRate ?? null,
    rawJson: JSON.stringify(day)
  }
}

/**
 * Whether a day holds anything the tracker recorded. Fitbit answers every date, and a date with
 * no data (before the user had a device, a day it was not worn, a day yet to come) as all zeros;
 * stored, such a day would read as a day spent still, so it is left out.
 */
export const fitbitDayHasData = (record: DailyActivityRecord): boolean =>
  record.steps > 0 || record.distanceMeters > 0 || record.lightActiveMinutes > 0 ||
  record.moderateActiveMinutes > 0 || record.vigorousActiveMinutes > 0 || record.restingHeartRate !== null

const context = (operation: string, input: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Fitbit",
  operation,
  readError,
  secrets: ProviderHttp.secretsOf(input)
})

export const FitbitData: ProviderData = {
  windowDays: 7,
  maxBackfillDays: 365,
  fetchWindow: (input, window) => {
    const ctx = context("daily activity read", input)
    // Dates are the user's local days; a user east of UTC may already be a day ahead of us.
    const lastDate = addDays(utcDate(input.now.getTime()), 1)
    const read = ProviderHttp.readJson(ctx, FitbitDailySummary)
    const fetchDay = (date: string) =>
      ProviderHttp.send(
        ctx,
        HttpClientRequest.get(`${input.endpoints.apiBaseUrl}/1/user/-/activities/date/${date}.json`).pipe(
          HttpClientRequest.bearerToken(input.tokens.accessToken),
          HttpClientRequest.acceptJson,
          HttpClientRequest.setHeader("Accept-Language", fitbitAcceptLanguage)
        ),
        read
      ).pipe(Effect.map((day) => normaliseFitbitDay(input.providerUserId, date, day)))
    return checkWindow(ctx, window).pipe(
      Effect.zipRight(
        // One at a time: the hourly budget is per user, and a 429 should stop the window early.
        Effect.forEach(datesOf(window).filter((date) => date <= lastDate), fetchDay)
      ),
      Effect.map((days) => batchOf({ dailyActivity: days.filter(fitbitDayHasData) }))
    )
  }
}
