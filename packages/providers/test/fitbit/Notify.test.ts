/**
 * Fitbit's `notify`: a `FitbitDay` notification (as the receiver makes it, or read back as JSON)
 * asks for that day to be read again; anything else is a `ProviderError`, not a defect. After a
 * backfill the user is subscribed under the connection id.
 */
import { describe, expect, it } from "@effect/vitest"
import type { FetchInput } from "@pulsebridge/providers"
import { FitbitPlugin } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import { credentials, endpoints, fakeHttp, json, noContent, oauth2Tokens } from "../fixtures/FakeHttp.js"

const input: FetchInput = {
  credentials,
  endpoints,
  tokens: oauth2Tokens(),
  providerUserId: "GGNJL9",
  now: new Date(Date.UTC(2024, 0, 31, 12))
}

const noHttp = fakeHttp(() => {
  throw new Error("no request expected")
})

describe("FitbitPlugin.data.notify", () => {
  it.effect("asks for the notified day to be read again", () =>
    Effect.gen(function*() {
      const outcome = yield* FitbitPlugin.data.notify(input, JSON.parse(`{"_tag":"FitbitDay","date":"2024-01-30"}`))
      expect(outcome).toEqual({ _tag: "Resync", window: { from: "2024-01-30", to: "2024-01-30" } })
    }).pipe(Effect.provide(noHttp.layer)))

  it.effect("refuses what is not a Fitbit notification with a ProviderError", () =>
    Effect.gen(function*() {
      for (const notification of [null, "x", { _tag: "FitbitDay" }, { _tag: "WhoopEvent", type: "a", id: "b" }]) {
        const error = yield* Effect.flip(FitbitPlugin.data.notify(input, notification))
        expect(error._tag).toBe("ProviderError")
        expect(error).toMatchObject({ provider: "Fitbit", operation: "notification" })
      }
    }).pipe(Effect.provide(noHttp.layer)))
})

describe("FitbitPlugin.data.afterBackfill", () => {
  it.effect("subscribes the user under the connection id, and takes a 409 as already subscribed", () =>
    Effect.gen(function*() {
      const http = fakeHttp((sent) => sent.url.pathname.includes("conn-1") ? noContent() : json(409, { errors: [] }))
      const afterBackfill = FitbitPlugin.data.afterBackfill!
      yield* afterBackfill({ ...input, connectionId: "conn-1" }).pipe(Effect.provide(http.layer))
      yield* afterBackfill({ ...input, connectionId: "conn-2" }).pipe(Effect.provide(http.layer))
      expect(http.sent.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
        "POST /1/user/-/activities/apiSubscriptions/conn-1.json",
        "POST /1/user/-/activities/apiSubscriptions/conn-2.json"
      ])
    }))
})
