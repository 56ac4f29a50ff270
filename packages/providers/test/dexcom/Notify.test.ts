/**
 * Dexcom sends no notifications: its plug-in has no webhook receiver, and `notify` refuses any
 * value with a `ProviderError`.
 */
import { describe, expect, it } from "@effect/vitest"
import { DexcomPlugin } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import { credentials, endpoints, fakeHttp, oauth2Tokens } from "../fixtures/FakeHttp.js"

describe("DexcomPlugin notifications", () => {
  it.effect("has no webhook receiver and refuses any notification", () =>
    Effect.gen(function*() {
      expect(DexcomPlugin.webhooks).toBeUndefined()
      const input = { credentials, endpoints, tokens: oauth2Tokens(), providerUserId: "u", now: new Date(0) }
      const error = yield* Effect.flip(DexcomPlugin.data.notify(input, { _tag: "FitbitDay", date: "2024-01-30" }))
      expect(error).toMatchObject({ _tag: "ProviderError", provider: "Dexcom", operation: "notification" })
    }).pipe(Effect.provide(
      fakeHttp(() => {
        throw new Error("no request expected")
      }).layer
    )))
})
