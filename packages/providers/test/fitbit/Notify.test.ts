/**
 * Fitbit's `notify`: a `GoogleHealthChange` notification (as the receiver makes it, or read back
 * as JSON) asks for its days to be read again; anything else is a `ProviderError`, not a defect.
 * There is no per-user subscription after a backfill: the operator's subscriber (AUTOMATIC
 * policy) covers every consenting user.
 */
import { describe, expect, it } from "@effect/vitest"
import type { FetchInput } from "@pulsebridge/providers"
import { FitbitPlugin } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import { credentials, endpoints, fakeHttp, oauth2Tokens } from "../fixtures/FakeHttp.js"

const input: FetchInput = {
  credentials,
  endpoints,
  tokens: oauth2Tokens(),
  providerUserId: "2514986753",
  now: new Date(Date.UTC(2026, 10, 20, 12))
}

const noHttp = fakeHttp(() => {
  throw new Error("no request expected")
})

describe("FitbitPlugin.data.notify", () => {
  it.effect("asks for the notified days to be read again", () =>
    Effect.gen(function*() {
      const outcome = yield* FitbitPlugin.data.notify(
        input,
        JSON.parse(`{"_tag":"GoogleHealthChange","dataType":"steps","from":"2026-11-18","to":"2026-11-19"}`)
      )
      expect(outcome).toEqual({ _tag: "Resync", window: { from: "2026-11-18", to: "2026-11-19" } })
    }).pipe(Effect.provide(noHttp.layer)))

  it.effect("refuses what is not such a notification with a ProviderError", () =>
    Effect.gen(function*() {
      for (
        const notification of [
          null,
          "x",
          { _tag: "FitbitDay", date: "2024-01-30" },
          { _tag: "GoogleHealthChange", dataType: "steps", from: "2026-02-30", to: "2026-03-01" }
        ]
      ) {
        const error = yield* Effect.flip(FitbitPlugin.data.notify(input, notification))
        expect(error._tag).toBe("ProviderError")
        expect(error).toMatchObject({ provider: "Fitbit", operation: "notification", code: "invalid_notification" })
      }
    }).pipe(Effect.provide(noHttp.layer)))

  it("subscribes nobody after a backfill", () => {
    expect(FitbitPlugin.data.afterBackfill).toBeUndefined()
  })
})
