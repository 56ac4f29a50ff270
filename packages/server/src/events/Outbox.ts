/**
 * The outbox of events out: `emit` writes the event and one pending delivery for each enabled
 * endpoint of the app that takes its type, with the caller's SQL client, so inside the caller's
 * transaction the event commits with the change it reports, or not at all. The delivery worker
 * sends what the outbox holds.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { AppId, UserId, WebhookEventData, WebhookEventType } from "@pulsebridge/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as crypto from "node:crypto"

/** A new event id: `evt_` and 32 hex digits. */
export const newEventId = (): string => `evt_${crypto.randomUUID().replaceAll("-", "")}`

export interface EmitInput<T extends WebhookEventType> {
  readonly appId: AppId | string
  /** The user the event is about: deliveries of one user reach each endpoint in order. */
  readonly userId: UserId | string | null
  readonly type: T
  readonly data: WebhookEventData<T>
  /** Only this endpoint (`webhook.test`); otherwise every enabled endpoint taking the type. */
  readonly endpointId?: string
}

export class Outbox extends Effect.Service<Outbox>()("@pulsebridge/server/Outbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const emit = <T extends WebhookEventType>(input: EmitInput<T>) =>
      Effect.gen(function*() {
        const id = newEventId()
        const now = new Date(yield* Clock.currentTimeMillis)
        const timestamp = now.toISOString()
        const payload = { type: input.type, id, timestamp, data: input.data }
        yield* sql`
          insert into webhook_events (id, app_id, user_id, type, payload, created_at)
          values (${id}, ${input.appId}, ${input.userId}, ${input.type}, ${JSON.stringify(payload)}::jsonb, ${now})
        `
        const endpointFilter = input.endpointId === undefined
          ? sql`enabled and (events is null or events @> ${JSON.stringify([input.type])}::jsonb)`
          : sql`id = ${input.endpointId}`
        yield* sql`
          insert into webhook_deliveries (id, endpoint_id, event_id, event_type, user_id, created_at, next_attempt_at)
          select gen_random_uuid(), id, ${id}, ${input.type}, ${input.userId}, ${now}, ${now}
          from webhook_endpoints where app_id = ${input.appId} and ${endpointFilter}
        `
        return id
      }).pipe(Effect.withSpan("Outbox.emit", { attributes: { type: input.type } }))

    return {
      /**
       * Records the event and its deliveries; call it inside the transaction of the change it
       * reports. Returns the event id.
       */
      emit
    } as const
  })
}) {
  /** An outbox for tests of the services that emit: it keeps each event's input in `emitted` and writes nothing. */
  static readonly Test = (emitted: Array<EmitInput<WebhookEventType>>) =>
    Layer.succeed(
      Outbox,
      Outbox.make({
        emit: <T extends WebhookEventType>(input: EmitInput<T>) =>
          Effect.sync(() => {
            emitted.push(input as unknown as EmitInput<WebhookEventType>)
            return newEventId()
          })
      })
    )
}
