/**
 * The audit log: who changed what in the portal or with the CLI, and every failed login. Events are
 * written in the same transaction as the change they describe (`record` joins the caller's
 * transaction), read newest first with keyset paging on their id, and never hold a secret or a
 * password: callers pass only what is safe to show.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AppId } from "@pulsebridge/domain"
import type { AuditFilters } from "@pulsebridge/portal/api"
import { AuditActorType, AuditEvent, AuditName, CurrentOperator, OperatorId } from "@pulsebridge/portal/api"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { clientAddress } from "../../access/RateLimit.js"
import { ServerConfig } from "../../platform/ServerConfig.js"
import { traced } from "../../platform/Traced.js"
import { liveUser } from "../../users/UsersRepo.js"

export interface AuditEntry {
  /** null for the CLI and for anonymous attempts (a failed login). */
  readonly operator: { readonly id: string; readonly email: string } | null
  readonly action: string
  readonly targetType?: string | undefined
  readonly targetId?: string | undefined
  readonly appId?: AppId | string | undefined
  readonly detail?: Readonly<Record<string, unknown>> | undefined
  readonly address?: string | null | undefined
}

/**
 * Who makes a change: an operator in the portal, the CLI (`operator: null`; its events carry
 * `detail.via = "cli"` and, when the system names one, `detail.osUser`, the account that ran it), or an app's
 * API key (`operator: null`; `detail.via = "apiKey"`, `detail.apiKeyId` and `detail.apiKeyPrefix`).
 */
export interface Actor {
  readonly operator: AuditEntry["operator"]
  readonly address?: string | null | undefined
  readonly via?: "cli" | "apiKey" | undefined
  readonly osUser?: string | null | undefined
  readonly apiKey?: { readonly id: string; readonly prefix: string } | undefined
}

/** The CLI run by `osUser`. */
export const cliActor = (osUser: string | null): Actor => ({ operator: null, address: null, via: "cli", osUser })

/** An app's API key, calling from `address`. */
export const apiKeyActor = (
  apiKey: { readonly id: string; readonly prefix: string },
  address: string | null
): Actor => ({
  operator: null,
  address,
  via: "apiKey",
  apiKey
})

/** The event of `actor`'s change: who, from where, and, for the CLI or a key, who in the detail. */
export const byActor = (actor: Actor, entry: Omit<AuditEntry, "operator" | "address">): AuditEntry => ({
  ...entry,
  operator: actor.operator,
  address: actor.address,
  detail: actor.via === undefined
    ? entry.detail
    : {
      ...entry.detail,
      via: actor.via,
      ...(actor.osUser == null ? {} : { osUser: actor.osUser }),
      ...(actor.apiKey === undefined ? {} : { apiKeyId: actor.apiKey.id, apiKeyPrefix: actor.apiKey.prefix })
    }
})

/** A cursor that is not one this log handed out. */
export class BadCursor extends Data.TaggedError("BadCursor")<{}> {
  override get message() {
    return "cursor: not a cursor of this listing"
  }
}

const Row = Schema.Struct({
  id: Schema.String,
  at: Schema.DateFromSelf,
  operatorId: Schema.NullOr(OperatorId),
  operatorEmail: Schema.NullOr(Schema.String),
  action: Schema.String,
  targetType: Schema.NullOr(Schema.String),
  targetId: Schema.NullOr(Schema.String),
  appId: Schema.NullOr(AppId),
  detail: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  address: Schema.NullOr(Schema.String),
  actorType: AuditActorType,
  // The names of the ids, looked up with the page in the same statement.
  actorOperatorEmail: Schema.NullOr(Schema.String),
  actorKeyName: Schema.NullOr(Schema.String),
  actorKeyPrefix: Schema.NullOr(Schema.String),
  appName: Schema.NullOr(Schema.String),
  subjectName: Schema.NullOr(Schema.String),
  subjectAppId: Schema.NullOr(Schema.String),
  subjectUserId: Schema.NullOr(Schema.String),
  subjectUserName: Schema.NullOr(Schema.String)
})
type Row = typeof Row.Type

/** The rows a statement of the export reads at a time. */
const exportChunk = 500

const uuidPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

export class Audit extends Effect.Service<Audit>()("@pulsebridge/server/Audit", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** A text column as a uuid when it is one (else null), so that the join uses the primary key. */
    const asUuid = (column: string) =>
      sql.literal(`(case when ${column} ~ '${uuidPattern}' then (${column})::uuid end)`)

    const conditions = (filters: AuditFilters, before: string | null) =>
      sql.and([
        ...(before === null ? [] : [sql`id < ${before}::bigint`]),
        ...(filters.actorType === undefined ? [] : [sql`actor_type = ${filters.actorType}`]),
        ...(filters.operatorId === undefined ? [] : [sql`operator_id = ${filters.operatorId}`]),
        ...(filters.action === undefined ? [] : [sql`action = ${filters.action}`]),
        ...(filters.appId === undefined ? [] : [sql`app_id = ${filters.appId}`]),
        ...(filters.from === undefined ? [] : [sql`at >= ${filters.from}`]),
        ...(filters.to === undefined ? [] : [sql`at < ${filters.to}`])
      ])

    /**
     * A page of events with the names of their ids: the page is taken first (by the filters' indexes), then each
     * id is joined by its primary key. A user is named only while it is live: an erased user's events lost its
     * ids (the erasure scrubs them), and one being erased is named by nothing but what its events hold.
     */
    const page = SqlSchema.findAll({
      Request: Schema.Struct({ before: Schema.NullOr(Schema.String), limit: Schema.Number, filters: Schema.Any }),
      Result: Row,
      execute: ({ before, filters, limit }) =>
        sql`
          with page as materialized (
            select id, at, operator_id, operator_email, action, target_type, target_id, app_id, detail, address,
              actor_type
            from audit_events
            where ${conditions(filters as AuditFilters, before)}
            order by id desc
            limit ${limit}
          )
          select page.id::text as id, page.at, page.operator_id::text as operator_id, page.operator_email,
            page.action, page.target_type, page.target_id, page.app_id::text as app_id, page.detail, page.address,
            page.actor_type,
            op.email as actor_operator_email,
            ak.name as actor_key_name, ak.prefix as actor_key_prefix,
            ap.name as app_name,
            case page.target_type
              when 'app' then s_app.name
              when 'user' then s_user.external_user_id
              when 'connection' then s_conn.provider
              when 'apiKey' then coalesce(s_key.name, s_key.prefix)
              when 'webhookEndpoint' then s_endpoint.url
              when 'webhookDelivery' then s_delivery_endpoint.url
              when 'operator' then s_operator.email
            end as subject_name,
            case page.target_type
              when 'user' then s_user.app_id::text
              when 'connection' then s_conn_user.app_id::text
            end as subject_app_id,
            case page.target_type
              when 'user' then s_user.id::text
              when 'connection' then s_conn_user.id::text
            end as subject_user_id,
            s_conn_user.external_user_id as subject_user_name
          from page
          left join operators op on op.id = page.operator_id
          left join api_keys ak on page.actor_type = 'apiKey' and ak.id = ${asUuid("page.detail ->> 'apiKeyId'")}
          left join apps ap on ap.id = page.app_id
          left join apps s_app on page.target_type = 'app' and s_app.id = ${asUuid("page.target_id")}
          left join users s_user on page.target_type = 'user' and s_user.id = ${asUuid("page.target_id")}
            and ${liveUser(sql, "s_user")}
          left join connections s_conn on page.target_type = 'connection' and s_conn.id = ${asUuid("page.target_id")}
          left join users s_conn_user on s_conn_user.id = s_conn.user_id and ${liveUser(sql, "s_conn_user")}
          left join api_keys s_key on page.target_type = 'apiKey' and s_key.id = ${asUuid("page.target_id")}
          left join webhook_endpoints s_endpoint on page.target_type = 'webhookEndpoint'
            and s_endpoint.id = ${asUuid("page.target_id")}
          left join webhook_deliveries s_delivery on page.target_type = 'webhookDelivery'
            and s_delivery.id = ${asUuid("page.target_id")}
          left join webhook_endpoints s_delivery_endpoint on s_delivery_endpoint.id = s_delivery.endpoint_id
          left join operators s_operator on page.target_type = 'operator' and s_operator.id = ${
          asUuid("page.target_id")
        }
          order by page.id desc
        `
    })

    const pageOf = (filters: AuditFilters, before: string | null, limit: number) =>
      page({ before, limit, filters }).pipe(
        Effect.map((rows) => rows.map(toEvent)),
        Effect.orDie
      )

    /** Writes one event, inside the caller's transaction if there is one. */
    const record = traced("Audit.record")(function*(entry: AuditEntry) {
      const at = new Date(yield* Clock.currentTimeMillis)
      yield* sql`
        insert into audit_events (at, operator_id, operator_email, action, target_type, target_id, app_id, detail,
          address)
        values (${at}, ${entry.operator?.id ?? null}, ${entry.operator?.email ?? null}, ${entry.action},
          ${entry.targetType ?? null}, ${entry.targetId ?? null}, ${entry.appId ?? null},
          ${JSON.stringify(entry.detail ?? {})}::jsonb, ${entry.address ?? null})
      `.pipe(Effect.orDie)
    })

    return {
      record,

      /** Makes `change` and writes its events (from what it answered) in one transaction. */
      recorded: <A, E, R>(
        change: Effect.Effect<A, E, R>,
        entriesOf: (result: A) => AuditEntry | ReadonlyArray<AuditEntry>
      ) =>
        change.pipe(
          Effect.tap((result) => {
            const entries = entriesOf(result)
            return Effect.forEach(Array.isArray(entries) ? entries : [entries as AuditEntry], record, { discard: true })
          }),
          sql.withTransaction,
          Effect.catchTag("SqlError", Effect.die)
        ),

      /** Newest first, the events the filters keep; `cursor` is the `nextCursor` of the page before. */
      page: traced("Audit.page")(
        function*(cursor: string | undefined, limit: number, filters: AuditFilters = {}) {
          yield* checkFilters(filters)
          if (cursor !== undefined && !/^[1-9][0-9]{0,17}$/.test(cursor)) return yield* new BadCursor()
          const events = yield* pageOf(filters, cursor ?? null, limit + 1)
          const data = events.slice(0, limit)
          return { data, nextCursor: events.length > limit ? data[data.length - 1]!.id : null }
        }
      ),

      /**
       * Every event the filters keep, newest first, read `exportChunk` at a time (each a statement of its own, so
       * memory stays flat however long the log).
       */
      stream: traced("Audit.stream")(function*(filters: AuditFilters) {
        yield* checkFilters(filters)
        return Stream.paginateChunkEffect(null as string | null, (before) =>
          pageOf(filters, before, exportChunk).pipe(
            Effect.map((events) =>
              [
                Chunk.unsafeFromArray(events),
                events.length < exportChunk ? Option.none() : Option.some(events[events.length - 1]!.id)
              ] as const
            )
          ))
      })
    } as const
  })
}) {}

/** A time range whose end is not after its start. */
export class BadRange extends Data.TaggedError("BadRange")<{}> {
  override get message() {
    return "from: must be before to"
  }
}

const checkFilters = (filters: AuditFilters) =>
  filters.from !== undefined && filters.to !== undefined && filters.from.getTime() >= filters.to.getTime()
    ? Effect.fail(new BadRange())
    : Effect.void

const text = (value: unknown) => typeof value === "string" ? value : null

/** The event with the names of its actor, app and subject. */
const toEvent = (row: Row) =>
  new AuditEvent({
    id: row.id,
    at: row.at,
    operatorId: row.operatorId,
    operatorEmail: row.operatorEmail,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    appId: row.appId,
    detail: row.detail,
    address: row.address,
    actorType: row.actorType,
    actor: actorName(row),
    app: row.appId === null
      ? null
      : new AuditName({ label: row.appName ?? `app ${row.appId}`, href: `/portal/apps/${row.appId}` }),
    subject: subjectName(row),
    summary: summarize(row.action, row.detail)
  })

const actorName = (row: Row): AuditName => {
  switch (row.actorType) {
    case "operator":
      return new AuditName({
        label: row.actorOperatorEmail ?? row.operatorEmail ?? `operator ${row.operatorId}`,
        href: `/portal/audit?operatorId=${row.operatorId}`
      })
    case "cli": {
      const osUser = text(row.detail.osUser)
      return new AuditName({ label: osUser === null ? "CLI" : `CLI (${osUser})`, href: null })
    }
    case "apiKey": {
      const key = row.actorKeyName ?? row.actorKeyPrefix ?? text(row.detail.apiKeyPrefix) ?? "(unknown)"
      return new AuditName({
        label: `API key ${key}`,
        href: row.appId === null ? null : `/portal/apps/${row.appId}/keys`
      })
    }
    case "anonymous":
      return new AuditName({ label: row.address === null ? "anonymous" : `anonymous ${row.address}`, href: null })
  }
}

const subjectName = (row: Row): AuditName | null => {
  const type = row.targetType
  if (type === null) return null
  const app = row.appId
  const id = row.targetId
  const erased = row.detail.userErased === true
  const name = (label: string, href: string | null = null) => new AuditName({ label, href })
  switch (type) {
    case "user":
      if (row.subjectName !== null && row.subjectUserId !== null) {
        return name(row.subjectName, `/portal/apps/${row.subjectAppId}/users/${row.subjectUserId}`)
      }
      return erased || id === null ? name("an erased user") : name(`user ${id}`)
    case "connection":
      if (row.subjectName !== null && row.subjectUserName !== null) {
        return name(
          `${row.subjectName} connection of ${row.subjectUserName}`,
          `/portal/apps/${row.subjectAppId}/users/${row.subjectUserId}`
        )
      }
      if (erased || id === null) return name("a connection of an erased user")
      return name(row.subjectName === null ? `connection ${id}` : `${row.subjectName} connection`)
    case "app":
      return name(row.subjectName ?? row.appName ?? `app ${id ?? ""}`, id === null ? null : `/portal/apps/${id}`)
    case "apiKey":
      return name(
        `API key ${row.subjectName ?? text(row.detail.name) ?? text(row.detail.prefix) ?? id ?? ""}`,
        app === null ? null : `/portal/apps/${app}/keys`
      )
    case "provider":
      return name(`${id ?? "provider"} credentials`, app === null ? null : `/portal/apps/${app}/providers`)
    case "webhookEndpoint":
      return name(
        `webhook endpoint ${row.subjectName ?? text(row.detail.url) ?? id ?? ""}`,
        app === null ? null : `/portal/apps/${app}/webhooks`
      )
    case "webhookDelivery":
      return name(
        row.subjectName === null ? `webhook delivery ${id ?? ""}` : `webhook delivery to ${row.subjectName}`,
        app === null ? null : `/portal/apps/${app}/webhooks`
      )
    case "operator": {
      const email = row.subjectName ?? text(row.detail.email)
      return name(email ?? `operator ${id ?? ""}`, id === null ? null : `/portal/audit?operatorId=${id}`)
    }
    case "simulator":
      return name(`${id ?? ""} simulator`, "/portal/sandbox")
    default:
      return name(id === null ? type : `${type} ${id}`)
  }
}

/** Keys of the detail that say who acted (shown in the actor column) rather than what changed. */
const actorKeys = new Set(["via", "osUser", "apiKeyId", "apiKeyPrefix", "userErased"])

const labels: Record<string, string> = {
  externalUserId: "external id",
  userId: "user",
  clientId: "client id",
  oauth1ClientId: "OAuth 1 client id",
  authType: "auth type",
  webhookVerificationCode: "verification code",
  sessionsEnded: "sessions ended",
  setupLink: "setup link",
  endpointId: "endpoint",
  eventId: "event",
  eventType: "event type",
  authBaseUrl: "auth base URL",
  tokenBaseUrl: "token base URL",
  apiBaseUrl: "API base URL"
}

const valueText = (value: unknown): string => {
  if (value === null || value === undefined) return "none"
  if (typeof value === "string") return value
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(valueText).join(", ")
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${labels[k] ?? k} ${valueText(v)}`)
      .join(", ")
  }
  return String(value)
}

const pairs = (detail: Readonly<Record<string, unknown>>, skip: ReadonlyArray<string> = []) =>
  Object.entries(detail)
    .filter(([key, value]) => !actorKeys.has(key) && !skip.includes(key) && value !== null && value !== undefined)
    .map(([key, value]) => `${labels[key] ?? key}: ${valueText(value)}`)

const fault = (knob: unknown) => {
  if (typeof knob !== "object" || knob === null) return valueText(knob)
  const { count, kind, method, path } = knob as Record<string, unknown>
  return `${valueText(kind)}${count === undefined ? "" : ` ×${valueText(count)}`} on ${
    method === undefined ? "" : `${valueText(method)} `
  }${valueText(path)}`
}

/** The detail as one short line for people: what changed, in words, never the whole JSON. */
export const summarize = (action: string, detail: Readonly<Record<string, unknown>>): string => {
  const parts = ((): Array<string> => {
    switch (action) {
      case "app.rename":
        return [`name: ${valueText(detail.from)} → ${valueText(detail.to)}`]
      case "operator.create":
        return [
          `email: ${valueText(detail.email)}`,
          ...(detail.role === undefined ? [] : [`role: ${valueText(detail.role)}`]),
          detail.setupLink === true ? "setup link" : "with a password"
        ]
      case "operator.role":
        return [`email: ${valueText(detail.email)}`, `role: ${valueText(detail.from)} → ${valueText(detail.to)}`]
      case "operator.password.reset":
        return [
          `email: ${valueText(detail.email)}`,
          "new setup link",
          `sessions ended: ${valueText(detail.sessionsEnded)}`
        ]
      case "operator.password.change":
        return [`other sessions ended: ${valueText(detail.sessionsEnded)}`]
      case "operator.secondFactor.reset":
        return [`email: ${valueText(detail.email)}`, "second factor removed"]
      case "settings.update":
        return [`second factor required: ${detail.secondFactorRequired === true ? "on" : "off"}`]
      case "webhookEndpoint.create":
        return [`url: ${valueText(detail.url)}`, `events: ${detail.events == null ? "all" : valueText(detail.events)}`]
      case "webhookEndpoint.update":
        return [`changed: ${valueText(detail.changed)}`]
      case "webhookEndpoint.delete":
        return [`url: ${valueText(detail.url)}`]
      case "webhookEndpoint.rotateSecret":
        return [`previous secret signs until ${valueText(detail.previousSecretExpiresAt)}`]
      case "webhookEndpoint.test":
        return [`test event ${valueText(detail.eventId)}`]
      case "connection.resync":
        return pairs(detail, ["userId", "from", "to"]).concat(
          detail.from == null ? [] : [`days: ${valueText(detail.from)} to ${valueText(detail.to)}`]
        )
      case "sandbox.faults.set":
        return [
          Array.isArray(detail.faults) && detail.faults.length > 0
            ? `faults: ${detail.faults.map(fault).join("; ")}`
            : "faults: cleared"
        ]
      case "webhookDelivery.retry":
        return pairs(detail, ["endpointId", "eventId"])
      default:
        return pairs(detail, ["userId"])
    }
  })()
  if (detail.userErased === true) parts.push("user erased")
  const line = parts.join(", ")
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}

/** Who is acting in a portal request: the session's operator and the client's address. */
export const portalActor = Effect.gen(function*() {
  const operator = yield* CurrentOperator
  const address = yield* requestAddress
  return { operator: { id: operator.operatorId, email: operator.email }, address }
})

/** The client's address as the rate limits see it (the proxy's `X-Forwarded-For` with `TRUST_PROXY`). */
export const requestAddress = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* Effect.serviceOption(ServerConfig)
  return clientAddress(request, Option.match(config, { onNone: () => false, onSome: (c) => c.trustProxy }))
})
