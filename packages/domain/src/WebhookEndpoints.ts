/**
 * Webhook endpoints: where the app wants its events (`Webhooks.ts`), each with its signing secret,
 * and the log of deliveries to it. Managed with an API key holding `webhooks:read`/`webhooks:write`.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ApiKeyAuth } from "./Auth.js"
import { ContractString, Timestamp, UrlString, uuidId } from "./Common.js"
import { BadRequest, Conflict, Forbidden, NotFound } from "./Errors.js"
import { allWebhookEventTypes, exampleWebhookEvent, WebhookEventType } from "./Webhooks.js"

/** An endpoint or delivery id: a UUID of any case, answered in lower case. */
export const WebhookEndpointId = uuidId("WebhookEndpointId")
export type WebhookEndpointId = typeof WebhookEndpointId.Type

export const WebhookDeliveryId = uuidId("WebhookDeliveryId")
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

export const WebhookUrl = UrlString(
  "Where events are POSTed: `https://` (plain `http://` only to a loopback address in sandbox mode); in " +
    "production not an address in a private, loopback or link-local range unless the operator allows it"
)

export const WebhookEventTypes = Schema.Array(WebhookEventType).pipe(
  Schema.minItems(1, { message: () => "expected at least one event type" }),
  Schema.maxItems(allWebhookEventTypes.length * 2, { message: () => "expected at most 22 event types" })
).annotations({ description: "The event types the endpoint receives" })

export const WebhookDescription = ContractString({ maxLength: 500, freeText: true }, "A note of the app's own")

export const DeliveryStatus = Schema.Literal("Pending", "Delivered", "Failed").annotations({
  identifier: "DeliveryStatus",
  description: "`Pending` until an attempt is answered with a 2xx (`Delivered`) or the last retry fails (`Failed`)"
})

const endpointFields = {
  id: WebhookEndpointId,
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  events: Schema.Array(WebhookEventType),
  enabled: Schema.Boolean,
  disabledReason: Schema.NullOr(Schema.String).annotations({
    description: "Why the endpoint was disabled (e.g. failing for 5 days); null when enabled or disabled by the app"
  }),
  failingSince: Schema.NullOr(Timestamp).annotations({
    description: "When deliveries started failing; null while they succeed"
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}

export class WebhookEndpoint extends Schema.Class<WebhookEndpoint>("WebhookEndpoint")(endpointFields) {}

export class WebhookEndpointWithSecret extends Schema.Class<WebhookEndpointWithSecret>("WebhookEndpointWithSecret")({
  ...endpointFields,
  secret: Schema.String.annotations({
    description: "Signing secret (`whsec_...`); shown only here and by rotate-secret"
  })
}) {}

export class CreateWebhookEndpointPayload
  extends Schema.Class<CreateWebhookEndpointPayload>("CreateWebhookEndpointPayload")({
    url: WebhookUrl,
    events: Schema.optional(WebhookEventTypes.annotations({ description: "Default: every event type" })),
    description: Schema.optional(Schema.NullOr(WebhookDescription))
  })
{}

export class UpdateWebhookEndpointPayload
  extends Schema.Class<UpdateWebhookEndpointPayload>("UpdateWebhookEndpointPayload")({
    url: Schema.optional(WebhookUrl),
    events: Schema.optional(WebhookEventTypes),
    description: Schema.optional(Schema.NullOr(WebhookDescription)),
    enabled: Schema.optional(
      Schema.Boolean.annotations({
        description: "`true` re-enables a disabled endpoint; its pending deliveries resume"
      })
    )
  })
{}

export class RotatedWebhookSecret extends Schema.Class<RotatedWebhookSecret>("RotatedWebhookSecret")({
  secret: Schema.String.annotations({ description: "The new signing secret (`whsec_...`)" }),
  previousSecretExpiresAt: Timestamp.annotations({
    description: "Until then every delivery is signed with the new and the previous secret"
  })
}) {}

export class WebhookTestSent extends Schema.Class<WebhookTestSent>("WebhookTestSent")({
  eventId: Schema.String.annotations({ description: "The id of the `webhook.test` event (`evt_...`)" })
}) {}

export class WebhookDelivery extends Schema.Class<WebhookDelivery>("WebhookDelivery")({
  id: WebhookDeliveryId,
  eventId: Schema.String,
  eventType: WebhookEventType,
  status: DeliveryStatus,
  attempts: Schema.Int,
  lastStatusCode: Schema.NullOr(Schema.Int).annotations({ description: "The receiver's last HTTP status" }),
  lastError: Schema.NullOr(Schema.String).annotations({ description: "Why the last attempt failed, in short" }),
  lastAttemptAt: Schema.NullOr(Timestamp),
  nextAttemptAt: Schema.NullOr(Timestamp).annotations({ description: "When a `Pending` delivery is tried next" }),
  createdAt: Timestamp,
  completedAt: Schema.NullOr(Timestamp)
}) {}

export class WebhookDeliveryPage extends Schema.Class<WebhookDeliveryPage>("WebhookDeliveryPage")({
  data: Schema.Array(WebhookDelivery),
  nextCursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as `cursor` for the next (older) page; null on the last page"
  })
}) {}

export const DeliveryCursor = Schema.String.pipe(
  Schema.pattern(/^[1-9][0-9]{0,17}$/, { message: () => "expected a cursor returned as nextCursor" })
).annotations({ description: "The `nextCursor` of the previous page" })

export const DeliveryPageLimit = Schema.NumberFromString.pipe(
  Schema.int({ message: () => "expected an integer" }),
  Schema.between(1, 100, { message: () => "expected 1 to 100" })
).annotations({ description: "Deliveries per page, 1 to 100 (default 50)" })

const idPath = Schema.Struct({ id: WebhookEndpointId })

const eventsDescription = allWebhookEventTypes.map((type) =>
  `- \`${type}\`:\n\n  \`\`\`json\n  ${JSON.stringify(exampleWebhookEvent(type))}\n  \`\`\``
).join("\n")

export class WebhookEndpointsGroup extends HttpApiGroup.make("webhookEndpoints")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/webhook-endpoints")
      .setPayload(CreateWebhookEndpointPayload)
      .addSuccess(WebhookEndpointWithSecret, { status: 201 })
      .annotate(OpenApi.Summary, "Create a webhook endpoint")
      .annotate(
        OpenApi.Description,
        "Returns the endpoint with its signing `secret`, shown only here. `events` defaults to every type. " +
          "Needs `webhooks:write`."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/webhook-endpoints")
      .addSuccess(Schema.Array(WebhookEndpoint))
      .annotate(OpenApi.Summary, "List the app's webhook endpoints")
      .annotate(OpenApi.Description, "Oldest first. Needs `webhooks:read`.")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/webhook-endpoints/:id")
      .setPath(idPath)
      .addSuccess(WebhookEndpoint)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a webhook endpoint")
      .annotate(OpenApi.Description, "Needs `webhooks:read`.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/webhook-endpoints/:id")
      .setPath(idPath)
      .setPayload(UpdateWebhookEndpointPayload)
      .addSuccess(WebhookEndpoint)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a webhook endpoint")
      .annotate(
        OpenApi.Description,
        "Partial update. `enabled: false` stops new deliveries (those pending wait); `enabled: true` re-enables " +
          "an endpoint, also one disabled for failing, and its pending deliveries resume. Needs `webhooks:write`."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/api/v1/webhook-endpoints/:id")
      .setPath(idPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a webhook endpoint")
      .annotate(OpenApi.Description, "Its pending deliveries are dropped. Needs `webhooks:write`.")
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/api/v1/webhook-endpoints/:id/rotate-secret")
      .setPath(idPath)
      .addSuccess(RotatedWebhookSecret)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Rotate the signing secret")
      .annotate(
        OpenApi.Description,
        "Returns a new secret. For 24 hours every delivery carries two `v1,` signatures, one with each secret, so " +
          "receivers verifying with either secret keep working. Needs `webhooks:write`."
      )
  )
  .add(
    HttpApiEndpoint.post("test", "/api/v1/webhook-endpoints/:id/test")
      .setPath(idPath)
      .addSuccess(WebhookTestSent, { status: 202 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Send a webhook.test event")
      .annotate(
        OpenApi.Description,
        "Queues a `webhook.test` event to this endpoint only; 409 when the endpoint is disabled. " +
          "Needs `webhooks:write`."
      )
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/api/v1/webhook-endpoints/:id/deliveries")
      .setPath(idPath)
      .setUrlParams(
        Schema.Struct({ limit: Schema.optional(DeliveryPageLimit), cursor: Schema.optional(DeliveryCursor) })
      )
      .addSuccess(WebhookDeliveryPage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the deliveries to an endpoint")
      .annotate(
        OpenApi.Description,
        "Newest first, with each delivery's attempts, last status code and error, and next attempt. Page with " +
          "`cursor`. Needs `webhooks:read`."
      )
  )
  .add(
    HttpApiEndpoint.post("retry", "/api/v1/webhook-endpoints/:id/deliveries/:deliveryId/retry")
      .setPath(Schema.Struct({ id: WebhookEndpointId, deliveryId: WebhookDeliveryId }))
      .addSuccess(WebhookDelivery, { status: 202 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Retry a delivery now")
      .annotate(
        OpenApi.Description,
        "The delivery becomes `Pending` and is sent again at once (after the earlier pending deliveries of the " +
          "same user to this endpoint). A `Failed` delivery gets one more attempt. Needs `webhooks:write`."
      )
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(ApiKeyAuth)
  .annotate(OpenApi.Title, "Webhook endpoints")
  .annotate(
    OpenApi.Description,
    "Events out: PulseBridge POSTs a JSON event `{type, id, timestamp, data}` to each enabled endpoint taking its " +
      "type, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 " +
      "HMAC-SHA256 of id.timestamp.body>`). A 2xx within 15 s is a delivery; otherwise it is retried after about " +
      "5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then `Failed`. Deliveries of one user reach an endpoint in " +
      "order. An endpoint failing for 5 days is disabled. The events, with an example of each:\n\n" +
      eventsDescription
  )
{}
