/**
 * The rules of webhook endpoints: which URLs may receive events (`Addresses.ts`), the signing secret
 * (made here, shown once, stored sealed; a rotation keeps the previous one signing for 24 hours),
 * the `webhook.test` event, the deliveries log (filtered by status or event type) with each delivery's
 * payload and attempts, the endpoint's last error and last success, and the manual retry. Every method is
 * scoped by the app, so another app's endpoint is unknown here.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type {
  AppId,
  CreateWebhookEndpointPayload,
  UpdateWebhookEndpointPayload,
  WebhookDeliveryId,
  WebhookEndpointId,
  WebhookEventType
} from "@pulsebridge/domain"
import { allWebhookEventTypes, WebhookDelivery, WebhookEndpoint } from "@pulsebridge/domain"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as net from "node:net"
import { newId } from "../platform/Ids.js"
import { SecretBox } from "../platform/SecretBox.js"
import { ServerConfig } from "../platform/ServerConfig.js"
import { traced } from "../platform/Traced.js"
import type { AddressRules } from "./Addresses.js"
import { isInternalAddress, mustRefuseInternal, resolveHost, unbracket, urlProblem } from "./Addresses.js"
import type { AttemptRow, DeliveryFilters, DeliveryRow } from "./DeliveriesRepo.js"
import { DeliveriesRepo } from "./DeliveriesRepo.js"
import type { EndpointRow } from "./EndpointsRepo.js"
import { EndpointsRepo } from "./EndpointsRepo.js"
import { Outbox } from "./Outbox.js"
import { generateSigningSecret, previousSecretOverlapMs } from "./Signing.js"

/** The app has no endpoint with this id. */
export class EndpointNotFound extends Data.TaggedError("EndpointNotFound")<{ readonly endpointId: string }> {
  override get message() {
    return `no webhook endpoint with id ${this.endpointId}`
  }
}

/** The endpoint has no delivery with this id. */
export class DeliveryNotFound extends Data.TaggedError("DeliveryNotFound")<{ readonly deliveryId: string }> {
  override get message() {
    return `no delivery with id ${this.deliveryId} to this endpoint`
  }
}

/** The URL may not receive webhooks (scheme, form, or an internal address). */
export class UrlRefused extends Data.TaggedError("UrlRefused")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/** A disabled endpoint gets no events, tests included. */
export class EndpointDisabled extends Data.TaggedError("EndpointDisabled")<{ readonly endpointId: string }> {
  override get message() {
    return "the endpoint is disabled; enable it with PATCH {\"enabled\": true} first"
  }
}

/** How long the name of a new endpoint's host may take to resolve (while the address guard is on). */
const resolveTimeout = "5 seconds"

/** The default page of the deliveries log. */
export const defaultPageSize = 50

export const toEndpoint = (row: EndpointRow) =>
  new WebhookEndpoint({
    id: row.id as WebhookEndpointId,
    url: row.url,
    description: row.description,
    events: row.events ?? allWebhookEventTypes,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

export const toDelivery = (row: DeliveryRow) =>
  new WebhookDelivery({
    id: row.id as WebhookDeliveryId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    lastAttemptAt: row.lastAttemptAt,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
    completedAt: row.completedAt
  })

/** An attempt of a delivery, as the portal shows it. */
export const toAttempt = (row: AttemptRow) => ({
  deliveryId: row.deliveryId as WebhookDeliveryId,
  eventType: row.eventType,
  attemptedAt: row.attemptedAt,
  statusCode: row.statusCode,
  error: row.error
})

/** Every type once, in the contract's order; every type is stored as "all" (null), which takes new types too. */
const normaliseEvents = (events: ReadonlyArray<WebhookEventType>): ReadonlyArray<WebhookEventType> | null => {
  const chosen = allWebhookEventTypes.filter((type) => events.includes(type))
  return chosen.length === allWebhookEventTypes.length ? null : chosen
}

export class Endpoints extends Effect.Service<Endpoints>()("@pulsebridge/server/Endpoints", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* ServerConfig
    const box = yield* SecretBox
    const endpoints = yield* EndpointsRepo
    const deliveries = yield* DeliveriesRepo
    const outbox = yield* Outbox
    const rules: AddressRules = { sandbox: config.sandbox, allowPrivate: config.webhookAllowPrivate }
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /**
     * The URL's form and, while the address guard is on, the addresses its host resolves to now. A name that
     * does not resolve (yet, or not from here) is accepted: every delivery checks the address it connects to.
     */
    const checkUrl = (url: string) =>
      Effect.gen(function*() {
        const problem = urlProblem(url, rules)
        if (problem !== undefined) return yield* new UrlRefused({ reason: problem })
        const host = unbracket(new URL(url).hostname)
        if (!mustRefuseInternal(rules) || net.isIP(host) !== 0) return
        const addresses = yield* Effect.tryPromise(() => resolveHost(host)).pipe(
          Effect.timeout(resolveTimeout),
          Effect.orElseSucceed((): ReadonlyArray<string> => [])
        )
        if (addresses.some(isInternalAddress)) {
          // Which address is not said: what the server's own DNS answers for an internal name is not the app's to learn.
          return yield* new UrlRefused({
            reason: `url's host ${host} resolves to a private, loopback or link-local address`
          })
        }
      })

    const requireEndpoint = (appId: AppId, id: string) =>
      Effect.flatMap(
        endpoints.find({ appId, id }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die })),
        Option.match({ onNone: () => Effect.fail(new EndpointNotFound({ endpointId: id })), onSome: Effect.succeed })
      )

    return {
      create: traced("Endpoints.create")(function*(appId: AppId, payload: CreateWebhookEndpointPayload) {
        yield* checkUrl(payload.url)
        const secret = generateSigningSecret()
        const row = yield* endpoints.insert({
          id: newId(),
          appId,
          url: payload.url,
          description: payload.description ?? null,
          events: payload.events === undefined ? null : normaliseEvents(payload.events),
          secretSealed: box.seal(secret),
          now: yield* now
        }).pipe(Effect.orDie)
        return { endpoint: toEndpoint(row), secret }
      }),

      list: traced("Endpoints.list")(function*(appId: AppId) {
        const rows = yield* Effect.orDie(endpoints.listOfApp(appId))
        return rows.map(toEndpoint)
      }),

      get: traced("Endpoints.get")(function*(appId: AppId, id: WebhookEndpointId) {
        return toEndpoint(yield* requireEndpoint(appId, id))
      }),

      update: traced("Endpoints.update")(
        function*(appId: AppId, id: WebhookEndpointId, payload: UpdateWebhookEndpointPayload) {
          // An unknown endpoint is a 404 whatever its body says.
          yield* requireEndpoint(appId, id)
          if (payload.url !== undefined) yield* checkUrl(payload.url)
          const row = yield* endpoints.update(appId, id, {
            url: payload.url,
            description: payload.description,
            events: payload.events === undefined ? undefined : normaliseEvents(payload.events),
            enabled: payload.enabled
          }, yield* now)
          if (Option.isNone(row)) return yield* new EndpointNotFound({ endpointId: id })
          return toEndpoint(row.value)
        },
        Effect.catchTag("SqlError", "ParseError", Effect.die)
      ),

      remove: traced("Endpoints.remove")(function*(appId: AppId, id: WebhookEndpointId) {
        const removed = yield* Effect.orDie(endpoints.remove(appId, id))
        if (!removed) return yield* new EndpointNotFound({ endpointId: id })
      }),

      /** A new secret; the previous one keeps signing for 24 hours. */
      rotateSecret: traced("Endpoints.rotateSecret")(function*(appId: AppId, id: WebhookEndpointId) {
        const at = yield* now
        const secret = generateSigningSecret()
        const previousSecretExpiresAt = new Date(at.getTime() + previousSecretOverlapMs)
        const rotated = yield* Effect.orDie(
          endpoints.rotateSecret(appId, id, box.seal(secret), previousSecretExpiresAt, at)
        )
        if (!rotated) return yield* new EndpointNotFound({ endpointId: id })
        return { secret, previousSecretExpiresAt }
      }),

      /** Queues a `webhook.test` event to this endpoint only. */
      sendTest: traced("Endpoints.sendTest")(
        function*(appId: AppId, id: WebhookEndpointId) {
          const endpoint = yield* requireEndpoint(appId, id)
          if (!endpoint.enabled) return yield* new EndpointDisabled({ endpointId: id })
          return yield* outbox.emit({
            appId,
            userId: null,
            type: "webhook.test",
            data: { endpointId: id, message: "This is a test event from PulseBridge" },
            endpointId: id
          })
        },
        (effect) => sql.withTransaction(effect),
        Effect.catchTag("SqlError", Effect.die)
      ),

      /** The endpoint's deliveries, newest first, `limit` at a time from before `cursor`, those `filters` keep. */
      deliveries: traced("Endpoints.deliveries")(
        function*(
          appId: AppId,
          id: WebhookEndpointId,
          limit: number | undefined,
          cursor: string | undefined,
          filters: DeliveryFilters = {}
        ) {
          yield* requireEndpoint(appId, id)
          const size = limit ?? defaultPageSize
          // One more than the page tells whether another page follows.
          const rows = yield* deliveries.page(id, size + 1, cursor, filters)
          const page = rows.slice(0, size)
          return {
            data: page.map(toDelivery),
            nextCursor: rows.length > size ? page[page.length - 1]!.seq : null
          }
        },
        Effect.catchTag("SqlError", "ParseError", Effect.die)
      ),

      /** One delivery with the event it sends and each of its attempts, oldest first. */
      delivery: traced("Endpoints.delivery")(
        function*(appId: AppId, id: WebhookEndpointId, deliveryId: WebhookDeliveryId) {
          yield* requireEndpoint(appId, id)
          const row = yield* deliveries.find({ endpointId: id, id: deliveryId })
          if (Option.isNone(row)) return yield* new DeliveryNotFound({ deliveryId })
          const payload = yield* deliveries.payloadOf(deliveryId)
          const attempts = yield* deliveries.attemptsOf(deliveryId)
          return {
            delivery: toDelivery(row.value),
            payload: Option.match(payload, { onNone: () => null, onSome: (found) => found.payload }),
            attempts: attempts.map(toAttempt)
          }
        },
        Effect.catchTag("SqlError", "ParseError", Effect.die)
      ),

      /**
       * How the endpoint fares: its latest failed and successful attempts (whatever waits unattempted in its log),
       * its deliveries waiting, and until when it is paused after failures in a row.
       */
      health: traced("Endpoints.health")(
        function*(appId: AppId, id: WebhookEndpointId) {
          const endpoint = toEndpoint(yield* requireEndpoint(appId, id))
          const health = yield* deliveries.health(id)
          return {
            endpoint,
            lastError: health.lastError === null ? null : toAttempt(health.lastError),
            lastSuccess: health.lastSuccess === null ? null : toAttempt(health.lastSuccess),
            pending: health.pending,
            pausedUntil: health.pausedUntil
          }
        },
        Effect.catchTag("SqlError", "ParseError", Effect.die)
      ),

      /** Sends the delivery again at once (after the earlier pending ones of its user to this endpoint). */
      retry: traced("Endpoints.retry")(
        function*(appId: AppId, id: WebhookEndpointId, deliveryId: WebhookDeliveryId) {
          yield* requireEndpoint(appId, id)
          const retried = yield* deliveries.retryNow(id, deliveryId, yield* now)
          if (!retried) return yield* new DeliveryNotFound({ deliveryId })
          const row = yield* deliveries.find({ endpointId: id, id: deliveryId })
          if (Option.isNone(row)) return yield* new DeliveryNotFound({ deliveryId })
          return toDelivery(row.value)
        },
        Effect.catchTag("SqlError", "ParseError", Effect.die)
      )
    } as const
  }),
  dependencies: [EndpointsRepo.Default, DeliveriesRepo.Default]
}) {}
