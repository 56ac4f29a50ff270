/**
 * Fitbit subscriptions in. The subscriber is verified with two GETs (`?verify=<code>`): the
 * app's code is answered 204, any other 404. A notification POST is signed with
 * `X-Fitbit-Signature`: base64 HMAC-SHA1 of the body keyed with the client secret + "&"; Fitbit's
 * guidance is to answer a bad signature with 404. The body lists `{collectionType, date, ownerId}`
 * items, each a day of one user to read again.
 */
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { accepted, rejected, sameSecret } from "../internal/Webhooks.js"
import type { WebhookReceiver } from "../Plugin.js"

const DatePattern = Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/))

/** What a Fitbit notification asks for: read this day of the user again. */
export const FitbitNotification = Schema.TaggedStruct("FitbitDay", { date: DatePattern })
export type FitbitNotification = typeof FitbitNotification.Type

export const fitbitSignatureOf = (body: string, clientSecret: string): string =>
  crypto.createHmac("sha1", `${clientSecret}&`).update(body).digest("base64")

const decodeBody = Schema.decodeUnknownEither(Schema.parseJson(Schema.Array(Schema.Struct({
  collectionType: Schema.String,
  date: DatePattern,
  ownerId: Schema.String
}))))

export const fitbitWebhooks: WebhookReceiver = (request, app) => {
  if (request.method === "GET") {
    const code = request.query.get("verify") ?? undefined
    return app.verificationCode !== null && sameSecret(app.verificationCode, code)
      ? { _tag: "Verified" }
      : rejected(404, "Wrong verification code")
  }
  const signature = fitbitSignatureOf(request.body, Redacted.value(app.clientSecret))
  if (!sameSecret(signature, request.headers["x-fitbit-signature"])) return rejected(404, "Bad signature")
  const parsed = decodeBody(request.body)
  if (Either.isLeft(parsed)) return rejected(400, "Malformed notification body")
  return accepted(
    204,
    parsed.right.map((item) => ({
      providerUserId: item.ownerId,
      notification: FitbitNotification.make({ date: item.date })
    }))
  )
}
