/**
 * Handlers of the webhook endpoints group. The service's errors become the contract's here: an
 * unknown endpoint or delivery (another app's included) is a 404, a refused URL a 400, a test to a
 * disabled endpoint a 409.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import { Api, BadRequest, Conflict, NotFound, WebhookEndpointWithSecret } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ApiKeyAuthLive, requirePermission } from "../access/ApiKeyAuth.js"
import { onlyServices } from "../platform/GroupContext.js"
import type { DeliveryNotFound, EndpointDisabled, EndpointNotFound, UrlRefused } from "./Endpoints.js"
import { Endpoints } from "./Endpoints.js"

const notFound = (error: EndpointNotFound | DeliveryNotFound) => Effect.fail(new NotFound({ message: error.message }))

const badRequest = (error: UrlRefused) => Effect.fail(new BadRequest({ message: error.message }))

const conflict = (error: EndpointDisabled) => Effect.fail(new Conflict({ message: error.message }))

const webhookEndpointsGroup = HttpApiBuilder.group(
  Api,
  "webhookEndpoints",
  (handlers) =>
    Effect.gen(function*() {
      const endpoints = yield* Endpoints
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const app = yield* requirePermission("webhooks:write")
            const { endpoint, secret } = yield* endpoints.create(app.appId, payload).pipe(
              Effect.catchTags({ UrlRefused: badRequest })
            )
            return new WebhookEndpointWithSecret({ ...endpoint, secret })
          }))
        .handle("list", () => Effect.flatMap(requirePermission("webhooks:read"), (app) => endpoints.list(app.appId)))
        .handle(
          "get",
          ({ path }) =>
            Effect.flatMap(requirePermission("webhooks:read"), (app) =>
              endpoints.get(app.appId, path.id).pipe(Effect.catchTags({ EndpointNotFound: notFound })))
        )
        .handle(
          "update",
          ({ path, payload }) =>
            Effect.flatMap(requirePermission("webhooks:write"), (app) =>
              endpoints.update(app.appId, path.id, payload).pipe(
                Effect.catchTags({ EndpointNotFound: notFound, UrlRefused: badRequest })
              ))
        )
        .handle(
          "delete",
          ({ path }) =>
            Effect.flatMap(requirePermission("webhooks:write"), (app) =>
              endpoints.remove(app.appId, path.id).pipe(Effect.catchTags({ EndpointNotFound: notFound })))
        )
        .handle(
          "rotateSecret",
          ({ path }) =>
            Effect.flatMap(requirePermission("webhooks:write"), (app) =>
              endpoints.rotateSecret(app.appId, path.id).pipe(Effect.catchTags({ EndpointNotFound: notFound })))
        )
        .handle(
          "test",
          ({ path }) =>
            Effect.flatMap(requirePermission("webhooks:write"), (app) =>
              endpoints.sendTest(app.appId, path.id).pipe(
                Effect.map((eventId) => ({ eventId })),
                Effect.catchTags({ EndpointNotFound: notFound, EndpointDisabled: conflict })
              ))
        )
        .handle(
          "deliveries",
          ({ path, urlParams }) =>
            Effect.flatMap(requirePermission("webhooks:read"), (app) =>
              endpoints.deliveries(app.appId, path.id, urlParams.limit, urlParams.cursor).pipe(
                Effect.catchTags({ EndpointNotFound: notFound })
              ))
        )
        .handle(
          "retry",
          ({ path }) =>
            Effect.flatMap(requirePermission("webhooks:write"), (app) =>
              endpoints.retry(app.appId, path.id, path.deliveryId).pipe(
                Effect.catchTags({ EndpointNotFound: notFound, DeliveryNotFound: notFound })
              ))
        )
    })
).pipe(Layer.provide(ApiKeyAuthLive))

/** The group built on only the services it takes (`GroupContext.ts`). */
export const WebhookEndpointsHttpLive = onlyServices([SqlClient.SqlClient, Endpoints], webhookEndpointsGroup)
