/**
 * Garmin data: the summary types of `Summaries.ts` (dailies, sleeps, activities, HRV, pulse ox,
 * body compositions), read the way the connection's tokens allow, and the notifications Garmin
 * sends.
 *
 * - OAuth 1.0a connections pull each type by upload time, signed
 *   (`GET /wellness-api/rest/{type}?uploadStartTimeInSeconds&uploadEndTimeInSeconds`, at most
 *   86,400 s a request).
 * - OAuth 2.0 connections may not pull on their own (Garmin answers `InvalidPullTokenException`):
 *   a window is asked for with a backfill request per type (`GET /wellness-api/rest/backfill/{type}?
 *   summaryStartTimeInSeconds&summaryEndTimeInSeconds`, at most 90 days each for the Health API's
 *   types (v1.2.2) and 30 for activities (Activity API v1.2.3)), which Garmin answers 202 and fulfils
 *   later by push or ping. A duplicate request (409) is already being fulfilled.
 * - A ping's `callbackURL` is pulled as it is (for OAuth 2.0 apps its query carries the `token=`
 *   pull token), with the connection's tokens; only the paths of the types read are accepted.
 *
 * What the user has not permitted is skipped, not retried, type by type: with the connection's
 * permissions known, a type without its permission (`HEALTH_EXPORT`, or `ACTIVITY_EXPORT` for
 * activities), or a backfill without `HISTORICAL_DATA_EXPORT`, is not asked for; and Garmin's 412
 * for a type not permitted ends that type's read, not the others'. Either way the window yields a
 * quarantine entry saying why, so the operator sees it. A 403 means the grant is gone
 * (`access_revoked`).
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
import { context, historicalDataExport, permits, sendUser, userRequest } from "./Auth.js"
import type { GarminSummarySpec } from "./Summaries.js"
import {
  garminPushSummaries,
  garminSummaries,
  garminSummaryOfPath,
  garminSummaryTypes,
  joinBatches
} from "./Summaries.js"
import { GarminNotification } from "./Webhooks.js"

/** A pull reply: a bare JSON array of summaries, each read on its own. */
const PullReply = Schema.Array(Schema.Unknown)

/** Garmin's limit on one pull's upload window. */
export const garminMaxPullSeconds = 86_400
/** Health API v1.2.2's limit on one backfill request. */
export const garminMaxBackfillSeconds = 90 * 86_400

/**
 * What the user has not permitted of a summary type, said once per connection and type in its
 * quarantine (same JSON, same entry).
 */
const notPermitted = (spec: GarminSummarySpec, why: string, detail: Record<string, unknown>): QuarantinedRecord => ({
  kind: spec.kind,
  providerRecordId: null,
  reason: `Garmin ${spec.type} skipped: ${why}`,
  rawJson: JSON.stringify({ summaryType: spec.type, ...detail })
})

const skipped = (note: QuarantinedRecord): CanonicalBatch => batchOf({ quarantined: [note] })

/** A 412 from Garmin (summary type not permitted) as a skipped read of that type; anything else fails. */
const unlessNotPermitted = (spec: GarminSummarySpec) => <R>(effect: Effect.Effect<CanonicalBatch, ProviderError, R>) =>
  Effect.catchIf(
    effect,
    (error) => error.status === 412,
    (error) =>
      Effect.succeed(skipped(notPermitted(spec, "the user has not permitted this summary type (HTTP 412)", {
        status: 412,
        error: error.message
      })))
  )

/** A type's read, unless the connection's known permissions leave it out. */
const ifPermitted = <R>(
  input: FetchInput,
  spec: GarminSummarySpec,
  read: Effect.Effect<CanonicalBatch, ProviderError, R>
): Effect.Effect<CanonicalBatch, ProviderError, R> =>
  permits(input.tokens.scopes, spec.permission)
    ? read
    : Effect.succeed(
      skipped(notPermitted(spec, `the user has not granted ${spec.permission}`, { permissions: input.tokens.scopes }))
    )

const readSummaries = (input: FetchInput, spec: GarminSummarySpec, items: ReadonlyArray<unknown>): CanonicalBatch =>
  spec.read(items, input.providerUserId)

/** Each summary type read in turn, as one batch. */
const eachType = <R>(read: (spec: GarminSummarySpec) => Effect.Effect<CanonicalBatch, ProviderError, R>) =>
  Effect.map(Effect.forEach(garminSummaryTypes, (type) => read(garminSummaries[type])), joinBatches)

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
 * requests of at most `maxSeconds` (90 days unless said). They end at the latest at today's UTC
 * midnight: what is uploaded today reaches us by push or ping, and the periodic re-read of recent
 * days then asks Garmin the same range all day (a 409 after the first), not a new backfill every
 * hour. Summaries are asked for by their start: a night's sleep, filed under the morning it ends,
 * comes with the window holding the evening it starts.
 */
export const garminBackfillRanges = (
  window: DateWindow,
  now: Date,
  maxSeconds: number = garminMaxBackfillSeconds
): ReadonlyArray<{ readonly start: number; readonly end: number }> => {
  const start = Math.floor((utcMidnight(window.from) - 14 * hourMs) / 1000)
  const todayStart = Math.floor(now.getTime() / dayMs) * dayMs
  const end = Math.min(Math.floor((utcMidnight(window.to) + 12 * hourMs) / 1000) + 1, todayStart / 1000)
  const out: Array<{ start: number; end: number }> = []
  for (let s = start; s < end; s += maxSeconds) {
    out.push({ start: s, end: Math.min(s + maxSeconds, end) })
  }
  return out
}

/** OAuth 1.0a: the signed pulls of the window's upload times, type by type, in upload order. */
const pullWindow = (input: FetchInput, window: DateWindow) =>
  eachType((spec) => {
    const ctx = context(`${spec.type} pull`, input)
    const url = (w: { readonly start: number; readonly end: number }) =>
      ProviderHttp.withQuery(`${input.endpoints.apiBaseUrl}${spec.path}`, [
        ["uploadStartTimeInSeconds", String(w.start)],
        ["uploadEndTimeInSeconds", String(w.end)]
      ])
    return ifPermitted(
      input,
      spec,
      Effect.forEach(garminUploadWindows(window, input.now), (w) => pull(ctx, input, url(w))).pipe(
        // In upload order, so that of two equally complete copies of a summary the later one wins.
        Effect.map((replies) => readSummaries(input, spec, replies.flat())),
        unlessNotPermitted(spec)
      )
    )
  })

/** OAuth 2.0: backfill requests for the window, type by type; the summaries arrive later by push or ping. */
const requestBackfill = (input: FetchInput, window: DateWindow) =>
  eachType((spec) => {
    if (!permits(input.tokens.scopes, historicalDataExport)) {
      return ifPermitted(
        input,
        spec,
        Effect.succeed(
          skipped(notPermitted(spec, "the user has not granted HISTORICAL_DATA_EXPORT, which backfill needs", {
            permissions: input.tokens.scopes
          }))
        )
      )
    }
    const ctx = context(`${spec.type} backfill request`, input)
    const request = (range: { readonly start: number; readonly end: number }) =>
      sendUser(
        ctx,
        userRequest(
          "GET",
          ProviderHttp.withQuery(`${input.endpoints.apiBaseUrl}${spec.backfillPath}`, [
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
    return ifPermitted(
      input,
      spec,
      Effect.forEach(garminBackfillRanges(window, input.now, spec.maxBackfillSeconds), request, { discard: true })
        .pipe(Effect.as(batchOf({})), unlessNotPermitted(spec))
    )
  })

const decode = decodeNotification(
  "Garmin",
  GarminNotification,
  "a GarminPush, GarminPing or GarminPermissions notification"
)

/** The pushed summaries of a user, each type read unless the user has withdrawn it. */
const readPush = (input: FetchInput, body: unknown): CanonicalBatch => {
  const pushed = garminPushSummaries(body, input.providerUserId)
  return joinBatches(garminSummaryTypes.flatMap((type) => {
    const items = pushed[type]
    if (items === undefined) return []
    const spec = garminSummaries[type]
    return [
      permits(input.tokens.scopes, spec.permission)
        ? readSummaries(input, spec, items)
        : skipped(
          notPermitted(spec, `the user has not granted ${spec.permission}`, { permissions: input.tokens.scopes })
        )
    ]
  }))
}

export const GarminData: ProviderData = {
  windowDays: 7,
  // Health API v1.2.2 backfills up to 90 days a request; older history is not asked for.
  maxBackfillDays: 90,
  fetchWindow: (input, window) =>
    checkWindow(context("summaries read", input), window).pipe(
      Effect.zipRight(input.tokens.tokenSecret === null ? requestBackfill(input, window) : pullWindow(input, window))
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
          return Effect.succeed({
            _tag: "Store",
            batch: readPush(input, "summariesJson" in decoded ? decoded.summariesJson : decoded.dailiesJson)
          })
        case "GarminPing":
          return Effect.map(pullGarminCallback(input, decoded.callbackUrl), (batch) => ({ _tag: "Store", batch }))
      }
    })
}

/**
 * Pulls what a ping announced. The callback's path and query are sent as they are (for OAuth 2.0
 * apps the query carries Garmin's pull token), with the connection's tokens; its origin is
 * replaced by the configured API base, so a forged ping (Garmin pushes are unsigned) cannot make
 * us send credentials to another host. Only the pull paths of the summary types read are accepted;
 * a type the user has withdrawn is not pulled.
 */
export const pullGarminCallback = (
  input: FetchInput,
  callbackUrl: string
): Effect.Effect<CanonicalBatch, ProviderError, HttpClient.HttpClient> => {
  const ctx = context("callback pull", input)
  let parsed: URL
  try {
    parsed = new URL(callbackUrl)
  } catch {
    return ProviderHttp.refuse(ctx, "the callback URL is not a URL")
  }
  const found = garminSummaryOfPath(parsed.pathname)
  if (found === undefined) {
    return ProviderHttp.refuse(
      ctx,
      `the callback URL is not a summary pull (${garminSummaryTypes.map((t) => garminSummaries[t].path).join(", ")})`
    )
  }
  const { path, spec } = found
  return ifPermitted(
    input,
    spec,
    pull(context(`${spec.type} callback pull`, input), input, `${input.endpoints.apiBaseUrl}${path}${parsed.search}`)
      .pipe(
        Effect.map((items) => readSummaries(input, spec, items)),
        unlessNotPermitted(spec)
      )
  )
}
