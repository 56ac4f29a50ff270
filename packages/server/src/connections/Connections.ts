/**
 * A user's connections as the listings show them (endpoints 8 and 15): each with its sync
 * state, and every registered provider with the user's connection or null.
 */
import type { UserId } from "@pulsebridge/domain"
import { Connection, ProviderListingEntry } from "@pulsebridge/domain"
import { ProviderRegistry, toProviderInfo } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import type { ConnectionRow } from "./ConnectionsRepo.js"
import { ConnectionsRepo } from "./ConnectionsRepo.js"

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
    syncError: row.syncState === "Error" || row.syncState === "Stopped" ? row.syncError : null,
    statusReason: row.status === "Active" ? null : row.statusReason,
    quarantinedRecords: row.quarantinedRecords
  })

export class Connections extends Effect.Service<Connections>()("@pulsebridge/server/Connections", {
  effect: Effect.gen(function*() {
    const repo = yield* ConnectionsRepo
    const registry = yield* ProviderRegistry

    const listActive = (userId: UserId) => Effect.map(repo.listActive(userId), (rows) => rows.map(toConnection))

    return {
      listActive,

      /**
       * Every provider in listing order, each with the user's connection or null: an Active one, or
       * one waiting for the user to connect again (`Reauthorize`, with its `statusReason`), so an
       * app can tell the user why and offer to reconnect.
       */
      listProviders: (userId: UserId) =>
        Effect.map(repo.listOpen(userId), (rows) => rows.map(toConnection)).pipe(
          Effect.map((connections) =>
            registry.plugins.map((plugin) =>
              new ProviderListingEntry({
                provider: toProviderInfo(plugin.catalog),
                connection: connections.find((c) => c.provider === plugin.catalog.name) ?? null
              })
            )
          )
        )
    } as const
  }),
  dependencies: [ConnectionsRepo.Default]
}) {}
