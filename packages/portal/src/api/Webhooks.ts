/** The webhook endpoints of an app and their deliveries (the same service as `/api/v1/webhook-endpoints`). */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  AppId,
  BadRequest,
  Conflict,
  CreateWebhookEndpointPayload,
  DeliveryCursor,
  DeliveryPageLimit,
  NotFound,
  UpdateWebhookEndpointPayload,
  WebhookDelivery,
  WebhookDeliveryId,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpointWithSecret
} from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { AppPath } from "./Apps.js"
import { PortalAuth } from "./Session.js"

const endpointPath = Schema.Struct({ appId: AppId, endpointId: WebhookEndpointId })

export class WebhooksGroup extends HttpApiGroup.make("portalWebhooks")
  .add(
    HttpApiEndpoint.get("list", "/portal/api/apps/:appId/webhook-endpoints")
      .setPath(AppPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(WebhookEndpoint) }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/portal/api/apps/:appId/webhook-endpoints")
      .setPath(AppPath)
      .setPayload(CreateWebhookEndpointPayload)
      .addSuccess(WebhookEndpointWithSecret, { status: 201 })
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.patch("update", "/portal/api/apps/:appId/webhook-endpoints/:endpointId")
      .setPath(endpointPath)
      .setPayload(UpdateWebhookEndpointPayload)
      .addSuccess(WebhookEndpoint)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/portal/api/apps/:appId/webhook-endpoints/:endpointId/deliveries")
      .setPath(endpointPath)
      .setUrlParams(
        Schema.Struct({ cursor: Schema.optional(DeliveryCursor), limit: Schema.optional(DeliveryPageLimit) })
      )
      .addSuccess(WebhookDeliveryPage)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.post(
      "retry",
      "/portal/api/apps/:appId/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry"
    )
      .setPath(Schema.Struct({ appId: AppId, endpointId: WebhookEndpointId, deliveryId: WebhookDeliveryId }))
      .addSuccess(WebhookDelivery)
      .addError(NotFound)
      .addError(Conflict)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
