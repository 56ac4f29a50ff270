/**
 * Garmin push and ping in. Garmin signs nothing: the `garmin-client-id` header must be the app's
 * consumer key or OAuth 2.0 client id (401 otherwise). A delivery is one list per summary type
 * (`{"dailies":[...], "sleeps":[...], "activities":[...], "hrv":[...], "pulseox":[...],
 * "bodyComps":[...]}`, see `Summaries.ts`) and the lifecycle lists `userPermissionsChange` and
 * `deregistrations`; users are named by `userId` (OAuth 1.0a apps also get `userAccessToken`, which
 * is never relied on: after the move to OAuth 2.0 it is gone). An item with a `callbackURL` is a
 * ping (one notification each: pull that URL, its `token=` pull token included); the others are
 * pushed summaries, grouped into one notification per user holding every type pushed for them. A
 * permission change carries the user's permissions as they now are. Deregistrations name the users
 * who withdrew our access at Garmin. Items that name no user are skipped, as are the lists of
 * summary types not read.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { accepted, rejected, sameSecret } from "../internal/Webhooks.js"
import type { WebhookNotification, WebhookReceiver } from "../Plugin.js"
import type { GarminSummaryType } from "./Summaries.js"
import { garminSummaryTypes } from "./Summaries.js"

/**
 * What a Garmin notification asks for: store the pushed summaries (kept as the JSON text of an
 * envelope of summary lists, read by `garminPushSummaries`; notifications stored before sleeps and
 * the rest were read name it `dailiesJson`), or pull a ping's callback URL.
 */
export const GarminNotification = Schema.Union(
  Schema.TaggedStruct("GarminPush", { summariesJson: Schema.parseJson() }),
  Schema.TaggedStruct("GarminPush", { dailiesJson: Schema.parseJson() }),
  Schema.TaggedStruct("GarminPing", { callbackUrl: Schema.String }),
  Schema.TaggedStruct("GarminPermissions", {
    permissions: Schema.Array(Schema.String),
    changeTimeInSeconds: Schema.optional(Schema.Number)
  })
)
/** The notification as stored and passed around: plain JSON. */
export type GarminNotification = typeof GarminNotification.Encoded

const Item = Schema.Struct({ userId: Schema.String, callbackURL: Schema.optional(Schema.String) })
const decodeItem = Schema.decodeUnknownOption(Item)
const PermissionsItem = Schema.Struct({
  userId: Schema.String,
  permissions: Schema.Array(Schema.String),
  changeTimeInSeconds: Schema.optional(Schema.Number)
})
const decodePermissionsItem = Schema.decodeUnknownOption(PermissionsItem)
const Items = Schema.optional(Schema.Array(Schema.Unknown))
const decodeBody = Schema.decodeUnknownEither(Schema.parseJson(Schema.Struct({
  dailies: Items,
  sleeps: Items,
  activities: Items,
  hrv: Items,
  pulseox: Items,
  bodyComps: Items,
  userPermissionsChange: Items,
  deregistrations: Schema.optional(Schema.Array(Item))
})))

export const garminWebhooks: WebhookReceiver = (request, app) => {
  if (request.method !== "POST") return rejected(404, "Not found")
  const clientId = request.headers["garmin-client-id"]
  // After a move to OAuth 2.0 Garmin may name the app by its client id or its old consumer key.
  const known = [app.clientId, ...(app.otherClientIds ?? [])]
  if (clientId === undefined || !known.some((id) => sameSecret(id, clientId))) {
    return rejected(401, "Missing or wrong garmin-client-id")
  }
  const parsed = decodeBody(request.body)
  if (Either.isLeft(parsed)) return rejected(400, "Malformed push body")
  const notifications: Array<WebhookNotification> = []
  // Pushed items by user (in the order users first appear), then by summary type.
  const pushes = new Map<string, Partial<Record<GarminSummaryType, Array<unknown>>>>()
  for (const type of garminSummaryTypes) {
    for (const item of parsed.right[type] ?? []) {
      const head = decodeItem(item)
      if (Option.isNone(head)) continue
      if (head.value.callbackURL !== undefined) {
        const ping: GarminNotification = { _tag: "GarminPing", callbackUrl: head.value.callbackURL }
        notifications.push({ providerUserId: head.value.userId, notification: ping })
      } else {
        const byType = pushes.get(head.value.userId) ?? {}
        ;(byType[type] ??= []).push(item)
        pushes.set(head.value.userId, byType)
      }
    }
  }
  for (const [userId, summaries] of pushes) {
    const push: GarminNotification = { _tag: "GarminPush", summariesJson: JSON.stringify(summaries) }
    notifications.push({ providerUserId: userId, notification: push })
  }
  for (const item of parsed.right.userPermissionsChange ?? []) {
    const change = decodePermissionsItem(item)
    if (Option.isNone(change)) continue
    const notification: GarminNotification = {
      _tag: "GarminPermissions",
      permissions: change.value.permissions,
      ...(change.value.changeTimeInSeconds === undefined
        ? {}
        : { changeTimeInSeconds: change.value.changeTimeInSeconds })
    }
    notifications.push({ providerUserId: change.value.userId, notification })
  }
  return accepted(200, notifications, (parsed.right.deregistrations ?? []).map((item) => item.userId))
}
