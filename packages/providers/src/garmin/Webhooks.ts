/**
 * Garmin push and ping in. Garmin signs nothing: the `garmin-client-id` header must be the app's
 * consumer key (401 otherwise). A delivery is `{"dailies":[...], "deregistrations":[...]}`. A
 * dailies item with a `callbackURL` is a ping (one notification each: pull that URL); the others
 * are pushed summaries, grouped into one notification per user. Deregistrations name the users
 * who withdrew our access at Garmin. Items that name no user are skipped.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { accepted, rejected, sameSecret } from "../internal/Webhooks.js"
import type { WebhookNotification, WebhookReceiver } from "../Plugin.js"

/**
 * What a Garmin notification asks for: store the pushed summaries (kept as the JSON text of a
 * `{"dailies":[...]}` envelope, read by `garminPushDailies`), or pull a ping's callback URL.
 */
export const GarminNotification = Schema.Union(
  Schema.TaggedStruct("GarminPush", { dailiesJson: Schema.parseJson() }),
  Schema.TaggedStruct("GarminPing", { callbackUrl: Schema.String })
)
/** The notification as stored and passed around: plain JSON. */
export type GarminNotification = typeof GarminNotification.Encoded

const Item = Schema.Struct({ userId: Schema.String, callbackURL: Schema.optional(Schema.String) })
const decodeItem = Schema.decodeUnknownOption(Item)
const decodeBody = Schema.decodeUnknownEither(Schema.parseJson(Schema.Struct({
  dailies: Schema.optional(Schema.Array(Schema.Unknown)),
  deregistrations: Schema.optional(Schema.Array(Item))
})))

export const garminWebhooks: WebhookReceiver = (request, app) => {
  if (request.method !== "POST") return rejected(404, "Not found")
  const clientId = request.headers["garmin-client-id"]
  if (clientId === undefined || !sameSecret(app.clientId, clientId)) {
    return rejected(401, "Missing or wrong garmin-client-id")
  }
  const parsed = decodeBody(request.body)
  if (Either.isLeft(parsed)) return rejected(400, "Malformed push body")
  const notifications: Array<WebhookNotification> = []
  // Pushed items by user, in the order users first appear.
  const pushes = new Map<string, Array<unknown>>()
  for (const item of parsed.right.dailies ?? []) {
    const head = decodeItem(item)
    if (Option.isNone(head)) continue
    if (head.value.callbackURL !== undefined) {
      const ping: GarminNotification = { _tag: "GarminPing", callbackUrl: head.value.callbackURL }
      notifications.push({ providerUserId: head.value.userId, notification: ping })
    } else {
      const list = pushes.get(head.value.userId) ?? []
      list.push(item)
      pushes.set(head.value.userId, list)
    }
  }
  for (const [userId, dailies] of pushes) {
    const push: GarminNotification = { _tag: "GarminPush", dailiesJson: JSON.stringify({ dailies }) }
    notifications.push({ providerUserId: userId, notification: push })
  }
  return accepted(200, notifications, (parsed.right.deregistrations ?? []).map((item) => item.userId))
}
