/**
 * A user's connections as the listings show them (endpoints 8 and 15): each with its sync
 * state, and every registered provider with the user's connection or null.
 */
import type { AppId, UserId } from "@pulsebridge/domain"
import { Connection, dayNumber, ProviderListingEntry, SyncProgress } from "@pulsebridge/domain"
import { ProviderRegistry, toProviderInfo } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ProviderCredentialsRepo } from "../apps/ProviderCredentialsRepo.js"
import { addDays } from "../platform/Calendar.js"
import { ServerConfig } from "../platform/ServerConfig.js"
import type { ConnectionRow } from "./ConnectionsRepo.js"
import { ConnectionsRepo } from "./ConnectionsRepo.js"

/**
 * A backfill's progress from its plan: windows are `windowDays` long, read newest first from
 * `backfillTo` down to `backfillFrom`, and the cursor is the newest day not yet stored (null
 * once the backfill has ended).
 */
export const progressOf = (row: ConnectionRow, windowDays: number): SyncProgress | null => {
  if (row.backfillCursor === null || row.backfillFrom === null) return null
  const to = row.backfillTo ?? row.backfillCursor
  const days = (a: string, b: string) => Math.max(0, dayNumber(b) - dayNumber(a) + 1)
  const total = Math.ceil(days(row.backfillFrom, to) / windowDays)
  const done = Math.min(total, Math.ceil(Math.max(0, dayNumber(to) - dayNumber(row.backfillCursor)) / windowDays))
  return new SyncProgress({
    windowsDone: done,
    windowsTotal: total,
    oldestDateReached: row.backfillCursor < to ? addDays(row.backfillCursor, 1) : null
  })
}

const toConnection = (row: ConnectionRow, windowDays: number) =>
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
    quarantinedRecords: row.quarantinedRecords,
    syncProgress: progressOf(row, windowDays)
  })

export class Connections extends Effect.Service<Connections>()("@pulsebridge/server/Connections", {
  effect: Effect.gen(function*() {
    const repo = yield* ConnectionsRepo
    const registry = yield* ProviderRegistry
    const config = yield* ServerConfig
    const credentials = yield* ProviderCredentialsRepo

    const windowDaysOf = (provider: string) =>
      Option.match(registry.find(provider), { onNone: () => 1, onSome: (plugin) => plugin.data.windowDays })
    const show = (row: ConnectionRow) => toConnection(row, windowDaysOf(row.provider))

    const listActive = (userId: UserId) => Effect.map(repo.listActive(userId), (rows) => rows.map(show))

    return {
      listActive,

      /** The user's connections that are not disconnected (Active, or waiting for reauthorization). */
      listOpen: (userId: UserId) => Effect.map(repo.listOpen(userId), (rows) => rows.map(show)),

      /** The open connections of each of the users (a page of a list), by user id. */
      listOpenOfUsers: (userIds: ReadonlyArray<UserId>) =>
        Effect.map(repo.listOpenOfUsers(userIds), (rows) => {
          const byUser = new Map<UserId, Array<Connection>>(userIds.map((id) => [id, []]))
          for (const row of rows) byUser.get(row.userId)?.push(show(row))
          return byUser as ReadonlyMap<UserId, ReadonlyArray<Connection>>
        }),

      /**
       * Every provider in listing order, each with the user's connection or null: an Active one, or
       * one waiting for the user to connect again (`Reauthorize`, with its `statusReason`), so an
       * app can tell the user why and offer to reconnect. A provider beyond the contract's four
       * (`listedWhenConfigured`) is listed in sandbox mode, where every provider connects, and otherwise
       * only when the app has configured its credentials for it (or the user is connected to it).
       */
      listProviders: (appId: AppId, userId: UserId) =>
        Effect.gen(function*() {
          const connections = (yield* repo.listOpen(userId)).map(show)
          const configured = config.sandbox
            ? undefined
            : new Set((yield* credentials.listOfApp(appId)).map((row) => row.provider as string))
          return registry.plugins
            .map((plugin) => ({
              plugin,
              connection: connections.find((c) => c.provider === plugin.catalog.name) ?? null
            }))
            .filter(({ connection, plugin }) =>
              plugin.catalog.listedWhenConfigured !== true || configured === undefined || connection !== null ||
              configured.has(plugin.catalog.name)
            )
            .map(({ connection, plugin }) =>
              new ProviderListingEntry({ provider: toProviderInfo(plugin.catalog), connection })
            )
        })
    } as const
  }),
  dependencies: [ConnectionsRepo.Default, ProviderCredentialsRepo.Default]
}) {}
