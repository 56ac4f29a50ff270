/**
 * The operator's view of the quarantine: provider records that could not be read, held with
 * their raw JSON and the reason (`RecordStore` files them; they never block their window). The raw
 * JSON is the provider's record as sent; the connection's tokens are never part of it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const QuarantinedRow = Schema.Struct({
  connectionId: Schema.String,
  appId: Schema.String,
  provider: Schema.String,
  kind: Schema.String,
  providerRecordId: Schema.NullOr(Schema.String),
  reason: Schema.String,
  rawJson: Schema.String,
  firstSeenAt: Schema.DateFromSelf,
  lastSeenAt: Schema.DateFromSelf
})
export type QuarantinedRow = typeof QuarantinedRow.Type

export interface QuarantineFilter {
  readonly appId?: string | undefined
  readonly connectionId?: string | undefined
  readonly limit: number
}

export class Quarantine extends Effect.Service<Quarantine>()("@pulsebridge/server/Quarantine", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const list = SqlSchema.findAll({
      Request: Schema.Struct({
        appId: Schema.NullOr(Schema.String),
        connectionId: Schema.NullOr(Schema.String),
        limit: Schema.Number
      }),
      Result: QuarantinedRow,
      execute: ({ appId, connectionId, limit }) =>
        sql`
          select q.connection_id, c.app_id, q.provider, q.kind, q.provider_record_id, q.reason, q.raw_json,
            q.first_seen_at, q.last_seen_at
          from quarantined_records q join connections c on c.id = q.connection_id
          where (${appId}::uuid is null or c.app_id = ${appId}::uuid)
            and (${connectionId}::uuid is null or q.connection_id = ${connectionId}::uuid)
          order by q.last_seen_at desc, q.connection_id, q.kind, q.record_key
          limit ${limit}
        `
    })
    return {
      /** The most recently seen quarantined records, newest first. */
      list: (filter: QuarantineFilter) =>
        list({ appId: filter.appId ?? null, connectionId: filter.connectionId ?? null, limit: filter.limit }).pipe(
          Effect.orDie
        )
    } as const
  })
}) {}
