/**
 * Oura webhooks in (cloud.ouraring.com/v2/docs, "Webhooks"). Two kinds of request reach the callback URL:
 *
 * - the verification of a subscription: `GET ?verification_token=...&challenge=...`, made when a subscription is
 *   created (or renewed). The token must be the one the subscription was created with; Oura then expects
 *   `200` with the JSON body `{"challenge": "<challenge>"}`, which the receiver's `Verified` carries.
 * - a notification: a `POST` of `{event_type, data_type, object_id, user_id, event_time}` (`event_type` create,
 *   update or delete), signed: `x-oura-signature` is the upper-case hex HMAC-SHA256 of `x-oura-timestamp` +
 *   the exact body, keyed with the app's client secret. A bad signature is 401. The docs give the timestamp as
 *   the header's value without a unit; deliveries carry Unix seconds, and one more than
 *   `OuraTimestampToleranceMs` from now is refused as a replay (a choice: the docs name no tolerance).
 *
 * `afterBackfill` creates subscriptions with a verification token derived from the client secret
 * (`ouraVerificationToken`): nothing needs configuring, and nobody without the secret can answer for the app. A
 * verification is answered for that token, and for the app's webhook verification code when the operator set one
 * (subscriptions made by hand with it): `afterBackfill` is not given the code, so accepting only the code would
 * refuse the challenge of every subscription it makes.
 */
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { accepted, rejected, sameSecret } from "../internal/Webhooks.js"
import type { WebhookApp, WebhookReceiver } from "../Plugin.js"

/** How far a delivery's `x-oura-timestamp` may be from now, either way. */
export const OuraTimestampToleranceMs = 15 * 60 * 1000

/** The collections PulseBridge reads, which are the ones it subscribes to and is notified of. */
export const ouraNotifiedDataTypes = [
  "daily_activity",
  "sleep",
  "daily_sleep",
  "daily_readiness",
  "daily_spo2",
  "workout"
] as const
export type OuraNotifiedDataType = typeof ouraNotifiedDataTypes[number]

/** What an Oura notification names: the change, the collection and the document. */
export const OuraNotification = Schema.TaggedStruct("OuraEvent", {
  eventType: Schema.String,
  dataType: Schema.Literal(...ouraNotifiedDataTypes),
  objectId: Schema.String,
  /** When Oura says the change happened, if it says. */
  eventTime: Schema.optional(Schema.String)
})
export type OuraNotification = typeof OuraNotification.Type

/** The upper-case hex HMAC-SHA256 of `timestamp + body`, keyed with the client secret. */
export const ouraSignatureOf = (timestamp: string, body: string, clientSecret: string): string =>
  crypto.createHmac("sha256", clientSecret).update(timestamp + body).digest("hex").toUpperCase()

/** The verification token of an app's subscriptions, derived from its client secret (see the module comment). */
export const ouraVerificationToken = (clientSecret: Redacted.Redacted | string): string =>
  crypto.createHmac("sha256", typeof clientSecret === "string" ? clientSecret : Redacted.value(clientSecret))
    .update("pulsebridge-oura-webhook-verification")
    .digest("base64url")
    .slice(0, 32)

const isAppToken = (app: WebhookApp, token: string): boolean =>
  sameSecret(ouraVerificationToken(app.clientSecret), token) ||
  (app.verificationCode !== null && sameSecret(app.verificationCode, token))

const decodeBody = Schema.decodeUnknownEither(Schema.parseJson(Schema.Struct({
  event_type: Schema.String,
  data_type: Schema.String,
  object_id: Schema.Union(Schema.String, Schema.Number),
  user_id: Schema.Union(Schema.String, Schema.Number),
  event_time: Schema.optional(Schema.String)
})))

/** Unix seconds (or milliseconds) of the timestamp header; NaN when it reads as neither. */
const timestampMs = (value: string): number => {
  if (!/^\d{9,13}(\.\d+)?$/.test(value.trim())) return Number.NaN
  const n = Number(value)
  return n > 1e12 ? n : n * 1000
}

const isNotified = (dataType: string): dataType is OuraNotifiedDataType =>
  (ouraNotifiedDataTypes as ReadonlyArray<string>).includes(dataType)

export const ouraWebhooks: WebhookReceiver = (request, app, nowMs) => {
  if (request.method === "GET") {
    const token = request.query.get("verification_token")
    if (token === null || request.query.get("challenge") === null) {
      return rejected(400, "verification_token and challenge are required")
    }
    return isAppToken(app, token)
      ? { _tag: "Verified", status: 200, body: { challenge: request.query.get("challenge") } }
      : rejected(401, "Wrong verification_token")
  }
  const timestamp = request.headers["x-oura-timestamp"]
  const sentAt = timestamp === undefined ? Number.NaN : timestampMs(timestamp)
  if (timestamp === undefined || Number.isNaN(sentAt) || Math.abs(nowMs - sentAt) > OuraTimestampToleranceMs) {
    return rejected(401, "Missing or stale x-oura-timestamp")
  }
  const expected = ouraSignatureOf(timestamp, request.body, Redacted.value(app.clientSecret))
  if (!sameSecret(expected, request.headers["x-oura-signature"]?.toUpperCase())) {
    return rejected(401, "Bad x-oura-signature")
  }
  const parsed = decodeBody(request.body)
  if (Either.isLeft(parsed)) return rejected(400, "Malformed notification body")
  const event = parsed.right
  // a collection PulseBridge does not read (tags, sessions, ...) is acknowledged and ignored
  if (!isNotified(event.data_type)) return accepted(200, [])
  const notification: OuraNotification = OuraNotification.make({
    eventType: event.event_type,
    dataType: event.data_type,
    objectId: String(event.object_id),
    ...(event.event_time === undefined ? {} : { eventTime: event.event_time })
  })
  return accepted(200, [{ providerUserId: String(event.user_id), notification }])
}
