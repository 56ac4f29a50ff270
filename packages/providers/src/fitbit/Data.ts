/**
 * Fitbit data: the daily activity summary (`GET /1/user/-/activities/date/{date}.json`), one
 * request per local date, read in the metric unit system and normalised (`Normalise.ts`). Dates
 * Fitbit has no data for come back as zeros and are left out. After a backfill the user is
 * subscribed to activity notifications; a notification names a day to read again.
 *
 * Fitbit allows 150 requests per user per hour, so a full backfill (365 days) runs into the limit
 * more than once; the 429 carries `retryAfterSeconds` (the reset at the top of the hour) for the
 * engine to wait on.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { TokenInput } from "../Adapter.js"
import type { ProviderData } from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { addDays, batchOf, checkWindow, datesOf, decodeNotification, utcDate } from "../Shared.js"
import { FitbitDailySummary, fitbitDayHasData, normaliseFitbitDay } from "./Normalise.js"
import { FitbitNotification } from "./Webhooks.js"

const FitbitErrorBody = Schema.Struct({
  errors: Schema.NonEmptyArray(Schema.Struct({ errorType: Schema.String, message: Schema.optional(Schema.String) }))
})

/** Fitbit's `{"errors":[{"errorType","message"}]}`; `expired_token` / `invalid_token` on a 401. */
const readError = ProviderHttp.errorReader(FitbitErrorBody, (body) => ({
  code: body.errors[0].errorType,
  description: body.errors[0].message
}))

/** What we send as `Accept-Language`: any value but `en_US`/`en_GB` selects metric units. */
export const fitbitAcceptLanguage = "METRIC"

const context = (operation: string, input: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Fitbit",
  operation,
  readError,
  secrets: ProviderHttp.secretsOf(input)
})

/**
 * Subscribes our subscriber to the user's activity notifications. Idempotent: the same
 * subscription id again is fine, and a 409 (the user already has a subscription of ours under
 * another id) leaves that one in place.
 */
export const fitbitSubscribe = (input: TokenInput, subscriptionId: string) =>
  ProviderHttp.send(
    context("subscription", input),
    HttpClientRequest.post(
      `${input.endpoints.apiBaseUrl}/1/user/-/activities/apiSubscriptions/${
        ProviderHttp.encodeComponent(subscriptionId)
      }.json`
    ).pipe(
      HttpClientRequest.bearerToken(Redacted.value(input.tokens.accessToken)),
      HttpClientRequest.setHeader("content-length", "0")
    ),
    ProviderHttp.readNothing
  ).pipe(
    Effect.catchIf((error) => error.status === 409, () => Effect.void)
  )

const decode = decodeNotification("Fitbit", FitbitNotification, "a FitbitDay notification")

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
  },
  // Fitbit notifies only users we subscribed; the connection id is the subscription id, so
  // subscribing again is harmless.
  afterBackfill: (input) => fitbitSubscribe(input, input.connectionId),
  // A notification only says the day changed: read it again.
  notify: (_input, notification) =>
    Effect.map(decode(notification), (day) => ({ _tag: "Resync", window: { from: day.date, to: day.date } }))
}
