/**
 * Connection rows of a user, as the listings read them. The connect flow that creates them
 * lives with the providers.
 */
import { SqlClient } from "@effect/sql"
import type { ConnectionId, Provider, UserId } from "@pulsebridge/domain"
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
    updatedAt: row.updatedAt
  }, true)

export class Connections extends Effect.Service<Connections>()("@pulsebridge/server/Connections", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const listActive = (userId: UserId) =>
      sql<ConnectionRow>`
        select id, user_id, provider, provider_user_id, status, scopes, token_expires_at, created_at, updated_at
        from connections where user_id = ${userId} and status = 'Active'
        order by created_at, id
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
