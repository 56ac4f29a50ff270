/**
 * Garmin's `notify`: a push stores the pushed summaries (no request), a ping stores what its
 * callback URL returns (pulled from the configured API host, signed), and anything else,
 * including a push whose envelope is not JSON, is a `ProviderError`.
 */
import { describe, expect, it } from "@effect/vitest"
import type { FetchInput } from "@pulsebridge/providers"
import { emptyBatch, GarminPlugin, garminWebhooks, normaliseGarminDaily } from "@pulsebridge/providers"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { credentials, endpoints, fakeHttp, json } from "../fixtures/FakeHttp.js"
import { app, post } from "../fixtures/Webhook.js"

const input: FetchInput = {
  credentials,
  endpoints,
  tokens: {
    accessToken: Redacted.make("uat-token-1111"),
    refreshToken: null,
    tokenSecret: Redacted.make("uat-secret-2222"),
    expiresAt: null,
    scopes: ""
  },
  providerUserId: "u1",
  now: new Date(Date.UTC(2024, 0, 31, 12))
}

const daily = (summaryId: string, steps: number, calendarDate = "2024-01-30", durationInSeconds = 86_400) => ({
  userId: "u1",
  userAccessToken: "uat-token-1111",
  summaryId,
  calendarDate,
  durationInSeconds,
  steps
})

const noHttp = fakeHttp(() => {
  throw new Error("no request expected")
})

describe("GarminPlugin.data.notify", () => {
  it.effect("stores the summaries of a push, one per day (the most complete upload), as the receiver passed them on", () =>
    Effect.gen(function*() {
      const received = garminWebhooks(
        post(
          JSON.stringify({
            dailies: [daily("s1-a", 10, "2024-01-30", 20_000), daily("s2", 20, "2024-01-29"), daily("s1-b", 30)]
          }),
          {
            "garmin-client-id": "client-id-123"
          }
        ),
        app,
        0
      )
      if (received._tag !== "Accepted") throw new Error("expected an accepted delivery")
      const outcome = yield* GarminPlugin.data.notify(input, received.notifications[0]!.notification)
      expect(outcome).toEqual({
        _tag: "Store",
        batch: {
          ...emptyBatch,
          dailyActivity: [
            normaliseGarminDaily(daily("s2", 20, "2024-01-29"), "u1"),
            normaliseGarminDaily(daily("s1-b", 30), "u1")
          ],
          quarantined: []
        }
      })
    }).pipe(Effect.provide(noHttp.layer)))

  it.effect("pulls a ping's callback from the configured API host and stores what it returns", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => json(200, [daily("s9", 99)]))
      const outcome = yield* GarminPlugin.data.notify(input, {
        _tag: "GarminPing",
        callbackUrl: "https://elsewhere.example/wellness-api/rest/dailies?uploadStartTimeInSeconds=1&token=x"
      }).pipe(Effect.provide(http.layer))
      expect(outcome).toEqual({
        _tag: "Store",
        batch: { ...emptyBatch, dailyActivity: [normaliseGarminDaily(daily("s9", 99), "u1")], quarantined: [] }
      })
      expect(http.sent).toHaveLength(1)
      expect(http.sent[0]!.url.origin).toBe("https://api.example.test")
      expect(http.sent[0]!.url.search).toBe("?uploadStartTimeInSeconds=1&token=x")
      expect(http.sent[0]!.headers.authorization).toMatch(/^OAuth /)
    }))

  it.effect("a push stored before sleeps were read (dailiesJson) is still read", () =>
    Effect.gen(function*() {
      const outcome = yield* GarminPlugin.data.notify(input, {
        _tag: "GarminPush",
        dailiesJson: JSON.stringify({ dailies: [daily("s7", 70)] })
      })
      expect(outcome).toMatchObject({
        _tag: "Store",
        batch: { dailyActivity: [normaliseGarminDaily(daily("s7", 70), "u1")] }
      })
    }).pipe(Effect.provide(noHttp.layer)))

  it.effect("pulls a sleeps or pulse ox callback at its own path; any other path is refused without a request", () =>
    Effect.gen(function*() {
      const sleep = { userId: "u1", summaryId: "n1", startTimeInSeconds: 1706569200, durationInSeconds: 28800 }
      const http = fakeHttp((sent) => json(200, sent.url.pathname.endsWith("/sleeps") ? [sleep] : []))
      const sleeps = yield* GarminPlugin.data.notify(input, {
        _tag: "GarminPing",
        callbackUrl: "https://apis.garmin.com/wellness-api/rest/sleeps?uploadStartTimeInSeconds=1&token=x"
      }).pipe(Effect.provide(http.layer))
      expect(sleeps._tag === "Store" && sleeps.batch.sleep.map((s) => s.providerRecordId)).toEqual(["u1:1706569200"])
      // Garmin's ping key is `pulseox`; its pull path is `pulseOx`, and the lower-case spelling is read as the same type
      yield* GarminPlugin.data.notify(input, {
        _tag: "GarminPing",
        callbackUrl: "https://apis.garmin.com/wellness-api/rest/pulseox?uploadStartTimeInSeconds=1&token=y"
      }).pipe(Effect.provide(http.layer))
      expect(http.sent.map((s) => s.url.pathname)).toEqual(["/wellness-api/rest/sleeps", "/wellness-api/rest/pulseox"])
      for (const path of ["epochs", "sleeps/../user/registration", "backfill/sleeps", "sleepsX"]) {
        const refused = yield* Effect.flip(
          GarminPlugin.data.notify(input, {
            _tag: "GarminPing",
            callbackUrl: `https://apis.garmin.com/wellness-api/rest/${path}?token=z`
          }).pipe(Effect.provide(http.layer))
        )
        expect(refused.message).toContain("not a summary pull")
      }
      expect(http.sent).toHaveLength(2)
    }))

  it.effect("refuses what is not a Garmin notification with a ProviderError that does not echo it", () =>
    Effect.gen(function*() {
      for (
        const notification of [
          undefined,
          { _tag: "GarminPush" },
          { _tag: "GarminPush", dailiesJson: "{not json uat-token-1111" },
          { _tag: "GarminPing", callbackUrl: 7 },
          { _tag: "FitbitDay", date: "2024-01-30" }
        ]
      ) {
        const error = yield* Effect.flip(GarminPlugin.data.notify(input, notification))
        expect(error).toMatchObject({ _tag: "ProviderError", provider: "Garmin", operation: "notification" })
        expect(error.message).not.toContain("uat-token-1111")
      }
    }).pipe(Effect.provide(noHttp.layer)))
})
