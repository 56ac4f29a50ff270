/**
 * WHOOP webhooks in. Each POST is signed: `X-WHOOP-Signature` is the base64 HMAC-SHA256 of
 * `X-WHOOP-Signature-Timestamp` (ms) + the body, keyed with the client secret; a timestamp more
 * than five minutes from now (either way) or a bad signature is answered 401. The body
 * `{user_id, id, type, trace_id}` names one record of one user.
 */
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { accepted, rejected, sameSecret } from "../internal/Webhooks.js"
import type { WebhookReceiver } from "../Plugin.js"

/** How old a WHOOP signature timestamp may be, either way. */
export const WhoopTimestampToleranceMs = 5 * 60 * 1000

/** What a WHOOP notification names: an event type (`sleep.updated`, ...) and the record's id. */
export const WhoopNotification = Schema.TaggedStruct("WhoopEvent", { type: Schema.String, id: Schema.String })
export type WhoopNotification = typeof WhoopNotification.Type

export const whoopSignatureOf = (timestamp: string, body: string, clientSecret: string): string =>
  crypto.createHmac("sha256", clientSecret).update(timestamp + body).digest("base64")

const decodeBody = Schema.decodeUnknownEither(Schema.parseJson(Schema.Struct({
  user_id: Schema.Union(Schema.Number, Schema.String),
  id: Schema.Union(Schema.Number, Schema.String),
  type: Schema.String
})))

export const whoopWebhooks: WebhookReceiver = (request, app, nowMs) => {
  if (request.method !== "POST") return rejected(404, "Not found")
  const timestamp = request.headers["x-whoop-signature-timestamp"]
  const sentAt = Number(timestamp)
  if (timestamp === undefined || !Number.isFinite(sentAt) || Math.abs(nowMs - sentAt) > WhoopTimestampToleranceMs) {
    return rejected(401, "Missing or stale signature timestamp")
  }
  const signature = whoopSignatureOf(timestamp, request.body, Redacted.value(app.clientSecret))
  if (!sameSecret(signature, request.headers["x-whoop-signature"])) return rejected(401, "Bad signature")
  const parsed = decodeBody(request.body)
  if (Either.isLeft(parsed)) return rejected(400, "Malformed webhook body")
  const event = parsed.right
  return accepted(204, [{
    providerUserId: String(event.user_id),
    notification: WhoopNotification.make({ type: event.type, id: String(event.id) })
  }])
}
