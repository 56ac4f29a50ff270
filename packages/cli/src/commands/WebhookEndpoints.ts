/**
 * `pulsebridge webhook-endpoints`: create, list and delete an app's webhook endpoints, printing
 * them as the API's JSON has them; `create` prints the signing secret, shown only then.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { CreateWebhookEndpointPayload, WebhookEndpoint, WebhookEndpointId } from "@pulsebridge/domain"
import { Endpoints } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { printResult } from "../Output.js"
import { appId, decodeInput, given, json } from "./Options.js"
import { requireApp, withServices } from "./Runtime.js"

/** The endpoint as the API's JSON has it. */
const endpointJson = (endpoint: WebhookEndpoint) => Schema.encode(WebhookEndpoint)(endpoint).pipe(Effect.orDie)

const endpointText = (endpoint: typeof WebhookEndpoint.Encoded) =>
  [
    `Webhook endpoint ${endpoint.id} (${endpoint.enabled ? "enabled" : "disabled"})`,
    `  url:       ${endpoint.url}`,
    `  events:    ${endpoint.events.join(", ")}`,
    ...(endpoint.description === null ? [] : [`  note:      ${endpoint.description}`]),
    ...(endpoint.disabledReason === null ? [] : [`  disabled:  ${endpoint.disabledReason}`]),
    ...(endpoint.failingSince === null ? [] : [`  failing since ${endpoint.failingSince}`]),
    `  createdAt: ${endpoint.createdAt}`
  ].join("\n")

const endpointId = Args.text({ name: "ENDPOINT_ID" }).pipe(Args.withDescription("Id of the webhook endpoint"))

const create = Command.make(
  "create",
  {
    app: appId,
    url: Options.text("url").pipe(Options.withDescription("Where events are POSTed (https://...)")),
    events: Options.text("events").pipe(
      Options.optional,
      Options.withDescription("Comma-separated event types, e.g. data.updated,scores.updated (default: all)")
    ),
    description: Options.text("description").pipe(Options.optional, Options.withDescription("A note of your own")),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const id = yield* requireApp(args.app)
      const payload = yield* decodeInput(
        CreateWebhookEndpointPayload,
        given({
          url: args.url,
          events: Option.getOrUndefined(Option.map(args.events, (text) => text.split(",").map((t) => t.trim()))),
          description: Option.getOrUndefined(args.description)
        })
      )
      const { endpoint, secret } = yield* Effect.flatMap(Endpoints, (endpoints) => endpoints.create(id, payload))
      const encoded = yield* endpointJson(endpoint)
      yield* printResult(
        args.json,
        { ...encoded, secret },
        () =>
          [
            "Created webhook endpoint:",
            endpointText(encoded),
            "Its signing secret is shown only this once; keep it:",
            `  ${secret}`
          ].join("\n")
      )
    }).pipe(withServices(args.json))
).pipe(Command.withDescription("Create a webhook endpoint and print its signing secret"))

const list = Command.make("list", { app: appId, json }, ({ app, json }) =>
  Effect.gen(function*() {
    const id = yield* requireApp(app)
    const endpoints = yield* Effect.flatMap(Endpoints, (endpoints) => endpoints.list(id))
    const encoded = yield* Effect.forEach(endpoints, endpointJson)
    yield* printResult(
      json,
      { endpoints: encoded },
      () => encoded.length === 0 ? "No webhook endpoints." : encoded.map(endpointText).join("\n")
    )
  }).pipe(withServices(json))).pipe(Command.withDescription("List the app's webhook endpoints"))

const remove = Command.make(
  "delete",
  { app: appId, id: endpointId, json },
  ({ app, id, json }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      const endpoint = yield* decodeInput(WebhookEndpointId, id)
      yield* Effect.flatMap(Endpoints, (endpoints) => endpoints.remove(appId, endpoint))
      yield* printResult(json, { id: endpoint, deleted: true }, () => `Webhook endpoint ${endpoint} is deleted.`)
    }).pipe(withServices(json))
).pipe(
  Command.withDescription("Delete a webhook endpoint; its pending deliveries are dropped")
)

export const webhookEndpoints = Command.make("webhook-endpoints").pipe(
  Command.withDescription("Manage the webhook endpoints of an app"),
  Command.withSubcommands([create, list, remove])
)
