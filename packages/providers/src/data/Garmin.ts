/**
 * Garmin data: daily summaries ("dailies") pulled by upload time with OAuth 1.0a signed requests
 * (`GET /wellness-api/rest/dailies?uploadStartTimeInSeconds&uploadEndTimeInSeconds`, at most
 * 86400 s per request), read from push deliveries (`{"dailies":[...]}`) and from a ping's
 * `callbackURL`, and normalised into `DailyActivityRecord`s keyed by `summaryId`.
 *
 * Garmin re-sends a day's summary as the day goes on, always under the same `summaryId`; the
 * latest copy is the most complete, so of several copies the last one is kept.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ProviderError, TokenInput } from "../Adapter.js"
import type { CanonicalBatch, DailyActivityRecord, ProviderData } from "../Canonical.js"
import * as OAuth1 from "../internal/OAuth1.js"
import type { CallContext } from "../internal/ProviderHttp.js"
import * as ProviderHttp from "../internal/ProviderHttp.js"
import { batchOf, checkWindow, DateString, dayMs, hourMs, keepUnknownFields, lastByKey, utcMidnight } from "./Shared.js"

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

const Count = Schema.Number.pipe(Schema.nonNegative())

/**
 * A daily summary as Garmin sends it (push, pull and backfill alike). Units are in the names:
 * kilocalories, metres, seconds, bpm. Only the key fields are required: a summary of a day just
 * begun may leave the rest out.
 */
export const GarminDaily = Schema.Struct({
  userId: Schema.optional(Schema.String),
  summaryId: Schema.NonEmptyString,
  calendarDate: DateString,
  steps: Schema.optional(Count),
  activeKilocalories: Schema.optional(Count),
  bmrKilocalories: Schema.optional(Count),
  distanceInMeters: Schema.optional(Count),
  activeTimeInSeconds: Schema.optional(Count),
  moderateIntensityDurationInSeconds: Schema.optional(Count),
  vigorousIntensityDurationInSeconds: Schema.optional(Count),
  floorsClimbed: Schema.optional(Count),
  restingHeartRateInBeatsPerMinute: Schema.optional(Schema.NullOr(Schema.Number))
}).annotations(keepUnknownFields)
export type GarminDaily = typeof GarminDaily.Type

/**
 * A summary as a canonical record. Total energy is active + BMR. Garmin reports moderate and
 * vigorous durations and the total active time but no light or sedentary split: light minutes
 * are the active time left after moderate and vigorous (never below 0), and sedentary minutes
 * are reported as 0 because Garmin does not separate sedentary time from sleep.
 */
export const normaliseGarminDaily = (daily: GarminDaily): DailyActivityRecord => {
  const moderate = daily.moderateIntensityDurationInSeconds ?? 0
  const vigorous = daily.vigorousIntensityDurationInSeconds ?? 0
  const light = daily.activeTimeInSeconds === undefined
    ? 0
    : Math.max(0, daily.activeTimeInSeconds - moderate - vigorous)
  return {
    providerRecordId: daily.summaryId,
    date: daily.calendarDate,
    steps: daily.steps ?? 0,
    caloriesOut: (daily.activeKilocalories ?? 0) + (daily.bmrKilocalories ?? 0),
    activeCalories: daily.activeKilocalories ?? null,
    distanceMeters: daily.distanceInMeters ?? 0,
    lightActiveMinutes: light / 60,
    moderateActiveMinutes: moderate / 60,
    vigorousActiveMinutes: vigorous / 60,
    sedentaryMinutes: 0,
    floorsClimbed: daily.floorsClimbed ?? 0,
    restingHeartRate: daily.restingHeartRateInBeatsPerMinute ?? null,
    rawJson: rawJsonOf(daily)
  }
}

/**
 * The summary's JSON without `userAccessToken`, which OAuth 1.0a apps get in every item: a live
 * credential has no place in stored (and served) provider JSON.
 */
const rawJsonOf = (daily: GarminDaily): string => {
  const { userAccessToken: _token, ...rest } = daily as GarminDaily & { readonly userAccessToken?: unknown }
  return JSON.stringify(rest)
}

/** Normalises summaries, keeping the last copy of each `summaryId`. */
export const normaliseGarminDailies = (dailies: ReadonlyArray<GarminDaily>): ReadonlyArray<DailyActivityRecord> =>
  lastByKey(dailies.map(normaliseGarminDaily), (record) => record.providerRecordId)

/** A pushed summary names its user. */
const PushedDaily = Schema.Struct({ ...GarminDaily.fields, userId: Schema.String }).annotations(keepUnknownFields)
const PushEnvelope = Schema.Struct({ dailies: Schema.Array(Schema.Unknown) })
const decodePushEnvelope = Schema.decodeUnknownEither(PushEnvelope)
const decodePushItem = Schema.decodeUnknownEither(PushedDaily)

/**
 * The summaries of a push delivery (`{"dailies":[...]}`) with the Garmin user each belongs to.
 * Items that are not summaries (ping items, malformed ones) are left out, as is everything when
 * the body is not a dailies envelope; of several copies of a `summaryId` the last one is kept.
 */
export const garminPushDailies = (
  body: unknown
): ReadonlyArray<{ readonly userId: string; readonly record: DailyActivityRecord }> => {
  const envelope = decodePushEnvelope(body)
  if (Either.isLeft(envelope)) return []
  const out: Array<{ readonly userId: string; readonly record: DailyActivityRecord }> = []
  for (const item of envelope.right.dailies) {
    const decoded = decodePushItem(item)
    if (Either.isRight(decoded)) out.push({ userId: decoded.right.userId, record: normaliseGarminDaily(decoded.right) })
  }
  return lastByKey(out, (entry) => `${entry.userId}\u0000${entry.record.providerRecordId}`)
}

const PingItem = Schema.Struct({ userId: Schema.String, callbackURL: Schema.String })
const decodePingItem = Schema.decodeUnknownEither(PingItem)

/** The pull URLs of a ping delivery (`{"dailies":[{userId, callbackURL, ...}]}`), for `pullGarminCallback`. */
export const garminPingCallbacks = (
  body: unknown
): ReadonlyArray<{ readonly userId: string; readonly callbackUrl: string }> => {
  const envelope = decodePushEnvelope(body)
  if (Either.isLeft(envelope)) return []
  return envelope.right.dailies.flatMap((item) => {
    const decoded = decodePingItem(item)
    return Either.isRight(decoded) ? [{ userId: decoded.right.userId, callbackUrl: decoded.right.callbackURL }] : []
  })
}

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
  }
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
