/**
 * A re-sync the app asks for (`POST .../connections/{connectionId}/sync`): the recent days again,
 * or a range as a durable backfill. Checks the connection and the range here, then hands the work
 * to the connection's sync entity, so it runs after anything already queued for it.
 */
import type { ResyncRange, UserId } from "@pulsebridge/domain"
import { ResyncAccepted } from "@pulsebridge/domain"
import type { DateWindow } from "@pulsebridge/providers"
import { ProviderRegistry } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"
import { ConnectionNotFound } from "../connections/Errors.js"
import { addDays, localToday } from "../platform/Calendar.js"
import { traced } from "../platform/Traced.js"
import { SyncSettings } from "./SyncEngine.js"
import { SyncQueue } from "./SyncQueue.js"

/**
 * Nothing can be read for the connection: it waits for the user to connect again, or (rarely) its
 * provider is no longer registered on this deployment.
 */
export class ConnectionNotActive extends Data.TaggedError("ConnectionNotActive")<{
  readonly connectionId: string
  readonly status: string
  readonly reason: string | null
}> {
  override get message() {
    return this.status === "Active"
      ? `the connection cannot sync: ${this.reason ?? "its provider is not available"}`
      : `the connection is ${this.status}${this.reason === null ? "" : `: ${this.reason}`}; ` +
        "the user must connect the provider again before it can sync"
  }
}

/** The asked range breaks a rule (after today, or older than the provider's history limit). */
export class RangeRefused extends Data.TaggedError("RangeRefused")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

export class Resync extends Effect.Service<Resync>()("@pulsebridge/server/Resync", {
  effect: Effect.gen(function*() {
    const repo = yield* ConnectionsRepo
    const queue = yield* SyncQueue
    const registry = yield* ProviderRegistry

    return {
      /** Checks the connection (the user's, not Disconnected, Active) and the range, then queues the work. */
      request: traced("Resync.request")(
        function*(
          user: { readonly userId: UserId; readonly timezone: string },
          connectionId: string,
          range: ResyncRange | null
        ) {
          const connection = (yield* repo.listOpen(user.userId)).find((c) => c.id === connectionId)
          if (connection === undefined) return yield* new ConnectionNotFound({ connectionId })
          if (connection.status !== "Active") {
            return yield* new ConnectionNotActive({
              connectionId,
              status: connection.status,
              reason: connection.statusReason
            })
          }
          const plugin = registry.find(connection.provider)
          if (Option.isNone(plugin)) {
            return yield* new ConnectionNotActive({
              connectionId,
              status: connection.status,
              reason: `no provider named ${connection.provider} is registered`
            })
          }
          const today = localToday(new Date(yield* Clock.currentTimeMillis), user.timezone)
          if (range === null) {
            const settings = yield* SyncSettings
            yield* queue.syncWindow(connectionId)
            return new ResyncAccepted({
              connectionId: connection.id,
              kind: "Recent",
              from: addDays(today, -(settings.overlapDays - 1)),
              to: today
            })
          }
          const limit = plugin.value.data.maxBackfillDays
          const oldest = addDays(today, -(limit - 1))
          if (range.from > range.to) return yield* new RangeRefused({ reason: "`from` must not be after `to`" })
          if (range.to > today) {
            return yield* new RangeRefused({ reason: `\`to\` must not be after today (${today} for this user)` })
          }
          if (range.from < oldest) {
            return yield* new RangeRefused({
              reason: `${connection.provider} keeps ${limit} days of history: \`from\` must be ${oldest} or later`
            })
          }
          const window: DateWindow = { from: range.from, to: range.to }
          yield* queue.backfillRange(connectionId, window)
          return new ResyncAccepted({ connectionId: connection.id, kind: "Backfill", from: range.from, to: range.to })
        }
      )
    } as const
  }),
  dependencies: [ConnectionsRepo.Default]
}) {}
