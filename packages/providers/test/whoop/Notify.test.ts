/**
 * WHOOP's `notify`: a `*.deleted` event becomes canonical deletions without a request (a sleep
 * takes its recoveries along; a recovery event names its sleep), an update is read by id and
 * stored, an unknown type stores nothing, and a value that is not a WHOOP event is a
 * `ProviderError`.
 */
import { describe, expect, it } from "@effect/vitest"
import type { FetchInput } from "@pulsebridge/providers"
import { emptyBatch, normaliseWhoopWorkout, WhoopPlugin, WhoopWorkout } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { credentials, endpoints, fakeHttp, json, oauth2Tokens } from "../fixtures/FakeHttp.js"

const input: FetchInput = {
  credentials,
  endpoints,
  tokens: oauth2Tokens(),
  providerUserId: "10129",
  now: new Date(Date.UTC(2024, 0, 31, 12))
}

const noHttp = fakeHttp(() => {
  throw new Error("no request expected")
})

const event = (type: string, id: string) => ({ _tag: "WhoopEvent", type, id })

const workout = {
  id: "w-1",
  start: "2024-01-30T18:00:00.000Z",
  end: "2024-01-30T19:00:00.000Z",
  timezone_offset: "-05:00",
  sport_name: "running",
  score_state: "SCORED",
  score: { strain: 8.2, average_heart_rate: 140, max_heart_rate: 170, kilojoule: 2000 }
}

describe("WhoopPlugin.data.notify", () => {
  it.effect("turns deletions into canonical deletions without a request", () =>
    Effect.gen(function*() {
      const notify = (type: string) => WhoopPlugin.data.notify(input, event(type, "s-1"))
      expect(yield* notify("sleep.deleted")).toEqual({
        _tag: "Delete",
        deletions: [{ kind: "RecoveryOfSleep", sleepId: "s-1" }, { kind: "Sleep", providerRecordId: "s-1" }]
      })
      expect(yield* notify("recovery.deleted")).toEqual({
        _tag: "Delete",
        deletions: [{ kind: "RecoveryOfSleep", sleepId: "s-1" }]
      })
      expect(yield* notify("workout.deleted")).toEqual({
        _tag: "Delete",
        deletions: [{ kind: "Workout", providerRecordId: "s-1" }]
      })
      expect(yield* notify("cycle.deleted")).toEqual({ _tag: "Delete", deletions: [] })
    }).pipe(Effect.provide(noHttp.layer)))

  it.effect("reads an updated record by id and stores it; a record that is gone stores nothing", () =>
    Effect.gen(function*() {
      const http = fakeHttp((sent) =>
        sent.url.pathname === "/developer/v2/activity/workout/w-1" ? json(200, workout) : json(404, {})
      )
      const stored = yield* WhoopPlugin.data.notify(input, event("workout.updated", "w-1")).pipe(
        Effect.provide(http.layer)
      )
      expect(stored).toEqual({
        _tag: "Store",
        batch: { ...emptyBatch, workouts: [normaliseWhoopWorkout(Schema.decodeUnknownSync(WhoopWorkout)(workout))] }
      })
      const gone = yield* WhoopPlugin.data.notify(input, event("workout.updated", "w-2")).pipe(
        Effect.provide(http.layer)
      )
      expect(gone).toEqual({ _tag: "Store", batch: emptyBatch })
      expect(http.sent.map((s) => s.url.pathname)).toEqual([
        "/developer/v2/activity/workout/w-1",
        "/developer/v2/activity/workout/w-2"
      ])
    }))

  it.effect("stores nothing for an event type it does not know", () =>
    Effect.gen(function*() {
      expect(yield* WhoopPlugin.data.notify(input, event("body.updated", "x"))).toEqual({
        _tag: "Store",
        batch: emptyBatch
      })
    }).pipe(Effect.provide(noHttp.layer)))

  it.effect("refuses what is not a WHOOP event with a ProviderError", () =>
    Effect.gen(function*() {
      for (const notification of [null, { _tag: "WhoopEvent", type: "sleep.updated" }, { type: "a", id: "b" }]) {
        const error = yield* Effect.flip(WhoopPlugin.data.notify(input, notification))
        expect(error).toMatchObject({ _tag: "ProviderError", provider: "WHOOP", operation: "notification" })
      }
    }).pipe(Effect.provide(noHttp.layer)))
})
