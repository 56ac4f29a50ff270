/**
 * The `ConnectionSync` entity on its own (`Entity.makeTestClient`), with the engine swapped for one that
 * records what it is asked: each message runs the engine for the entity's own connection, in its turn among
 * the process's syncs, except a stop, which never waits for a turn.
 */
import { ShardingConfig } from "@effect/cluster"
import { Entity } from "@effect/cluster"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { ConnectionSync, ConnectionSyncLive } from "../../src/sync/ConnectionSync.js"
import { SyncEngine } from "../../src/sync/SyncEngine.js"

type Call = readonly [string, string, unknown?]

/** An engine that records each call; `inTurn` notes the turn taken around the work it wraps. */
const recordingEngine = (calls: Ref.Ref<ReadonlyArray<Call>>, turn: Effect.Effect<void> = Effect.void) => {
  const record = (call: Call) => Ref.update(calls, (all) => [...all, call])
  return Layer.succeed(
    SyncEngine,
    SyncEngine.make({
      inTurn: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        record(["turn", "taken"]).pipe(Effect.zipRight(turn), Effect.zipRight(effect)),
      backfill: (connectionId: string) => record(["backfill", connectionId]),
      syncWindow: (connectionId: string, window?: unknown) => record(["syncWindow", connectionId, window]),
      backfillRange: (connectionId: string, range: unknown) => record(["backfillRange", connectionId, range]),
      notify: (connectionId: string, notification: unknown) => record(["notify", connectionId, notification]),
      stop: (connectionId: string) => record(["stop", connectionId])
    } as unknown as SyncEngine)
  )
}

const testClient = (engine: Layer.Layer<SyncEngine>) =>
  Entity.makeTestClient(ConnectionSync, ConnectionSyncLive).pipe(
    Effect.provide(engine),
    Effect.provide(ShardingConfig.layer())
  )

describe("the ConnectionSync entity", () => {
  it.scoped("runs each message through the engine for its own connection, in its turn", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make<ReadonlyArray<Call>>([])
      const makeClient = yield* testClient(recordingEngine(calls))
      const client = yield* makeClient("connection-a")
      yield* client.Backfill()
      yield* client.SyncWindow({ from: "2026-11-01", to: "2026-11-03" })
      yield* client.SyncWindow({})
      yield* client.BackfillRange({ from: "2026-10-01", to: "2026-10-31" })
      yield* client.Notify({ notification: { kind: "dailies" } })
      expect(yield* Ref.get(calls)).toEqual([
        ["turn", "taken"],
        ["backfill", "connection-a"],
        ["turn", "taken"],
        ["syncWindow", "connection-a", { from: "2026-11-01", to: "2026-11-03" }],
        ["turn", "taken"],
        ["syncWindow", "connection-a", undefined],
        ["turn", "taken"],
        ["backfillRange", "connection-a", { from: "2026-10-01", to: "2026-10-31" }],
        ["turn", "taken"],
        ["notify", "connection-a", { kind: "dailies" }]
      ])
    }))

  it.scoped("a window with only one end reads the recent days, as one without either", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make<ReadonlyArray<Call>>([])
      const client = yield* Effect.flatMap(testClient(recordingEngine(calls)), (make) => make("connection-b"))
      yield* client.SyncWindow({ from: "2026-11-01" })
      expect((yield* Ref.get(calls)).filter(([what]) => what === "syncWindow")).toEqual([
        ["syncWindow", "connection-b", undefined]
      ])
    }))

  it.scoped("a stop does not wait for a turn among the process's syncs", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make<ReadonlyArray<Call>>([])
      // Every turn is taken and never given back: a message that waits for one waits forever.
      const never = yield* Deferred.make<void>()
      const makeClient = yield* testClient(recordingEngine(calls, Deferred.await(never)))
      const waiting = yield* Effect.fork((yield* makeClient("connection-c")).Backfill())
      yield* (yield* makeClient("connection-d")).Stop()
      expect(yield* Ref.get(calls)).toContainEqual(["stop", "connection-d"])
      expect(yield* Ref.get(calls)).not.toContainEqual(["backfill", "connection-c"])
      yield* Fiber.interrupt(waiting)
    }))
})
