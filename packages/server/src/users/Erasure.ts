/**
 * Erasure of a user (`POST /api/v1/users/{id}/erase`, the portal's and the CLI's alike, all through
 * `Erasure.erase`): in the request, one transaction hides the user at once (no read finds it, its
 * tokens are revoked, its syncs stop at the next check) and records its tombstone, and its
 * connections show `Stopped`; the rest is handed to `ErasureQueue`. In a server that is the cluster
 * entity `UserErasure` (entity id = user id), whose one persisted message, `Erase`, is stored before
 * the 202; the CLI runs the same work in the command (`ErasureInProcessLive`):
 *
 * 1. each grant is revoked at its provider (the disconnect's revocation: Garmin's is a
 *    deregistration), retried a few times with backoff, then given up with a log line so one
 *    unreachable provider never holds the erasure back; the connection is then Disconnected
 *    (tokens dropped), so a run after a crash does not revoke it again;
 * 2. the meal photos are removed from the blob store;
 * 3. one transaction deletes every row of the user and scrubs its identifiers from the audit log
 *    (`ErasureRepo.deleteRowsOf`), completes the tombstone and emits `user.erased`;
 * 4. on the embedded database, the deleted row versions are removed from its files (`forgetDeleted`).
 *
 * Every step may run again: a message not finished (a crash, a kill -9) is delivered again when
 * a runner comes back, and every worker start hands each unfinished tombstone to the entity
 * again (`ResumeErasuresLive`), which covers a crash between the commit and the message.
 */
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as SqlClient from "@effect/sql/SqlClient"
import type { AppId, UserId } from "@pulsebridge/domain"
import { ErasureAccepted } from "@pulsebridge/domain"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { UserTokensRepo } from "../access/UserTokensRepo.js"
import { ConnectionsRepo } from "../connections/ConnectionsRepo.js"
import { GrantRevocation } from "../connections/GrantRevocation.js"
import { Outbox } from "../events/Outbox.js"
import { BlobStore } from "../journal/BlobStore.js"
import { isUuid } from "../platform/Ids.js"
import { traced } from "../platform/Traced.js"
import { SyncStateRepo } from "../sync/SyncStateRepo.js"
import { ErasureRepo } from "./ErasureRepo.js"
import { UserNotFoundForErasure } from "./Users.js"

/** A revocation that fails is tried this often more, 2 s then doubling (with jitter): about half a minute. */
export const revocationRetry = Schedule.exponential(Duration.seconds(2)).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(3))
)

/**
 * Hands an accepted erasure to what finishes it: in a server, the `UserErasure` entity (returns once the message is
 * stored, `ErasureQueueLive`); in a process without the cluster, the work itself (returns when it is done).
 */
export class ErasureQueue extends Context.Tag("@pulsebridge/server/ErasureQueue")<ErasureQueue, {
  readonly enqueue: (userId: string) => Effect.Effect<void>
}>() {}

/** The erasure, whole. Needs the `ErasureQueue` of the process it runs in. */
export class Erasure extends Effect.Service<Erasure>()("@pulsebridge/server/Erasure", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ErasureRepo
    const tokens = yield* UserTokensRepo
    const syncs = yield* SyncStateRepo
    const queue = yield* ErasureQueue

    const hide = (appId: AppId, userId: string) =>
      Effect.gen(function*() {
        if (!isUuid(userId)) return yield* new UserNotFoundForErasure({ userId })
        const now = new Date(yield* Clock.currentTimeMillis)
        const tombstone = yield* repo.begin(appId, userId.toLowerCase(), now)
        if (Option.isNone(tombstone)) return yield* new UserNotFoundForErasure({ userId })
        yield* tokens.revokeAllOf(tombstone.value.id)
        return new ErasureAccepted({
          id: tombstone.value.id,
          status: "Erasing",
          requestedAt: tombstone.value.requestedAt
        })
      })

    return {
      /**
       * Erases the app's user: one transaction hides it, revokes its tokens and records the tombstone, with
       * `alongside` (what the caller records of the erasure, as the portal's audit event); then its connections show
       * `Stopped` and the rest is handed to the `ErasureQueue`. Asking again while the erasure runs answers the same
       * tombstone.
       */
      erase: traced("Erasure.erase")(function*<E = never, R = never>(
        appId: AppId,
        userId: string,
        alongside?: Effect.Effect<void, E, R>
      ) {
        const accepted = yield* hide(appId, userId).pipe(
          Effect.tap(() => alongside ?? Effect.void),
          sql.withTransaction,
          Effect.catchTag("SqlError", Effect.die)
        )
        // After the commit, as the soft delete (`Users.softDelete`) does, for the same reason.
        yield* syncs.stopUser(accepted.id)
        yield* queue.enqueue(accepted.id)
        return accepted
      })
    } as const
  }),
  dependencies: [ErasureRepo.Default, UserTokensRepo.Default, SyncStateRepo.Default]
}) {}

/**
 * The background part: revocations, photos, rows, tombstone and event. Needs the provider
 * access of `GrantRevocation` and the blob store. The syncs need no message: every provider read
 * checks first that the user is Active, which an erasing user is not.
 */
export class ErasureWork extends Effect.Service<ErasureWork>()("@pulsebridge/server/ErasureWork", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ErasureRepo
    const connections = yield* ConnectionsRepo
    const revocation = yield* GrantRevocation
    const blobs = yield* BlobStore
    const outbox = yield* Outbox

    const revokeGrants = (userId: string) =>
      Effect.gen(function*() {
        for (const connection of yield* repo.openConnections(userId)) {
          const revoked = yield* revocation.revoke(connection).pipe(
            Effect.tapError((error) =>
              Effect.logWarning("Revocation for an erasure failed; retrying").pipe(
                Effect.annotateLogs({
                  connectionId: connection.id,
                  provider: connection.provider,
                  reason: error.reason
                })
              )
            ),
            Effect.retry(revocationRetry),
            Effect.either
          )
          if (revoked._tag === "Left") {
            yield* Effect.logError("Gave up revoking a grant at its provider; erasing the user's data anyway").pipe(
              Effect.annotateLogs({
                userId,
                connectionId: connection.id,
                provider: connection.provider,
                reason: revoked.left.reason
              })
            )
          }
          yield* connections.markDisconnected(connection.id)
        }
      })

    return {
      /** Finishes the user's erasure; nothing to do when it has ended or was never asked for. */
      run: traced("ErasureWork.run")(function*(userId: string) {
        const tombstone = yield* repo.tombstone(userId)
        if (Option.isNone(tombstone) || tombstone.value.completedAt !== null) return
        const appId = tombstone.value.appId
        yield* revokeGrants(userId)
        yield* Effect.forEach(yield* repo.photoKeys(userId), blobs.remove, { discard: true })
        yield* Effect.gen(function*() {
          yield* repo.deleteRowsOf(userId)
          yield* outbox.emit({ appId, userId, type: "user.erased", data: { userId: userId as UserId } })
        }).pipe(sql.withTransaction, Effect.orDie)
        yield* Effect.logInfo("User erased").pipe(Effect.annotateLogs({ userId }))
        // After the commit, and never holding the erasure back: the rows are gone for every reader already.
        yield* repo.forgetDeleted.pipe(
          Effect.catchAllCause((cause) =>
            Effect.logWarning(
              "Vacuuming after an erasure failed; the deleted rows stay in the files until one runs",
              cause
            )
              .pipe(Effect.annotateLogs({ userId }))
          )
        )
      })
    } as const
  }),
  dependencies: [ErasureRepo.Default, ConnectionsRepo.Default, GrantRevocation.Default]
}) {}

export const Erase = Rpc.make("Erase", {
  payload: { userId: Schema.String },
  primaryKey: ({ userId }) => userId
}).annotate(ClusterSchema.Persisted, true)

export const UserErasureEntity = Entity.make("UserErasure", [Erase])

/** The entity's behaviour; it runs wherever the user's shard lives. */
export const UserErasureLive = UserErasureEntity.toLayer(
  Effect.gen(function*() {
    const work = yield* ErasureWork
    return {
      // A step that fails (the database gone for a moment) is tried again here, with backoff up to a
      // minute between tries: the message must not end with the erasure unfinished.
      Erase: (request) =>
        work.run(request.payload.userId).pipe(
          Effect.sandbox,
          Effect.tapError((cause) => Effect.logError("Erasure step failed; retrying", cause)),
          Effect.retry(Schedule.exponential(Duration.seconds(1)).pipe(Schedule.union(Schedule.spaced("1 minute")))),
          Effect.unsandbox
        )
    }
  }),
  { concurrency: 1 }
)

/** The server's `ErasureQueue`: the `UserErasure` entity's persisted message. */
export const ErasureQueueLive = Layer.effect(
  ErasureQueue,
  Effect.gen(function*() {
    const client = yield* UserErasureEntity.client
    return {
      enqueue: (userId: string) => client(userId).Erase({ userId }, { discard: true }).pipe(Effect.orDie)
    }
  })
)

/**
 * The `ErasureQueue` of a process without the cluster (the CLI): the work runs to its end where the erasure was asked
 * for. Interrupted, it is finished by the next start of a server's worker (`ResumeErasuresLive`).
 */
export const ErasureInProcessLive = Layer.effect(
  ErasureQueue,
  Effect.map(ErasureWork, (work) => ({ enqueue: (userId: string) => work.run(userId) }))
)

/**
 * At a worker's start, hands every unfinished erasure to the entity again: a crash between the
 * request's commit and its message would otherwise leave it unfinished. An erasure whose message
 * is still stored is not run twice at once (the message's primary key).
 */
export const ResumeErasuresLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* ErasureRepo
    const queue = yield* ErasureQueue
    const unfinished = yield* repo.unfinished
    yield* Effect.forEach(unfinished, queue.enqueue, { discard: true })
    if (unfinished.length > 0) {
      yield* Effect.logInfo("Resumed unfinished erasures").pipe(Effect.annotateLogs({ count: unfinished.length }))
    }
  }).pipe(Effect.forkScoped, Effect.asVoid)
)
