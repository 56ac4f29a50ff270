/**
 * Garmin data: daily summaries pulled by upload time with OAuth 1.0a signed requests
 * (`GET /wellness-api/rest/dailies?uploadStartTimeInSeconds&uploadEndTimeInSeconds`, at most
 * 86400 s per request) and from a ping's `callbackURL`, normalised by `Normalise.ts`; and the
 * notifications: a push delivers the dailies themselves, a ping names a URL to pull.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ProviderError, TokenInput } from "../Adapter.js"
import type { CanonicalBatch, NotificationOutcome, ProviderData } from "../Canonical.js"
import * as OAuth1 from "../internal/OAuth1.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { batchOf, checkWindow, dayMs, decodeNotification, hourMs, utcMidnight } from "../Shared.js"
import { GarminDaily, garminPushDailies, normaliseGarminDailies } from "./Normalise.js"
import { GarminNotification } from "./Webhooks.js"

const readError = ProviderHttp.errorReader(
  Schema.Struct({ errorMessage: Schema.String }),
  (body) => ({ description: body.errorMessage })
)

const context = (operation: string, input: ProviderHttp.SecretsSource): CallContext => ({
  provider: "Garmin",
  operation,
  readError,
  secrets: ProviderHttp.secretsOf(input)
})

/** A pull reply: a bare JSON array of summaries. */
const PullReply = Schema.Array(GarminDaily)

const userToken = (ctx: CallContext, input: TokenInput) =>
  input.tokens.tokenSecret === null
    ? ProviderHttp.refuse(ctx, "the tokens have no token secret (not OAuth 1.0a tokens)")
    : Effect.succeed({ key: Redacted.value(input.tokens.accessToken), secret: input.tokens.tokenSecret })

/** A signed GET of `url` (its query is signed with the rest), read as a pull reply. */
const pull = (ctx: CallContext, input: TokenInput, url: string) =>
  Effect.flatMap(userToken(ctx, input), (token) =>
    ProviderHttp.send(
      ctx,
      HttpClientRequest.get(url).pipe(
        HttpClientRequest.setHeader(
          "Authorization",
          OAuth1.authorizationHeader({ method: "GET", url, credentials: input.credentials, token })
        ),
        HttpClientRequest.acceptJson
      ),
      ProviderHttp.readJson(ctx, PullReply)
    ))

const dailiesPath = "/wellness-api/rest/dailies"

/** Garmin's limit on one pull's upload window. */
export const garminMaxPullSeconds = 86_400

/**
 * The upload windows (Unix seconds, start inclusive, end exclusive) that cover the local dates
 * of `window`: from the earliest local midnight of `from` (UTC+14) to a day after the latest
 * local midnight ending `to` (UTC-12), since a day's final upload lands after its midnight and
 * devices sync late; capped at `now`, cut into windows of at most 86400 s.
 */
export const garminUploadWindows = (
  window: { readonly from: string; readonly to: string },
  now: Date
): ReadonlyArray<{ readonly start: number; readonly end: number }> => {
  const start = Math.floor((utcMidnight(window.from) - 14 * hourMs) / 1000)
  const end = Math.min(
    Math.floor((utcMidnight(window.to) + dayMs + 12 * hourMs + dayMs) / 1000),
    Math.floor(now.getTime() / 1000)
  )
  const out: Array<{ start: number; end: number }> = []
  for (let s = start; s < end; s += garminMaxPullSeconds) {
    out.push({ start: s, end: Math.min(s + garminMaxPullSeconds, end) })
  }
  return out
}

const decode = decodeNotification("Garmin", GarminNotification, "a GarminPush or GarminPing notification")

export const GarminData: ProviderData = {
  windowDays: 7,
  // Pulls reach back by upload time; for older history Garmin's own backfill (30 days a request,
  // delivered by push) is the documented path.
  maxBackfillDays: 30,
  fetchWindow: (input, window) => {
    const ctx = context("dailies pull", input)
    const url = (w: { readonly start: number; readonly end: number }) =>
      ProviderHttp.withQuery(`${input.endpoints.apiBaseUrl}${dailiesPath}`, [
        ["uploadStartTimeInSeconds", String(w.start)],
        ["uploadEndTimeInSeconds", String(w.end)]
      ])
    return checkWindow(ctx, window).pipe(
      // In upload order, so that the last copy of a summary is its latest upload.
      Effect.zipRight(Effect.forEach(garminUploadWindows(window, input.now), (w) => pull(ctx, input, url(w)))),
      Effect.map((replies) => batchOf({ dailyActivity: normaliseGarminDailies(replies.flat()) }))
    )
  },
  notify: (input, notification) =>
    Effect.flatMap(decode(notification), (decoded): Effect.Effect<
      NotificationOutcome,
      ProviderError,
      HttpClient.HttpClient
    > =>
      decoded._tag === "GarminPush"
        ? Effect.succeed({
          _tag: "Store",
          batch: batchOf({ dailyActivity: garminPushDailies(decoded.dailiesJson).map((pushed) => pushed.record) })
        })
        : Effect.map(pullGarminCallback(input, decoded.callbackUrl), (batch) => ({ _tag: "Store", batch })))
}

/**
 * Pulls what a ping announced. The callback's path and query are sent as they are (for OAuth 2.0
 * apps the query carries Garmin's pull token), signed; its origin is replaced by the configured
 * API base, so a forged ping (Garmin pushes are unsigned) cannot make us send signed requests to
 * another host. Only dailies callbacks are accepted.
 */
export const pullGarminCallback = (
  input: TokenInput,
  callbackUrl: string
): Effect.Effect<CanonicalBatch, ProviderError, HttpClient.HttpClient> => {
  const ctx = context("dailies callback pull", input)
  let parsed: URL
  try {
    parsed = new URL(callbackUrl)
  } catch {
    return ProviderHttp.refuse(ctx, "the callback URL is not a URL")
  }
  const at = parsed.pathname.indexOf(dailiesPath)
  if (at === -1 || parsed.pathname.slice(at) !== dailiesPath) {
    return ProviderHttp.refuse(ctx, `the callback URL is not a dailies pull (${dailiesPath})`)
  }
  return pull(ctx, input, `${input.endpoints.apiBaseUrl}${dailiesPath}${parsed.search}`).pipe(
    Effect.map((dailies) => batchOf({ dailyActivity: normaliseGarminDailies(dailies) }))
  )
}
