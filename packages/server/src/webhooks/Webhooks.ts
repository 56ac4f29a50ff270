/**
 * Provider notifications in. Each registered provider that pushes has a receiver in its plug-in,
 * which checks a delivery the way its provider signs it and reads it into notifications; this
 * service finds the app and its credentials, hands every notification to the connections of the
 * provider user it names (as persisted messages for their sync entities, stored before the
 * answer, so the provider gets its quick 2xx), and marks deregistered users' connections
 * `Reauthorize`. A delivery that fails its check changes nothing; one that cannot be checked (the provider's
 * signing keys cannot be read, `SigningKeys`) is answered 503, for the provider to send again.
 *
 * Routes are per provider and app: `/webhooks/<provider slug>/<appId>`, the URL an operator
 * enters in the provider's developer console.
 */
import type { WebhookRequest, WebhookResult } from "@pulsebridge/providers"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Apps } from "../apps/Apps.js"
import { ConnectionEvents } from "../connections/ConnectionEvents.js"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"
import { ProviderAccess } from "../connections/ProviderAccess.js"
import { isUuid } from "../platform/Ids.js"
import { SyncQueue } from "../sync/SyncQueue.js"
import { SigningKeys } from "./SigningKeys.js"

export type WebhookOutcome =
  | { readonly _tag: "Verified"; readonly status?: 200 | 201 | 204 | undefined; readonly body?: unknown }
  | { readonly _tag: "Accepted"; readonly status: 200 | 204; readonly notified: number }
  | { readonly _tag: "Rejected"; readonly status: 400 | 401 | 404; readonly message: string }
  /** The delivery cannot be checked now (the provider's signing keys cannot be read): the provider sends it again. */
  | { readonly _tag: "Unavailable"; readonly message: string }

const unknownReceiver: WebhookOutcome = { _tag: "Rejected", status: 404, message: "Unknown webhook receiver" }

export class Webhooks extends Effect.Service<Webhooks>()("@pulsebridge/server/Webhooks", {
  effect: Effect.gen(function*() {
    const apps = yield* Apps
    const connections = yield* ConnectionsRepo
    const events = yield* ConnectionEvents
    const access = yield* ProviderAccess
    const queue = yield* SyncQueue
    const registry = yield* ProviderRegistry
    const signingKeys = yield* SigningKeys

    /** The app's credentials at the provider, or none (an unknown app, a provider not configured). */
    const credentialsOf = (appId: string, provider: string) =>
      apps.get(appId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeed(Option.none()),
          onSome: (app) => access.resolve(app.id, provider).pipe(Effect.option)
        }))
      )

    const apply = (appId: string, provider: string, result: WebhookResult) =>
      Effect.gen(function*() {
        if (result._tag !== "Accepted") return result
        let notified = 0
        for (const item of result.notifications) {
          const ids = yield* connections.activeIdsAtProvider(appId, provider, item.providerUserId)
          for (const id of ids) yield* queue.notify(id, item.notification)
          notified += ids.length
        }
        for (const providerUserId of result.deregistrations) {
          // The user removed our access at the provider: the grant is gone, so is the sync.
          for (const id of yield* connections.activeIdsAtProvider(appId, provider, providerUserId)) {
            yield* events.markReauthorize(
              id,
              "The user withdrew access at the provider (deregistration): the user must connect again"
            )
            yield* queue.stop(id)
            notified++
          }
        }
        return { _tag: "Accepted", status: result.status, notified } satisfies WebhookOutcome
      })

    return {
      /** One delivery to `/webhooks/<slug>/<appId>`. */
      receive: (slug: string, appId: string, request: WebhookRequest) =>
        Effect.gen(function*() {
          const plugin = registry.bySlug(slug)
          if (Option.isNone(plugin) || plugin.value.webhooks === undefined || !isUuid(appId)) return unknownReceiver
          const receiver = plugin.value.webhooks
          const provider = plugin.value.catalog.name
          const resolved = yield* credentialsOf(appId, provider)
          if (Option.isNone(resolved)) return unknownReceiver
          const now = yield* Clock.currentTimeMillis
          const check = (keys: string | null) =>
            receiver(request, {
              clientId: resolved.value.credentials.clientId,
              clientSecret: resolved.value.credentials.clientSecret,
              verificationCode: resolved.value.webhookVerificationCode,
              signingKeys: keys,
              otherClientIds: resolved.value.credentials.oauth1 === undefined
                ? []
                : [resolved.value.credentials.oauth1.clientId]
            }, now)
          // The sandbox's simulators sign with keys of their own; an app's own credentials are checked against the
          // keys the provider publishes (read again once when none of them matches: the provider may have rotated).
          const url = resolved.value.webhookSigningKeys === null
            ? signingKeys.urlOf(slug, plugin.value.signingKeysUrl)
            : Option.none()
          if (Option.isNone(url)) return yield* apply(appId, provider, check(resolved.value.webhookSigningKeys))
          // Everything else is checked first (the subscriber's Authorization, the body): a delivery refused anyway,
          // or a verification request, needs no keys, so no stranger's request makes the server read them.
          const unsigned = check(null)
          if (unsigned._tag !== "Accepted") return yield* apply(appId, provider, unsigned)
          const checked = yield* signingKeys.get(url.value, { now }).pipe(
            Effect.map(check),
            Effect.flatMap((result) =>
              result._tag === "Rejected" && result.status === 401
                ? signingKeys.get(url.value, { now, refresh: true }).pipe(Effect.map(check))
                : Effect.succeed(result)
            ),
            Effect.either
          )
          if (checked._tag === "Left") {
            return { _tag: "Unavailable", message: checked.left.message } satisfies WebhookOutcome
          }
          return yield* apply(appId, provider, checked.right)
        }).pipe(Effect.withSpan("Webhooks.receive", { attributes: { slug } }))
    } as const
  }),
  dependencies: [ConnectionsRepo.Default, ConnectionEvents.Default, SigningKeys.Default]
}) {}
