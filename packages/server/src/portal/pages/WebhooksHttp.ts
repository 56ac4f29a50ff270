/**
 * Handlers of the portal's webhook endpoints group: one `PortalWebhooks` method each, with the
 * public routes' errors (an unknown app, endpoint or delivery, another app's included, is a 404; a
 * refused URL a 400; a test event to a disabled endpoint a 409).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, BadRequest, Conflict, NotFound } from "@pulsebridge/domain"
import { WebhooksGroup } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import { portalActor } from "../operators/Audit.js"
import { PortalWebhooks } from "./Webhooks.js"

const notFound = (error: { readonly message: string }) => Effect.fail(new NotFound({ message: error.message }))
const badRequest = (error: { readonly message: string }) => Effect.fail(new BadRequest({ message: error.message }))
const conflict = (error: { readonly message: string }) => Effect.fail(new Conflict({ message: error.message }))

export const PortalWebhooksHttpLive = HttpApiBuilder.group(
  Api.add(WebhooksGroup),
  "portalWebhooks",
  (handlers) =>
    Effect.gen(function*() {
      const webhooks = yield* PortalWebhooks
      return handlers
        .handle("list", ({ path }) =>
          webhooks.list(path.appId).pipe(
            Effect.map((data) => ({ data })),
            Effect.catchTags({ PortalAppNotFound: notFound })
          ))
        .handle("create", ({ path, payload }) =>
          Effect.flatMap(portalActor, (actor) =>
            webhooks.create(actor, path.appId, payload)).pipe(
              Effect.catchTags({ PortalAppNotFound: notFound, UrlRefused: badRequest })
            ))
        .handle("update", ({ path, payload }) =>
          Effect.flatMap(portalActor, (actor) =>
            webhooks.update(actor, path.appId, path.endpointId, payload)).pipe(
              Effect.catchTags({ PortalAppNotFound: notFound, EndpointNotFound: notFound, UrlRefused: badRequest })
            ))
        .handle("get", ({ path }) =>
          webhooks.get(path.appId, path.endpointId).pipe(
            Effect.catchTags({ PortalAppNotFound: notFound, EndpointNotFound: notFound })
          ))
        .handle("delete", ({ path }) =>
          Effect.flatMap(portalActor, (actor) =>
            webhooks.remove(actor, path.appId, path.endpointId)).pipe(
              Effect.catchTags({ PortalAppNotFound: notFound, EndpointNotFound: notFound })
            ))
        .handle("rotateSecret", ({ path }) =>
          Effect.flatMap(portalActor, (actor) =>
            webhooks.rotateSecret(actor, path.appId, path.endpointId)).pipe(
              Effect.catchTags({ PortalAppNotFound: notFound, EndpointNotFound: notFound })
            ))
        .handle("test", ({ path }) =>
          Effect.flatMap(portalActor, (actor) =>
            webhooks.sendTest(actor, path.appId, path.endpointId)).pipe(
              Effect.catchTags({ PortalAppNotFound: notFound, EndpointNotFound: notFound, EndpointDisabled: conflict })
            ))
        .handle("deliveries", ({ path, urlParams }) =>
          webhooks.deliveries(path.appId, path.endpointId, urlParams.limit, urlParams.cursor, {
            status: urlParams.status,
            eventType: urlParams.eventType
          }).pipe(
            Effect.catchTags({ PortalAppNotFound: notFound, EndpointNotFound: notFound })
          ))
        .handle("delivery", ({ path }) =>
          webhooks.delivery(path.appId, path.endpointId, path.deliveryId).pipe(
            Effect.catchTags({ PortalAppNotFound: notFound, EndpointNotFound: notFound, DeliveryNotFound: notFound })
          ))
        .handle("retry", ({ path }) =>
          Effect.flatMap(portalActor, (actor) =>
            webhooks.retry(actor, path.appId, path.endpointId, path.deliveryId)).pipe(
              Effect.catchTags({ PortalAppNotFound: notFound, EndpointNotFound: notFound, DeliveryNotFound: notFound })
            ))
    })
)
