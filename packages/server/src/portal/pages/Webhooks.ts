/**
 * An app's webhook endpoints as the portal manages them: the public routes' service (`Endpoints`,
 * with its URL rules, secrets, test event and delivery log) scoped to the app in the path, so another
 * app's endpoint is unknown here too. Each change and its audit event commit together; no secret is
 * ever in an event.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type {
  AppId,
  CreateWebhookEndpointPayload,
  UpdateWebhookEndpointPayload,
  WebhookDeliveryId,
  WebhookEndpointId
} from "@pulsebridge/domain"
import { RotatedWebhookSecret, WebhookEndpointWithSecret, WebhookTestSent } from "@pulsebridge/domain"
import { DeliveryAttempt, DeliveryDetail, EndpointDetail } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Apps } from "../../apps/Apps.js"
import type { DeliveryFilters } from "../../events/DeliveriesRepo.js"
import { Endpoints } from "../../events/Endpoints.js"
import { traced } from "../../platform/Traced.js"
import type { AuditEntry } from "../operators/Audit.js"
import { Audit } from "../operators/Audit.js"
import { PortalAppNotFound } from "./UserPages.js"

/** Who acts: the session's operator and the client's address. */
export type Actor = Pick<AuditEntry, "operator" | "address">

export class PortalWebhooks extends Effect.Service<PortalWebhooks>()("@pulsebridge/server/PortalWebhooks", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const apps = yield* Apps
    const endpoints = yield* Endpoints
    const audit = yield* Audit

    const requireApp = (appId: AppId) =>
      Effect.flatMap(apps.get(appId), (app) => Option.isNone(app) ? new PortalAppNotFound({ appId }) : Effect.void)

    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))

    return {
      list: traced("PortalWebhooks.list")(function*(appId: AppId) {
        yield* requireApp(appId)
        return yield* endpoints.list(appId)
      }),

      /** A new endpoint; its secret is in this answer only, never in the audit event. */
      create: traced("PortalWebhooks.create")(
        function*(actor: Actor, appId: AppId, payload: CreateWebhookEndpointPayload) {
          yield* requireApp(appId)
          const { endpoint, secret } = yield* endpoints.create(appId, payload)
          yield* audit.record({
            ...actor,
            action: "webhookEndpoint.create",
            targetType: "webhookEndpoint",
            targetId: endpoint.id,
            appId,
            detail: { url: endpoint.url, events: endpoint.events }
          })
          return new WebhookEndpointWithSecret({ ...endpoint, secret })
        },
        inTransaction
      ),

      update: traced("PortalWebhooks.update")(
        function*(actor: Actor, appId: AppId, id: WebhookEndpointId, payload: UpdateWebhookEndpointPayload) {
          yield* requireApp(appId)
          const endpoint = yield* endpoints.update(appId, id, payload)
          yield* audit.record({
            ...actor,
            action: "webhookEndpoint.update",
            targetType: "webhookEndpoint",
            targetId: endpoint.id,
            appId,
            detail: { changed: payload }
          })
          return endpoint
        },
        inTransaction
      ),

      /** The endpoint with its last error and last success, its deliveries waiting, and its pause. */
      get: traced("PortalWebhooks.get")(function*(appId: AppId, id: WebhookEndpointId) {
        yield* requireApp(appId)
        const health = yield* endpoints.health(appId, id)
        return new EndpointDetail({
          ...health,
          lastError: health.lastError === null ? null : new DeliveryAttempt(health.lastError),
          lastSuccess: health.lastSuccess === null ? null : new DeliveryAttempt(health.lastSuccess)
        })
      }),

      /** Removes the endpoint with its deliveries; the event keeps its URL, since nothing else will. */
      remove: traced("PortalWebhooks.remove")(
        function*(actor: Actor, appId: AppId, id: WebhookEndpointId) {
          yield* requireApp(appId)
          const endpoint = yield* endpoints.get(appId, id)
          yield* endpoints.remove(appId, id)
          yield* audit.record({
            ...actor,
            action: "webhookEndpoint.delete",
            targetType: "webhookEndpoint",
            targetId: id,
            appId,
            detail: { url: endpoint.url }
          })
        },
        inTransaction
      ),

      /** A new signing secret, in this answer only; the event says until when the previous one still signs. */
      rotateSecret: traced("PortalWebhooks.rotateSecret")(
        function*(actor: Actor, appId: AppId, id: WebhookEndpointId) {
          yield* requireApp(appId)
          const rotated = yield* endpoints.rotateSecret(appId, id)
          yield* audit.record({
            ...actor,
            action: "webhookEndpoint.rotateSecret",
            targetType: "webhookEndpoint",
            targetId: id,
            appId,
            detail: { previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString() }
          })
          return new RotatedWebhookSecret(rotated)
        },
        inTransaction
      ),

      /** Queues a `webhook.test` event to this endpoint only (not to a disabled one). */
      sendTest: traced("PortalWebhooks.sendTest")(
        function*(actor: Actor, appId: AppId, id: WebhookEndpointId) {
          yield* requireApp(appId)
          const eventId = yield* endpoints.sendTest(appId, id)
          yield* audit.record({
            ...actor,
            action: "webhookEndpoint.test",
            targetType: "webhookEndpoint",
            targetId: id,
            appId,
            detail: { eventId }
          })
          return new WebhookTestSent({ eventId })
        },
        inTransaction
      ),

      deliveries: traced("PortalWebhooks.deliveries")(
        function*(
          appId: AppId,
          id: WebhookEndpointId,
          limit: number | undefined,
          cursor: string | undefined,
          filters: DeliveryFilters
        ) {
          yield* requireApp(appId)
          return yield* endpoints.deliveries(appId, id, limit, cursor, filters)
        }
      ),

      delivery: traced("PortalWebhooks.delivery")(
        function*(appId: AppId, id: WebhookEndpointId, deliveryId: WebhookDeliveryId) {
          yield* requireApp(appId)
          const found = yield* endpoints.delivery(appId, id, deliveryId)
          return new DeliveryDetail({ ...found, attempts: found.attempts.map((a) => new DeliveryAttempt(a)) })
        }
      ),

      retry: traced("PortalWebhooks.retry")(
        function*(actor: Actor, appId: AppId, id: WebhookEndpointId, deliveryId: WebhookDeliveryId) {
          yield* requireApp(appId)
          const delivery = yield* endpoints.retry(appId, id, deliveryId)
          yield* audit.record({
            ...actor,
            action: "webhookDelivery.retry",
            targetType: "webhookDelivery",
            targetId: delivery.id,
            appId,
            detail: { endpointId: id, eventId: delivery.eventId, eventType: delivery.eventType }
          })
          return delivery
        },
        inTransaction
      )
    } as const
  })
}) {}
