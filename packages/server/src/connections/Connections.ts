/**
 * Connection rows of a user, as the listings read them. The connect flow that creates them
 * lives with the providers.
 */
import { SqlClient } from "@effect/sql"
import type { ConnectionId, Provider, UserId } from "@pulsebridge/domain"
import type { SyncState } from "@pulsebridge/domain"
import { Connection, ProviderListingEntry } from "@pulsebridge/domain"
import { catalog, providerOrder } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"

interface ConnectionRow {
  readonly id: ConnectionId
  readonly userId: UserId
  readonly provider: Provider
  readonly providerUserId: string
  readonly status: "Active" | "Reauthorize" | "Disconnected"
  readonly scopes: string
  readonly tokenExpiresAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly lastSyncedAt: Date | null
  readonly syncState: typeof SyncState.Type | null
  readonly rateLimitedUntil: Date | null
  readonly syncError: string | null
}

const toConnection = (row: ConnectionRow) =>
  new Connection({
    id: row.id,
    userId: row.userId,
    provider: row.provider,
    providerUserId: row.providerUserId,
    status: row.status,
    scopes: row.scopes,
    tokenExpiresAt: row.tokenExpiresAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastSyncedAt: row.lastSyncedAt,
    syncState: row.syncState ?? "Pending",
    rateLimitedUntil: row.syncState === "RateLimited" ? row.rateLimitedUntil : null,
    syncError: row.syncState === "Error" || row.syncState === "Stopped" ? row.syncError : null
  }, true)

export class Connections extends Effect.Service<Connections>()("@pulsebridge/server/Connections", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const listActive = (userId: UserId) =>
      sql<ConnectionRow>`
        select c.id, c.user_id, c.provider, c.provider_user_id, c.status, c.scopes, c.token_expires_at,
          c.created_at, c.updated_at, s.last_synced_at, s.state as sync_state, s.rate_limited_until,
          s.last_error as sync_error
        from connections c left join sync_state s on s.connection_id = c.id
        where c.user_id = ${userId} and c.status = 'Active'
        order by c.created_at, c.id
      `.pipe(Effect.map((rows) => rows.map(toConnection)), Effect.orDie)

    return {
      listActive,

      /** Every provider in listing order, each with the user's active connection or null. */
      listProviders: (userId: UserId) =>
        Effect.map(listActive(userId), (connections) =>
          providerOrder.map((provider) =>
            new ProviderListingEntry({
              provider: catalog[provider],
              connection: connections.find((c) => c.provider === provider) ?? null
            }, true)
          ))
    } as const
  })
}) {}
