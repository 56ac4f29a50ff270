/**
 * The webhook endpoints of an app and their deliveries (the same service as `/api/v1/webhook-endpoints`): an
 * endpoint with its last error and last success, the log filtered by status and event type, each delivery with
 * its payload and attempts, and the public routes' changes (test event, secret rotation, removal).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  AppId,
  BadRequest,
  Conflict,
  CreateWebhookEndpointPayload,
  DeliveryCursor,
  DeliveryPageLimit,
  DeliveryStatus,
  NotFound,
  RotatedWebhookSecret,
  Timestamp,
  UpdateWebhookEndpointPayload,
  WebhookDelivery,
  WebhookDeliveryId,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpointWithSecret,
  WebhookEventType,
  WebhookTestSent
} from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { AppPath } from "./Apps.js"
import { PortalAuth } from "./Session.js"

const endpointPath = Schema.Struct({ appId: AppId, endpointId: WebhookEndpointId })
const deliveryPath = Schema.Struct({ appId: AppId, endpointId: WebhookEndpointId, deliveryId: WebhookDeliveryId })

/** One attempt of a delivery: when, the receiver's status code (null when none answered), and why it failed. */
export class DeliveryAttempt extends Schema.Class<DeliveryAttempt>("DeliveryAttempt")({
  deliveryId: WebhookDeliveryId,
  eventType: WebhookEventType,
  attemptedAt: Timestamp,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String).annotations({ description: "Null when the attempt was delivered" })
}) {}

/** An endpoint and how it fares, whatever the first page of its log holds. */
export class EndpointDetail extends Schema.Class<EndpointDetail>("EndpointDetail")({
  endpoint: WebhookEndpoint,
  lastError: Schema.NullOr(DeliveryAttempt).annotations({ description: "Its latest failed attempt" }),
  lastSuccess: Schema.NullOr(DeliveryAttempt).annotations({ description: "Its latest delivered attempt" }),
  pending: Schema.Int.annotations({ description: "Its deliveries waiting to be sent or retried" }),
  pausedUntil: Schema.NullOr(Timestamp).annotations({
    description: "Until when the circuit breaker holds its deliveries after failures in a row"
  })
}) {}

/** A delivery with the event it sends and its attempts, oldest first. */
export class DeliveryDetail extends Schema.Class<DeliveryDetail>("DeliveryDetail")({
  delivery: WebhookDelivery,
  payload: Schema.Unknown.annotations({ description: "The event, the body of every attempt" }),
  attempts: Schema.Array(DeliveryAttempt)
}) {}

/** The log's filters, with its paging. */
export const DeliveryFilters = Schema.Struct({
  status: Schema.optional(DeliveryStatus),
  eventType: Schema.optional(WebhookEventType),
  cursor: Schema.optional(DeliveryCursor),
  limit: Schema.optional(DeliveryPageLimit)
})

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
    HttpApiEndpoint.get("get", "/portal/api/apps/:appId/webhook-endpoints/:endpointId")
      .setPath(endpointPath)
      .addSuccess(EndpointDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("delete", "/portal/api/apps/:appId/webhook-endpoints/:endpointId")
      .setPath(endpointPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/portal/api/apps/:appId/webhook-endpoints/:endpointId/rotate-secret")
      .setPath(endpointPath)
      .addSuccess(RotatedWebhookSecret)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("test", "/portal/api/apps/:appId/webhook-endpoints/:endpointId/test")
      .setPath(endpointPath)
      .addSuccess(WebhookTestSent, { status: 202 })
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/portal/api/apps/:appId/webhook-endpoints/:endpointId/deliveries")
      .setPath(endpointPath)
      .setUrlParams(DeliveryFilters)
      .addSuccess(WebhookDeliveryPage)
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get(
      "delivery",
      "/portal/api/apps/:appId/webhook-endpoints/:endpointId/deliveries/:deliveryId"
    )
      .setPath(deliveryPath)
      .addSuccess(DeliveryDetail)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post(
      "retry",
      "/portal/api/apps/:appId/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry"
    )
      .setPath(deliveryPath)
      .addSuccess(WebhookDelivery)
      .addError(NotFound)
      .addError(Conflict)
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
