/**
 * Google Health API notifications in. A subscriber (the project's, registered by the operator
 * with `projects.subscribers.create`) is verified by two POSTs of `{"type":"verification"}`: with
 * the `Authorization` value the operator set as `endpointAuthorization.secret` (answer 201), and
 * without it (answer 401). Every notification carries the same `Authorization` value, which is
 * what is checked here (the app's webhook verification code holds it). The body is
 * `{"data": {healthUserId, dataType, operation, intervals}}` (or a list of such): it says which
 * data of which user changed and when, never the data, so each becomes a re-read of those days.
 *
 * When the app has signing keys (`WebhookApp.signingKeys`: Google's published Tink keyset, or the
 * sandbox simulator's), a notification must also carry a good `X-HEALTHAPI-SIGNATURE` (ECDSA
 * P-256 over the exact body, Signature.ts), else it is refused with 401; the verification
 * challenge is checked by its Authorization value alone. Without keys the signature is not checked.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { accepted, rejected, sameSecret } from "../internal/Webhooks.js"
import type { WebhookNotification, WebhookReceiver } from "../Plugin.js"
import { addDays, DateString, parseInstant, utcDate } from "../Shared.js"
import { fitbitDataTypes } from "./Normalise.js"
import { listedDataTypes } from "./Points.js"
import { googleSignatureHeaders, keysOfKeyset, verifyGoogleSignature } from "./Signature.js"

/** What a notification asks for: read these civil days of the user again. */
export const FitbitNotification = Schema.TaggedStruct("GoogleHealthChange", {
  dataType: Schema.String,
  from: DateString,
  to: DateString
})
export type FitbitNotification = typeof FitbitNotification.Type

const Interval = Schema.Struct({ startTime: Schema.String, endTime: Schema.String })

/** One notification as Google sends it. */
export const GoogleHealthNotification = Schema.Struct({
  data: Schema.Struct({
    version: Schema.optional(Schema.String),
    clientProvidedSubscriptionName: Schema.optional(Schema.String),
    healthUserId: Schema.NonEmptyString,
    dataType: Schema.NonEmptyString,
    operation: Schema.optional(Schema.String),
    intervals: Schema.optional(Schema.Array(Schema.Struct({
      physicalTimeInterval: Schema.optional(Interval),
      civilIso8601TimeInterval: Schema.optional(Interval)
    })))
  })
})
export type GoogleHealthNotification = typeof GoogleHealthNotification.Type

const Verification = Schema.Struct({ type: Schema.Literal("verification") })

const decodeBody = Schema.decodeUnknownEither(Schema.parseJson(Schema.Union(
  Verification,
  GoogleHealthNotification,
  Schema.Array(GoogleHealthNotification)
)))

const civilDatePattern = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?$/

/** The civil days an interval touches; its end is exclusive, so an end at midnight is the day before. */
const civilDays = (interval: typeof Interval.Type): { from: string; to: string } | undefined => {
  const start = civilDatePattern.exec(interval.startTime)
  const end = civilDatePattern.exec(interval.endTime)
  if (start === null || end === null) return undefined
  const midnight = end[2] === undefined || /^00:00(:00(\.0+)?)?$/.test(end[2])
  const to = midnight && end[1]! > start[1]! ? addDays(end[1]!, -1) : end[1]!
  return { from: start[1]!, to: to < start[1]! ? start[1]! : to }
}

/** A physical interval's UTC days, a day either side: the user's civil day may differ from UTC's. */
const physicalDays = (interval: typeof Interval.Type): { from: string; to: string } | undefined => {
  const start = parseInstant(interval.startTime)
  const end = parseInstant(interval.endTime)
  if (Number.isNaN(start) || Number.isNaN(end)) return undefined
  return { from: addDays(utcDate(Math.min(start, end)), -1), to: addDays(utcDate(Math.max(start, end)), 1) }
}

/** The data types a notification of which is a re-read: every data type a window read is made of. */
export const notifiedDataTypes: ReadonlyArray<string> = [...fitbitDataTypes, ...listedDataTypes.map((l) => l.dataType)]

/**
 * The days to read again for one notification; `undefined` for a data type no window read is
 * made of. Without a readable interval: yesterday to tomorrow (UTC), around `nowMs`.
 */
export const daysToRead = (
  notification: GoogleHealthNotification,
  nowMs: number
): FitbitNotification | undefined => {
  const data = notification.data
  if (!notifiedDataTypes.includes(data.dataType)) return undefined
  const spans = (data.intervals ?? []).flatMap((i) => {
    const span = i.civilIso8601TimeInterval === undefined ?
      (i.physicalTimeInterval === undefined ? undefined : physicalDays(i.physicalTimeInterval)) :
      civilDays(i.civilIso8601TimeInterval)
    return span === undefined ? [] : [span]
  })
  const today = utcDate(nowMs)
  const from = spans.length === 0 ? addDays(today, -1) : spans.map((s) => s.from).sort()[0]!
  const to = spans.length === 0 ? addDays(today, 1) : spans.map((s) => s.to).sort().at(-1)!
  return FitbitNotification.make({ dataType: data.dataType, from, to })
}

/** The last keyset read, by its text: the same configuration arrives with every delivery. */
let parsedKeys: { readonly text: string; readonly keys: ReturnType<typeof keysOfKeyset> } | undefined

const keysOf = (text: string) => {
  if (parsedKeys?.text !== text) parsedKeys = { text, keys: keysOfKeyset(text) }
  return parsedKeys.keys
}

const signatureOf = (headers: Readonly<Record<string, string | undefined>>): string | undefined =>
  googleSignatureHeaders.map((name) => headers[name]).find((value) => value !== undefined)

export const fitbitWebhooks: WebhookReceiver = (request, app, nowMs) => {
  // Google only POSTs; nothing is served to a GET.
  if (request.method !== "POST") return rejected(404, "Google Health notifications are POSTed")
  // Google's second verification request has no Authorization and expects 401 or 403.
  if (app.verificationCode === null || !sameSecret(app.verificationCode, request.headers["authorization"])) {
    return rejected(401, "Missing or wrong Authorization")
  }
  const parsed = decodeBody(request.body)
  if (Either.isLeft(parsed)) return rejected(400, "Malformed notification body")
  const body = parsed.right
  if ("type" in body) return { _tag: "Verified", status: 201 }
  const signingKeys = app.signingKeys ?? null
  if (signingKeys !== null && !verifyGoogleSignature(keysOf(signingKeys), request.body, signatureOf(request.headers))) {
    return rejected(401, "Missing or bad X-HEALTHAPI-SIGNATURE")
  }
  const items: ReadonlyArray<GoogleHealthNotification> = Array.isArray(body) ? body : [body as GoogleHealthNotification]
  const notifications: Array<WebhookNotification> = []
  for (const item of items) {
    const days = daysToRead(item, nowMs)
    if (days !== undefined) notifications.push({ providerUserId: item.data.healthUserId, notification: days })
  }
  return accepted(204, notifications)
}
