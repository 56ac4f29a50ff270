/**
 * Garmin data: daily summaries, read the way the connection's tokens allow, and the
 * notifications Garmin sends.
 *
 * - OAuth 1.0a connections pull by upload time, signed
 *   (`GET /wellness-api/rest/dailies?uploadStartTimeInSeconds&uploadEndTimeInSeconds`, at most
 *   86,400 s a request).
 * - OAuth 2.0 connections may not pull on their own (Garmin answers `InvalidPullTokenException`):
 *   a window is asked for with a backfill request (`GET /wellness-api/rest/backfill/dailies?
 *   summaryStartTimeInSeconds&summaryEndTimeInSeconds`, at most 90 days each, Health API v1.2.2),
 *   which Garmin answers 202 and fulfils later by push or ping. A duplicate request (409) is
 *   already being fulfilled.
 * - A ping's `callbackURL` is pulled as it is (for OAuth 2.0 apps its query carries the `token=`
 *   pull token), with the connection's tokens.
 *
 * What the user has not permitted is skipped, not retried: with the connection's permissions
 * known, a summary type without `HEALTH_EXPORT` (or a backfill without `HISTORICAL_DATA_EXPORT`) is
 * not asked for; and Garmin's 412 for a summary type not permitted ends that read. Either way the
 * window yields a quarantine entry saying why, so the operator sees it. A 403 means the grant is
 * gone (`access_revoked`).
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ProviderError, TokenInput } from "../Adapter.js"
import type {
  CanonicalBatch,
  DateWindow,
  FetchInput,
  NotificationOutcome,
  ProviderData,
  QuarantinedRecord
} from "../Canonical.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { batchOf, checkWindow, dayMs, decodeNotification, hourMs, utcMidnight } from "../Shared.js"
import { context, healthExport, historicalDataExport, permits, sendUser, userRequest } from "./Auth.js"
import { garminPushDailies, normaliseGarminDailies } from "./Normalise.js"
import { GarminNotification } from "./Webhooks.js"

/** A pull reply: a bare JSON array of summaries, each read on its own. */
const PullReply = Schema.Array(Schema.Unknown)

const dailiesPath = "/wellness-api/rest/dailies"
const backfillPath = "/wellness-api/rest/backfill/dailies"

/** Garmin's limit on one pull's upload window. */
export const garminMaxPullSeconds = 86_400
/** Health API v1.2.2's limit on one backfill request. */
export const garminMaxBackfillSeconds = 90 * 86_400

/** What the user has not permitted, said once per connection in its quarantine (same JSON, same entry). */
const notPermitted = (why: string, detail: Record<string, unknown>): QuarantinedRecord => ({
  kind: "DailyActivity",
  providerRecordId: null,
  reason: `Garmin dailies skipped: ${why}`,
  rawJson: JSON.stringify({ summaryType: "dailies", ...detail })
})

const skipped = (note: QuarantinedRecord): CanonicalBatch => batchOf({ quarantined: [note] })

/** A 412 from Garmin (summary type not permitted) as a skipped read; anything else fails. */
const unlessNotPermitted = <R>(effect: Effect.Effect<CanonicalBatch, ProviderError, R>) =>
  Effect.catchIf(
    effect,
    (error) => error.status === 412,
    (error) =>
      Effect.succeed(skipped(notPermitted("the user has not permitted this summary type (HTTP 412)", {
        status: 412,
        error: error.message
      })))
  )

const readDailies = (input: FetchInput, items: ReadonlyArray<unknown>): CanonicalBatch => {
  const { quarantined, records } = normaliseGarminDailies(items, input.providerUserId)
  return batchOf({ dailyActivity: records, quarantined })
}

/** A GET with the connection's tokens, read as a pull reply. */
const pull = (ctx: CallContext, input: TokenInput, url: string) =>
  sendUser(ctx, HttpClientRequest.acceptJson(userRequest("GET", url, input)), ProviderHttp.readJson(ctx, PullReply))

/**
 * The upload windows (Unix seconds, start inclusive, end exclusive) that cover the local dates
 * of `window`: from the earliest local midnight of `from` (UTC+14) to a day after the latest
 * local midnight ending `to` (UTC-12), since a day's final upload lands after its midnight and
 * devices sync late; capped at `now`, cut into windows of at most 86400 s.
 */
export const garminUploadWindows = (
  window: DateWindow,
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

/**
 * The summary-time ranges (Unix seconds) of backfill requests covering the local dates of
 * `window`: every day that starts there, whatever the user's offset (UTC-12 to UTC+14); cut into
 * requests of at most 90 days. They end at the latest at today's UTC midnight: what is uploaded
 * today reaches us by push or ping, and the periodic re-read of recent days then asks Garmin the
 * same range all day (a 409 after the first), not a new backfill every hour.
 */
export const garminBackfillRanges = (
  window: DateWindow,
  now: Date
): ReadonlyArray<{ readonly start: number; readonly end: number }> => {
  const start = Math.floor((utcMidnight(window.from) - 14 * hourMs) / 1000)
  const todayStart = Math.floor(now.getTime() / dayMs) * dayMs
  const end = Math.min(Math.floor((utcMidnight(window.to) + 12 * hourMs) / 1000) + 1, todayStart / 1000)
  const out: Array<{ start: number; end: number }> = []
  for (let s = start; s < end; s += garminMaxBackfillSeconds) {
    out.push({ start: s, end: Math.min(s + garminMaxBackfillSeconds, end) })
  }
  return out
}

/** OAuth 1.0a: the signed pulls of the window's upload times, in upload order. */
const pullWindow = (input: FetchInput, window: DateWindow) => {
  const ctx = context("dailies pull", input)
  const url = (w: { readonly start: number; readonly end: number }) =>
    ProviderHttp.withQuery(`${input.endpoints.apiBaseUrl}${dailiesPath}`, [
      ["uploadStartTimeInSeconds", String(w.start)],
      ["uploadEndTimeInSeconds", String(w.end)]
    ])
  return Effect.forEach(garminUploadWindows(window, input.now), (w) => pull(ctx, input, url(w))).pipe(
    // In upload order, so that of two equally complete copies of a day the later one wins.
    Effect.map((replies) => readDailies(input, replies.flat())),
    unlessNotPermitted
  )
}

/** OAuth 2.0: backfill requests for the window; the summaries arrive later by push or ping. */
const requestBackfill = (input: FetchInput, window: DateWindow) => {
  if (!permits(input.tokens.scopes, historicalDataExport)) {
    return Effect.succeed(
      skipped(notPermitted("the user has not granted HISTORICAL_DATA_EXPORT, which backfill needs", {
        permissions: input.tokens.scopes
      }))
    )
  }
  const ctx = context("dailies backfill request", input)
  const request = (range: { readonly start: number; readonly end: number }) =>
    sendUser(
      ctx,
      userRequest(
        "GET",
        ProviderHttp.withQuery(`${input.endpoints.apiBaseUrl}${backfillPath}`, [
          ["summaryStartTimeInSeconds", String(range.start)],
          ["summaryEndTimeInSeconds", String(range.end)]
        ]),
        input
      ),
      ProviderHttp.readNothing
    ).pipe(
      // 409: the same request was made before and is being (or was) fulfilled.
      Effect.catchIf((error) => error.status === 409, () => Effect.void)
    )
  return Effect.forEach(garminBackfillRanges(window, input.now), request, { discard: true }).pipe(
    Effect.as(batchOf({})),
    unlessNotPermitted
  )
}

/** Nothing is read of a summary type the user withdrew. */
const withHealthExport = <R>(
  input: FetchInput,
  read: Effect.Effect<CanonicalBatch, ProviderError, R>
): Effect.Effect<CanonicalBatch, ProviderError, R> =>
  permits(input.tokens.scopes, healthExport)
    ? read
    : Effect.succeed(
      skipped(notPermitted("the user has not granted HEALTH_EXPORT", { permissions: input.tokens.scopes }))
    )

const decode = decodeNotification(
  "Garmin",
  GarminNotification,
  "a GarminPush, GarminPing or GarminPermissions notification"
)

export const GarminData: ProviderData = {
  windowDays: 7,
  // Health API v1.2.2 backfills up to 90 days a request; older history is not asked for.
  maxBackfillDays: 90,
  fetchWindow: (input, window) =>
    checkWindow(context("dailies read", input), window).pipe(
      Effect.zipRight(withHealthExport(
        input,
        input.tokens.tokenSecret === null ? requestBackfill(input, window) : pullWindow(input, window)
      ))
    ),
  notify: (input, notification) =>
    Effect.flatMap(decode(notification), (decoded): Effect.Effect<
      NotificationOutcome,
      ProviderError,
      HttpClient.HttpClient
    > => {
      switch (decoded._tag) {
        case "GarminPermissions":
          return Effect.succeed({ _tag: "Scopes", scopes: decoded.permissions.join(" ") })
        case "GarminPush":
          return Effect.map(
            withHealthExport(
              input,
              Effect.succeed(readDailies(input, garminPushDailies(decoded.dailiesJson, input.providerUserId)))
            ),
            (batch) => ({ _tag: "Store", batch })
          )
        case "GarminPing":
          return Effect.map(
            withHealthExport(input, pullGarminCallback(input, decoded.callbackUrl)),
            (batch) => ({ _tag: "Store", batch })
          )
      }
    })
}

/**
 * Pulls what a ping announced. The callback's path and query are sent as they are (for OAuth 2.0
 * apps the query carries Garmin's pull token), with the connection's tokens; its origin is
 * replaced by the configured API base, so a forged ping (Garmin pushes are unsigned) cannot make
 * us send credentials to another host. Only dailies callbacks are accepted.
 */
export const pullGarminCallback = (
  input: FetchInput,
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
    Effect.map((items) => readDailies(input, items)),
    unlessNotPermitted
  )
}
