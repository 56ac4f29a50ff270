/**
 * Every statement on `webhook_endpoints`: the app's endpoints (each statement scoped by app id, so
 * an app never reaches another's), their sealed secrets, and the failure bookkeeping the delivery
 * keeps (`failing_since`, disabling, the circuit breaker of `Breaker.ts`). Secrets arrive here sealed
 * and leave sealed.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { WebhookEventType } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { breakerRule } from "./Breaker.js"

export class EndpointRow extends Schema.Class<EndpointRow>("EndpointRow")({
  id: Schema.String,
  appId: Schema.String,
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  events: Schema.NullOr(Schema.Array(WebhookEventType)),
  enabled: Schema.Boolean,
  disabledReason: Schema.NullOr(Schema.String),
  failingSince: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

/** The sealed secrets an attempt signs with. */
export const EndpointSecrets = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  enabled: Schema.Boolean,
  secretSealed: Schema.String,
  previousSecretSealed: Schema.NullOr(Schema.String),
  previousSecretExpiresAt: Schema.NullOr(Schema.DateFromSelf),
  failingSince: Schema.NullOr(Schema.DateFromSelf)
})
export type EndpointSecrets = typeof EndpointSecrets.Type

export interface NewEndpoint {
  readonly id: string
  readonly appId: string
  readonly url: string
  readonly description: string | null
  readonly events: ReadonlyArray<WebhookEventType> | null
  readonly secretSealed: string
  readonly now: Date
}

export interface EndpointChanges {
  readonly url?: string | undefined
  readonly description?: string | null | undefined
  readonly events?: ReadonlyArray<WebhookEventType> | null | undefined
  readonly enabled?: boolean | undefined
}

const columns = "id, app_id, url, description, events, enabled, disabled_reason, failing_since, created_at, updated_at"

const Scoped = Schema.Struct({ appId: Schema.String, id: Schema.String })

export class EndpointsRepo extends Effect.Service<EndpointsRepo>()("@pulsebridge/server/EndpointsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const selected = sql.literal(columns)

    const insert = SqlSchema.single({
      Request: Schema.Any,
      Result: EndpointRow,
      execute: (row: NewEndpoint) =>
        sql`
          insert into webhook_endpoints
            (id, app_id, url, description, events, secret_sealed, created_at, updated_at)
          values (${row.id}, ${row.appId}, ${row.url}, ${row.description},
            ${
          row.events === null ? null : JSON.stringify(row.events)
        }::jsonb, ${row.secretSealed}, ${row.now}, ${row.now})
          returning ${selected}
        `
    })

    const listOfApp = SqlSchema.findAll({
      Request: Schema.String,
      Result: EndpointRow,
      execute: (appId) => sql`select ${selected} from webhook_endpoints where app_id = ${appId} order by created_at, id`
    })

    const find = SqlSchema.findOne({
      Request: Scoped,
      Result: EndpointRow,
      execute: ({ appId, id }) => sql`select ${selected} from webhook_endpoints where id = ${id} and app_id = ${appId}`
    })

    const update = (appId: string, id: string, changes: EndpointChanges, now: Date) =>
      SqlSchema.findOne({
        Request: Scoped,
        Result: EndpointRow,
        execute: () =>
          sql`
            update webhook_endpoints set
              url = coalesce(${changes.url ?? null}, url),
              description = ${changes.description === undefined ? sql`description` : sql`${changes.description}`},
              events = ${
            changes.events === undefined
              ? sql`events`
              : sql`${changes.events === null ? null : JSON.stringify(changes.events)}::jsonb`
          },
              enabled = coalesce(${changes.enabled ?? null}::boolean, enabled),
              ${
            // Enabling again starts afresh: no reason, and 5 more days before a failing endpoint is disabled.
            changes.enabled === true
              ? sql`disabled_reason = null, failing_since = null,`
              : changes.enabled === false
              ? sql`disabled_reason = null,`
              : sql.literal("")}
              ${
            // Enabled again or sent elsewhere, it is no longer paused for the failures before.
            changes.enabled === true || changes.url !== undefined
              ? sql`failure_streak = 0, pause_count = 0, paused_until = null,`
              : sql.literal("")}
              updated_at = ${now}
            where id = ${id} and app_id = ${appId}
            returning ${selected}
          `
      })({ appId, id })

    const remove = (appId: string, id: string) =>
      Effect.map(
        sql<{ id: string }>`delete from webhook_endpoints where id = ${id} and app_id = ${appId} returning id`,
        (rows) => rows.length > 0
      )

    const rotateSecret = (appId: string, id: string, secretSealed: string, previousExpiresAt: Date, now: Date) =>
      Effect.map(
        sql<{ id: string }>`
          update webhook_endpoints set
            previous_secret_sealed = secret_sealed,
            previous_secret_expires_at = ${previousExpiresAt},
            secret_sealed = ${secretSealed},
            updated_at = ${now}
          where id = ${id} and app_id = ${appId}
          returning id
        `,
        (rows) => rows.length > 0
      )

    const secretsOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: EndpointSecrets,
      execute: (id) =>
        sql`
          select id, url, enabled, secret_sealed, previous_secret_sealed, previous_secret_expires_at, failing_since
          from webhook_endpoints where id = ${id}
        `
    })

    /** A delivery succeeded: the endpoint is no longer failing, nor paused. */
    const markSucceeded = (id: string) =>
      sql`
        update webhook_endpoints set failing_since = null, failure_streak = 0, pause_count = 0, paused_until = null
        where id = ${id} and (failing_since is not null or failure_streak > 0 or paused_until is not null)
      `

    /**
     * A delivery attempt failed: the endpoint is failing from now unless it already was; failing since
     * `disableBefore` or earlier, it is disabled with `reason`. One more failure in a row, which may pause
     * it (`Breaker.ts`). Answers whether it was disabled now, and until when this failure paused it.
     */
    const markFailed = (id: string, now: Date, disableBefore: Date, reason: string) =>
      Effect.map(
        sql<{ disabled: boolean; paused: boolean; pausedUntil: Date | null }>`
          with before as (
            select id, failure_streak as streak_before, paused_until as paused_before
            from webhook_endpoints where id = ${id}
            for update
          ),
          rule as (
            select before.id, before.streak_before + 1 >= ${breakerRule.threshold}
              and (before.paused_before is null or before.paused_before <= ${now}) as trips
            from before
          )
          update webhook_endpoints ep set
            failing_since = coalesce(ep.failing_since, ${now}),
            enabled = case when ep.failing_since <= ${disableBefore} then false else ep.enabled end,
            disabled_reason = case when ep.failing_since <= ${disableBefore} and ep.enabled then ${reason}
              else ep.disabled_reason end,
            updated_at = case when ep.failing_since <= ${disableBefore} and ep.enabled then ${now} else ep.updated_at end,
            failure_streak = ep.failure_streak + 1,
            pause_count = case when rule.trips then ep.pause_count + 1 else ep.pause_count end,
            paused_until = case when rule.trips
              then ${now}::timestamptz + least(
                ${breakerRule.firstPauseMs}::double precision * power(2, least(ep.pause_count, 20)),
                ${breakerRule.longestPauseMs}::double precision
              ) * interval '1 millisecond'
              else ep.paused_until end
          from rule
          where ep.id = rule.id
          returning (not ep.enabled and ep.failing_since <= ${disableBefore}) as disabled, rule.trips as paused,
            ep.paused_until
        `,
        (rows) => ({
          disabled: rows[0]?.disabled === true,
          pausedUntil: rows[0]?.paused === true ? rows[0].pausedUntil : null
        })
      )

    return {
      insert,
      listOfApp,
      /** The app's endpoint with this id (none for another app's). */
      find,
      update,
      remove,
      rotateSecret,
      secretsOf,
      markSucceeded,
      markFailed
    } as const
  })
}) {}
