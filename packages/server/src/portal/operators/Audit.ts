/**
 * The audit log: who changed what in the portal or with the CLI, and every failed login. Events are
 * written in the same transaction as the change they describe (`record` joins the caller's
 * transaction), read newest first with keyset paging on their id, and never hold a secret or a
 * password: callers pass only what is safe to show.
 */
import { HttpServerRequest } from "@effect/platform"
import { SqlClient, SqlSchema } from "@effect/sql"
import { AppId } from "@pulsebridge/domain"
import { AuditEvent, CurrentOperator, OperatorId } from "@pulsebridge/portal/api"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { clientAddress } from "../../access/RateLimit.js"
import { ServerConfig } from "../../platform/ServerConfig.js"

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
 * Who makes a change: an operator in the portal, or the CLI (`operator: null`; its events carry
 * `detail.via = "cli"` and, when the system names one, `detail.osUser`, the account that ran it).
 */
export interface Actor {
  readonly operator: AuditEntry["operator"]
  readonly address?: string | null | undefined
  readonly via?: "cli" | undefined
  readonly osUser?: string | null | undefined
}

/** The CLI run by `osUser`. */
export const cliActor = (osUser: string | null): Actor => ({ operator: null, address: null, via: "cli", osUser })

/** The event of `actor`'s change: who, from where, and, for the CLI, `via` and `osUser` in the detail. */
export const byActor = (actor: Actor, entry: Omit<AuditEntry, "operator" | "address">): AuditEntry => ({
  ...entry,
  operator: actor.operator,
  address: actor.address,
  detail: actor.via === undefined
    ? entry.detail
    : { ...entry.detail, via: actor.via, ...(actor.osUser == null ? {} : { osUser: actor.osUser }) }
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
  address: Schema.NullOr(Schema.String)
})

export class Audit extends Effect.Service<Audit>()("@pulsebridge/server/Audit", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ before: Schema.NullOr(Schema.String), limit: Schema.Number }),
      Result: Row,
      execute: ({ before, limit }) =>
        sql`
          select id::text as id, at, operator_id, operator_email, action, target_type, target_id, app_id::text as app_id,
            detail, address
          from audit_events
          where ${before === null ? sql`true` : sql`id < ${before}::bigint`}
          order by audit_events.id desc
          limit ${limit}
        `
    })

    /** Writes one event, inside the caller's transaction if there is one. */
    const record = Effect.fn("Audit.record")(function*(entry: AuditEntry) {
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

      /** Newest first; `cursor` is the `nextCursor` of the page before. */
      page: Effect.fn("Audit.page")(function*(cursor: string | undefined, limit: number) {
        if (cursor !== undefined && !/^[1-9][0-9]{0,17}$/.test(cursor)) return yield* new BadCursor()
        const rows = yield* page({ before: cursor ?? null, limit: limit + 1 }).pipe(Effect.orDie)
        const data = rows.slice(0, limit).map((row) => new AuditEvent(row))
        return { data, nextCursor: rows.length > limit ? data[data.length - 1]!.id : null }
      })
    } as const
  })
}) {}

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
