/**
 * Connections a test starts from without the connect flow: made by the connections' repository, holding no grant,
 * so no sync reads with them; the test stores their records itself.
 */
import type { AppId, ConnectionId, Provider, UserId } from "@pulsebridge/domain"
import type { ConnectionStatus } from "@pulsebridge/server"
import { ConnectionsRepo, newId } from "@pulsebridge/server"
import * as Effect from "effect/Effect"

/** A connection of the user at `provider` (Active unless `status` says otherwise); its id. */
export const addConnection = (
  user: { readonly id: UserId; readonly appId: AppId },
  provider: Provider,
  options: {
    readonly status?: typeof ConnectionStatus.Type | undefined
    /** The user's id at the provider; a made-up one unless given. */
    readonly providerUserId?: string | undefined
  } = {}
) =>
  Effect.gen(function*() {
    const repo = yield* ConnectionsRepo
    const id = newId<ConnectionId>()
    yield* repo.insertWithoutGrant({
      id,
      appId: user.appId,
      userId: user.id,
      provider,
      providerUserId: options.providerUserId ?? `p-${id.slice(0, 8)}`,
      status: options.status ?? "Active"
    })
    return id
  }).pipe(Effect.provide(ConnectionsRepo.Default))
