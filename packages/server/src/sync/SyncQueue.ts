/**
 * Sending work to connections' sync entities, from any process role: API nodes only send, the
 * entities run where the background work runs.
 */
import type { UserId } from "@pulsebridge/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"
import { ConnectionSync } from "./ConnectionSync.js"
import type { SyncNotification as Notification } from "./SyncEngine.js"
import { SyncEngine } from "./SyncEngine.js"

/** Sends work to connections' sync entities. Sending returns once the message is stored. */
export class SyncQueue extends Context.Tag("@pulsebridge/server/SyncQueue")<SyncQueue, {
  /** Plans the connect-time backfill and starts it. */
  readonly backfill: (connectionId: string) => Effect.Effect<void>
  readonly syncWindow: (connectionId: string, window?: { from: string; to: string }) => Effect.Effect<void>
  /** A durable backfill of `from`..`to` the app asked for (planned by the entity, after queued work). */
  readonly backfillRange: (connectionId: string, range: { from: string; to: string }) => Effect.Effect<void>
  readonly notify: (connectionId: string, notification: Notification) => Effect.Effect<void>
  readonly stop: (connectionId: string) => Effect.Effect<void>
  /** A reactivated user's stopped connections sync now: the recent days, after any unfinished backfill. */
  readonly resumeUser: (userId: UserId) => Effect.Effect<void>
}>() {
  /** A queue for tests of the services that send work: it keeps each call in `sent` and sends nothing. */
  static readonly Test = (sent: Array<SentWork>) => {
    const record = (work: SentWork) => Effect.sync(() => void sent.push(work))
    return Layer.succeed(SyncQueue, {
      backfill: (connectionId) => record({ _tag: "Backfill", id: connectionId }),
      syncWindow: (connectionId, window) => record({ _tag: "SyncWindow", id: connectionId, window }),
      backfillRange: (connectionId, range) => record({ _tag: "BackfillRange", id: connectionId, range }),
      notify: (connectionId, notification) => record({ _tag: "Notify", id: connectionId, notification }),
      stop: (connectionId) => record({ _tag: "Stop", id: connectionId }),
      resumeUser: (userId) => record({ _tag: "ResumeUser", id: userId })
    })
  }
}

/** One call on the queue, as `SyncQueue.Test` keeps it: which work, for which connection or user. */
export interface SentWork {
  readonly _tag: "Backfill" | "SyncWindow" | "BackfillRange" | "Notify" | "Stop" | "ResumeUser"
  readonly id: string
  readonly window?: { readonly from: string; readonly to: string } | undefined
  readonly range?: { readonly from: string; readonly to: string }
  readonly notification?: Notification
}

export const SyncQueueLive = Layer.effect(
  SyncQueue,
  Effect.gen(function*() {
    const makeClient = yield* ConnectionSync.client
    const engine = yield* SyncEngine
    const connections = yield* ConnectionsRepo
    const send = <A, E>(connectionId: string, what: string, effect: Effect.Effect<A, E>) =>
      effect.pipe(
        Effect.asVoid,
        Effect.tapErrorCause((cause) =>
          Effect.logError("Could not queue sync work", cause).pipe(Effect.annotateLogs({ connectionId, what }))
        ),
        Effect.orDie
      )
    return {
      backfill: (connectionId) =>
        Effect.gen(function*() {
          yield* engine.planBackfill(connectionId)
          yield* send(connectionId, "Backfill", makeClient(connectionId).Backfill(undefined, { discard: true }))
        }),
      syncWindow: (connectionId, window) =>
        send(connectionId, "SyncWindow", makeClient(connectionId).SyncWindow(window ?? {}, { discard: true })),
      backfillRange: (connectionId, range) =>
        send(connectionId, "BackfillRange", makeClient(connectionId).BackfillRange(range, { discard: true })),
      notify: (connectionId, notification) =>
        send(connectionId, "Notify", makeClient(connectionId).Notify({ notification }, { discard: true })),
      stop: (connectionId) => send(connectionId, "Stop", makeClient(connectionId).Stop(undefined, { discard: true })),
      resumeUser: (userId) =>
        Effect.gen(function*() {
          for (const id of yield* connections.stoppedIdsOfUser(userId)) {
            yield* send(id, "SyncWindow", makeClient(id).SyncWindow({}, { discard: true }))
          }
        })
    }
  })
)
