/**
 * Every statement on `webhook_deliveries`: the claim of due deliveries (a lease, taken with
 * `for update skip locked` so two workers never claim one row, and only the oldest pending delivery
 * of each endpoint and user, so one user's events reach an endpoint in order; within the shares of
 * senders the worker gives each endpoint and app, and never to a paused endpoint), the outcome of an
 * attempt (and the attempt itself, kept in `webhook_delivery_attempts`), the log an app reads (newest first,
 * paged by `seq`, filtered by status or event type), a delivery's attempts and payload, an endpoint's last error
 * and last success, and the manual retry. `now` is always a parameter, from the caller's `Clock`, never SQL
 * `now()`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import { DeliveryStatus, WebhookEventType } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { breakerRule } from "./Breaker.js"

export class DeliveryRow extends Schema.Class<DeliveryRow>("DeliveryRow")({
  id: Schema.String,
  /** The order of deliveries (as text: a bigint), the log's cursor. */
  seq: Schema.String,
  endpointId: Schema.String,
  eventId: Schema.String,
  eventType: WebhookEventType,
  status: DeliveryStatus,
  attempts: Schema.Int,
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  lastAttemptAt: Schema.NullOr(Schema.DateFromSelf),
  nextAttemptAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  completedAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

/** One attempt of a delivery: when, the receiver's status code (none without an answer), and why it failed. */
export class AttemptRow extends Schema.Class<AttemptRow>("AttemptRow")({
  deliveryId: Schema.String,
  eventType: WebhookEventType,
  attemptedAt: Schema.DateFromSelf,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String)
}) {}

/** What the log keeps: deliveries of one status, of one event type, or both. */
export interface DeliveryFilters {
  readonly status?: typeof DeliveryStatus.Type | undefined
  readonly eventType?: WebhookEventType | undefined
}

/** A claimed delivery: what its attempt sends. */
export const ClaimedDelivery = Schema.Struct({
  id: Schema.String,
  endpointId: Schema.String,
  appId: Schema.String,
  eventId: Schema.String,
  attempts: Schema.Int,
  body: Schema.String
})
export type ClaimedDelivery = typeof ClaimedDelivery.Type

/** What one claim may take: the worker's free senders, and what each endpoint and app may still have. */
export interface ClaimLimits {
  /** Deliveries leased at most. */
  readonly limit: number
  /** Attempts one endpoint may have under way at once (one only after a pause, `Breaker.ts`). */
  readonly perEndpoint: number
  /** Attempts one app may have under way at once. */
  readonly perApp: number
  /** The worker's attempts under way, by endpoint id and by app id. */
  readonly busyEndpoints: Readonly<Record<string, number>>
  readonly busyApps: Readonly<Record<string, number>>
}

/** Due rows a claim looks at, at most: enough to find some of another app behind one app's full share. */
const scanLimit = 100

export type Outcome =
  | { readonly _tag: "Delivered"; readonly statusCode: number }
  | {
    readonly _tag: "Failed"
    readonly statusCode: number | null
    readonly error: string
    /** When to try again; `null`: the last attempt failed, the delivery is `Failed`. */
    readonly nextAttemptAt: Date | null
  }

export class DeliveriesRepo extends Effect.Service<DeliveriesRepo>()("@pulsebridge/server/DeliveriesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const deliveryColumns = sql.literal(
      "d.id, d.seq::text as seq, d.endpoint_id, d.event_id, e.type as event_type, d.status, d.attempts, " +
        "d.last_status_code, d.last_error, d.last_attempt_at, d.next_attempt_at, d.created_at, d.completed_at"
    )

    const claimIds = (now: Date, leaseUntil: Date, limits: ClaimLimits) => {
      const endpointRoom = sql`
        case when ep.failure_streak >= ${breakerRule.threshold} then 1 else ${limits.perEndpoint}::int end
          - coalesce((${JSON.stringify(limits.busyEndpoints)}::jsonb ->> d.endpoint_id::text)::int, 0)
      `
      const appRoom = sql`
        ${limits.perApp}::int - coalesce((${JSON.stringify(limits.busyApps)}::jsonb ->> ep.app_id::text)::int, 0)
      `
      return sql<{ id: string }>`
        with due as (
          select d.id, d.seq, d.endpoint_id, ep.app_id, ${endpointRoom} as endpoint_room, ${appRoom} as app_room
          from webhook_deliveries d
          join webhook_endpoints ep on ep.id = d.endpoint_id
          where d.status = 'Pending' and ep.enabled
            and d.next_attempt_at <= ${now}
            and (d.lease_until is null or d.lease_until < ${now})
            and (ep.paused_until is null or ep.paused_until <= ${now})
            and ${endpointRoom} > 0
            and ${appRoom} > 0
            and not exists (
              select 1 from webhook_deliveries earlier
              where earlier.endpoint_id = d.endpoint_id
                and earlier.user_id is not distinct from d.user_id
                and earlier.status = 'Pending'
                and earlier.seq < d.seq
            )
          order by d.seq
          limit ${scanLimit}
          for update of d skip locked
        ),
        within_endpoint as (
          select id, seq, app_id, app_room,
            row_number() over (partition by endpoint_id order by seq) <= endpoint_room as fits
          from due
        ),
        within_app as (
          select id, seq, row_number() over (partition by app_id order by seq) <= app_room as fits
          from within_endpoint where fits
        ),
        chosen as (
          select id from within_app where fits order by seq limit ${limits.limit}
        )
        update webhook_deliveries w set lease_until = ${leaseUntil}
        from chosen where w.id = chosen.id
        returning w.id
      `
    }

    const claimedRows = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: ClaimedDelivery,
      execute: (ids) =>
        sql`
          select d.id, d.endpoint_id, ep.app_id, d.event_id, d.attempts, e.payload::text as body
          from webhook_deliveries d
          join webhook_events e on e.id = d.event_id
          join webhook_endpoints ep on ep.id = d.endpoint_id
          where ${sql.in("d.id", ids)}
          order by d.seq
        `
    })

    /**
     * Leases due deliveries until `leaseUntil`, oldest first, as many as `limits` allow: pending, due by
     * `now`, not leased (or the lease has run out: the worker holding it died), the oldest pending one of
     * its endpoint and user, to an endpoint that is not paused, and within what its endpoint and app may
     * still have under way. A lease that runs out sends the delivery again: at least once.
     */
    const claimDue = (now: Date, leaseUntil: Date, limits: ClaimLimits) =>
      Effect.gen(function*() {
        const claimed = yield* sql.withTransaction(claimIds(now, leaseUntil, limits))
        return claimed.length === 0 ? [] : yield* claimedRows(claimed.map((row) => row.id))
      })

    /** The attempt of `updated` (a statement answering the delivery's id and endpoint), kept with its outcome. */
    const keepAttempt = (
      updated: Statement.Statement<unknown>,
      now: Date,
      statusCode: number | null,
      error: string | null
    ) =>
      Effect.map(
        sql<{ id: string }>`
          with updated as (${updated})
          insert into webhook_delivery_attempts (delivery_id, endpoint_id, attempted_at, status_code, error)
          select id, endpoint_id, ${now}, ${statusCode}, ${error} from updated
          returning delivery_id as id
        `,
        (rows) => rows.length > 0
      )

    /**
     * Records an attempt's outcome on the delivery, and the attempt itself; answers false when the delivery is no
     * longer pending (deleted, or done), and keeps no attempt then.
     */
    const record = (id: string, now: Date, outcome: Outcome) =>
      outcome._tag === "Delivered"
        ? keepAttempt(
          sql`
            update webhook_deliveries set status = 'Delivered', attempts = attempts + 1,
              last_status_code = ${outcome.statusCode}, last_error = null, last_attempt_at = ${now},
              next_attempt_at = null, lease_until = null, completed_at = ${now}
            where id = ${id} and status = 'Pending'
            returning id, endpoint_id
          `,
          now,
          outcome.statusCode,
          null
        )
        : keepAttempt(
          sql`
            update webhook_deliveries set
              status = ${outcome.nextAttemptAt === null ? "Failed" : "Pending"},
              attempts = attempts + 1,
              last_status_code = ${outcome.statusCode}, last_error = ${outcome.error}, last_attempt_at = ${now},
              next_attempt_at = ${outcome.nextAttemptAt}, lease_until = null,
              completed_at = ${outcome.nextAttemptAt === null ? now : null}
            where id = ${id} and status = 'Pending'
            returning id, endpoint_id
          `,
          now,
          outcome.statusCode,
          outcome.error
        )

    /**
     * A page of the log, newest first, before the cursor `before`. A filter reads its own index (`endpoint_id`
     * with `status` or `event_type`, then `seq`), so a page of a rare status or type never walks the rest.
     */
    const page = (endpointId: string, limit: number, before: string | undefined, filters: DeliveryFilters = {}) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: DeliveryRow,
        execute: () =>
          sql`
            select ${deliveryColumns}
            from webhook_deliveries d join webhook_events e on e.id = d.event_id
            where d.endpoint_id = ${endpointId}
              ${before === undefined ? sql.literal("") : sql`and d.seq < ${before}::bigint`}
              ${filters.status === undefined ? sql.literal("") : sql`and d.status = ${filters.status}`}
              ${filters.eventType === undefined ? sql.literal("") : sql`and d.event_type = ${filters.eventType}`}
            order by d.seq desc
            limit ${limit}
          `
      })(undefined)

    /** The attempts of a delivery, oldest first. */
    const attemptsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: AttemptRow,
      execute: (deliveryId) =>
        sql`
          select a.delivery_id, e.type as event_type, a.attempted_at, a.status_code, a.error
          from webhook_delivery_attempts a
          join webhook_deliveries d on d.id = a.delivery_id
          join webhook_events e on e.id = d.event_id
          where a.delivery_id = ${deliveryId}
          order by a.id
        `
    })

    /** The event a delivery sends, as stored (the body of each attempt). */
    const payloadOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ payload: Schema.Unknown }),
      execute: (deliveryId) =>
        sql`
          select e.payload from webhook_deliveries d join webhook_events e on e.id = d.event_id
          where d.id = ${deliveryId}
        `
    })

    /**
     * The endpoint's latest failed and latest successful attempt (one index probe each, whatever waits unattempted
     * in the log), its deliveries waiting (counted from the pending deliveries' index), and until when the circuit
     * breaker pauses it (`Breaker.ts`).
     */
    const health = (endpointId: string) =>
      Effect.gen(function*() {
        const latest = (failed: boolean) =>
          SqlSchema.findAll({
            Request: Schema.Void,
            Result: AttemptRow,
            execute: () =>
              sql`
                select a.delivery_id, e.type as event_type, a.attempted_at, a.status_code, a.error
                from (
                  select delivery_id, attempted_at, status_code, error from webhook_delivery_attempts
                  where endpoint_id = ${endpointId} and ${sql.literal(failed ? "error is not null" : "error is null")}
                  order by attempted_at desc
                  limit 1
                ) a
                join webhook_deliveries d on d.id = a.delivery_id
                join webhook_events e on e.id = d.event_id
              `
          })(undefined).pipe(Effect.map((rows) => rows[0] ?? null))
        const [lastError, lastSuccess, counted] = yield* Effect.all([
          latest(true),
          latest(false),
          sql<{ pending: number; pausedUntil: Date | null }>`
            select
              (select count(*)::int from webhook_deliveries where endpoint_id = ${endpointId} and status = 'Pending')
                as pending,
              (select paused_until from webhook_endpoints where id = ${endpointId}) as paused_until
          `
        ])
        return {
          lastError,
          lastSuccess,
          pending: counted[0]?.pending ?? 0,
          pausedUntil: counted[0]?.pausedUntil ?? null
        }
      })

    const find = SqlSchema.findOne({
      Request: Schema.Struct({ endpointId: Schema.String, id: Schema.String }),
      Result: DeliveryRow,
      execute: ({ endpointId, id }) =>
        sql`
          select ${deliveryColumns}
          from webhook_deliveries d join webhook_events e on e.id = d.event_id
          where d.id = ${id} and d.endpoint_id = ${endpointId}
        `
    })

    /**
     * Makes the delivery pending and due at `now`. `attempts` keeps counting, so one that had all its
     * attempts gets one more (failing, it is `Failed` again); one still pending keeps its schedule.
     */
    const retryNow = (endpointId: string, id: string, now: Date) =>
      Effect.map(
        sql<{ id: string }>`
          update webhook_deliveries set status = 'Pending', next_attempt_at = ${now}, completed_at = null
          where id = ${id} and endpoint_id = ${endpointId}
          returning id
        `,
        (rows) => rows.length > 0
      )

    return { claimDue, record, page, find, retryNow, attemptsOf, payloadOf, health } as const
  })
}) {}

/** Attempts in all: the first and seven retries. */
export const maxAttempts = 8
