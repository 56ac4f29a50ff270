/**
 * Provider notifications in: Fitbit subscriptions, WHOOP webhooks, Garmin push and ping. Each
 * is checked the way its provider signs it (Fitbit: HMAC-SHA1 of the body with the client
 * secret + "&"; WHOOP: HMAC-SHA256 of timestamp + body with the client secret, timestamp within
 * five minutes; Garmin: no signature, the `garmin-client-id` header must be the app's consumer
 * key). A request that fails its check changes nothing. An accepted one is turned into
 * messages for the connections' sync entities, stored before the answer, and processed in the
 * background, so the provider gets its quick 2xx.
 *
 * Routes are per app: `/webhooks/<provider slug>/<appId>`, the URL an operator enters in the
 * provider's developer console.
 */
import type { ConnectionId, Provider } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { Apps } from "../apps/Apps.js"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"
import { ProviderAccess } from "../connections/ProviderAccess.js"
import type { SyncNotification } from "../sync/SyncEngine.js"
import { SyncQueue } from "../sync/SyncQueue.js"

/** How old a WHOOP signature timestamp may be, either way. */
export const WhoopTimestampToleranceMs = 5 * 60 * 1000

export type WebhookOutcome =
  | { readonly _tag: "Accepted"; readonly notified: number }
  | { readonly _tag: "Rejected"; readonly status: 401 | 404 | 400; readonly message: string }

const rejected = (status: 401 | 404 | 400, message: string): WebhookOutcome => ({ _tag: "Rejected", status, message })

/** Constant-time comparison of two base64 signatures. */
const sameSignature = (expected: string, given: string | undefined): boolean => {
  if (given === undefined) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given.trim())
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}

export const fitbitSignatureOf = (body: string, clientSecret: string) =>
  crypto.createHmac("sha1", `${clientSecret}&`).update(body).digest("base64")

export const whoopSignatureOf = (timestamp: string, body: string, clientSecret: string) =>
  crypto.createHmac("sha256", clientSecret).update(timestamp + body).digest("base64")

const FitbitNotifications = Schema.parseJson(Schema.Array(Schema.Struct({
  collectionType: Schema.String,
  date: Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/)),
  ownerId: Schema.String
})))

const WhoopEvent = Schema.parseJson(Schema.Struct({
  user_id: Schema.Union(Schema.Number, Schema.String),
  id: Schema.Union(Schema.Number, Schema.String),
  type: Schema.String
}))

const GarminItem = Schema.Struct({ userId: Schema.String, callbackURL: Schema.optional(Schema.String) })
const GarminBody = Schema.parseJson(Schema.Struct({
  dailies: Schema.optional(Schema.Array(Schema.Unknown)),
  deregistrations: Schema.optional(Schema.Array(GarminItem))
}))

export class Webhooks extends Effect.Service<Webhooks>()("@pulsebridge/server/Webhooks", {
  effect: Effect.gen(function*() {
    const apps = yield* Apps
    const connections = yield* ConnectionsRepo
    const access = yield* ProviderAccess
    const queue = yield* SyncQueue

    const credentialsOf = (appId: string, provider: Provider) =>
      apps.get(appId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeed(undefined),
          onSome: (app) => access.resolve(app.id, provider).pipe(Effect.option, Effect.map(Option.getOrUndefined))
        }))
      )

    const connectionsOf = connections.activeIdsAtProvider

    const notifyAll = (ids: ReadonlyArray<ConnectionId>, notification: SyncNotification) =>
      Effect.forEach(ids, (id) => queue.notify(id, notification), { discard: true }).pipe(Effect.as(ids.length))

    const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

    return {
      /** Fitbit's subscriber verification: 204 for the right code, 404 for any other. */
      fitbitVerify: (appId: string, code: string | undefined) =>
        Effect.gen(function*() {
          if (!isUuid(appId)) return false
          const resolved = yield* credentialsOf(appId, "Fitbit")
          const expected = resolved?.webhookVerificationCode ?? null
          return expected !== null && code !== undefined && sameSignature(expected, code)
        }),

      fitbit: (appId: string, body: string, signature: string | undefined) =>
        Effect.gen(function*() {
          if (!isUuid(appId)) return rejected(404, "Unknown subscriber")
          const resolved = yield* credentialsOf(appId, "Fitbit")
          if (resolved === undefined) return rejected(404, "Unknown subscriber")
          const secret = Redacted.value(resolved.credentials.clientSecret)
          // Fitbit's guidance: answer a bad signature with 404.
          if (!sameSignature(fitbitSignatureOf(body, secret), signature)) return rejected(404, "Bad signature")
          const parsed = Schema.decodeUnknownEither(FitbitNotifications)(body)
          if (parsed._tag === "Left") return rejected(400, "Malformed notification body")
          let notified = 0
          for (const item of parsed.right) {
            const ids = yield* connectionsOf(appId, "Fitbit", item.ownerId)
            notified += yield* notifyAll(ids, { _tag: "FitbitDay", date: item.date })
          }
          return { _tag: "Accepted", notified } satisfies WebhookOutcome
        }),

      whoop: (appId: string, body: string, signature: string | undefined, timestamp: string | undefined) =>
        Effect.gen(function*() {
          if (!isUuid(appId)) return rejected(404, "Unknown webhook receiver")
          const resolved = yield* credentialsOf(appId, "WHOOP")
          if (resolved === undefined) return rejected(404, "Unknown webhook receiver")
          const sentAt = Number(timestamp)
          if (
            timestamp === undefined || !Number.isFinite(sentAt) ||
            Math.abs(Date.now() - sentAt) > WhoopTimestampToleranceMs
          ) {
            return rejected(401, "Missing or stale signature timestamp")
          }
          const secret = Redacted.value(resolved.credentials.clientSecret)
          if (!sameSignature(whoopSignatureOf(timestamp, body, secret), signature)) {
            return rejected(401, "Bad signature")
          }
          const parsed = Schema.decodeUnknownEither(WhoopEvent)(body)
          if (parsed._tag === "Left") return rejected(400, "Malformed webhook body")
          const event = parsed.right
          const ids = yield* connectionsOf(appId, "WHOOP", String(event.user_id))
          const notified = yield* notifyAll(ids, { _tag: "WhoopEvent", type: event.type, id: String(event.id) })
          return { _tag: "Accepted", notified } satisfies WebhookOutcome
        }),

      garmin: (appId: string, body: string, clientIdHeader: string | undefined) =>
        Effect.gen(function*() {
          if (!isUuid(appId)) return rejected(404, "Unknown webhook receiver")
          const resolved = yield* credentialsOf(appId, "Garmin")
          if (resolved === undefined) return rejected(404, "Unknown webhook receiver")
          if (clientIdHeader === undefined || !sameSignature(resolved.credentials.clientId, clientIdHeader)) {
            return rejected(401, "Missing or wrong garmin-client-id")
          }
          const parsed = Schema.decodeUnknownEither(GarminBody)(body)
          if (parsed._tag === "Left") return rejected(400, "Malformed push body")
          let notified = 0
          const pushes = new Map<string, Array<unknown>>()
          for (const item of parsed.right.dailies ?? []) {
            const head = Schema.decodeUnknownOption(GarminItem)(item)
            if (head._tag === "None") continue
            if (head.value.callbackURL !== undefined) {
              const ids = yield* connectionsOf(appId, "Garmin", head.value.userId)
              notified += yield* notifyAll(ids, { _tag: "GarminPing", callbackUrl: head.value.callbackURL })
            } else {
              const list = pushes.get(head.value.userId) ?? []
              list.push(item)
              pushes.set(head.value.userId, list)
            }
          }
          for (const [userId, dailies] of pushes) {
            const ids = yield* connectionsOf(appId, "Garmin", userId)
            notified += yield* notifyAll(ids, { _tag: "GarminPush", dailiesJson: JSON.stringify({ dailies }) })
          }
          for (const item of parsed.right.deregistrations ?? []) {
            const ids = yield* connectionsOf(appId, "Garmin", item.userId)
            for (const id of ids) {
              // The user removed our access at Garmin: the grant is gone, so is the sync.
              yield* connections.markReauthorize(id)
              yield* queue.stop(id)
              notified++
            }
          }
          return { _tag: "Accepted", notified } satisfies WebhookOutcome
        })
    } as const
  }),
  dependencies: [ConnectionsRepo.Default]
}) {}
