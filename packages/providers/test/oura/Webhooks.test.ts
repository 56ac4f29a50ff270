/**
 * Oura webhooks: the verification challenge (GET with `verification_token` and `challenge`, answered with
 * `{"challenge": ...}`), signed notifications (`x-oura-signature`, the upper-case hex HMAC-SHA256 of
 * `x-oura-timestamp` + body keyed with the client secret), `notify` turning a notification into a re-read of the
 * document's day, and `afterBackfill` making and renewing the app's subscriptions against the simulator.
 * Oura's page: https://cloud.ouraring.com/v2/docs (Webhooks, Webhook Subscription Routes); the signature as the
 * public webhook guide gives it: https://www.skills.sh/hookdeck/webhook-skills/oura-webhooks.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import type { WebhookApp, WebhookNotification, WebhookRequest } from "@pulsebridge/providers"
import {
  OuraAdapter,
  OuraData,
  ouraPublicCallback,
  ouraSignatureOf,
  ouraVerificationToken,
  ouraWebhooks
} from "@pulsebridge/providers/oura/index"
import { serveHttpApp } from "@pulsebridge/sandbox"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { connectOura, ouraClient, withHttp } from "./Connect.js"

const app: WebhookApp = {
  clientId: ouraClient.clientId,
  clientSecret: Redacted.make(ouraClient.clientSecret),
  verificationCode: null
}
const nowMs = Date.parse("2025-06-15T12:00:00Z")
const token = ouraVerificationToken(ouraClient.clientSecret)

const verification = (query: Record<string, string>): WebhookRequest => ({
  method: "GET",
  query: new URLSearchParams(query),
  headers: {},
  body: ""
})

const body = JSON.stringify({
  event_type: "update",
  data_type: "daily_readiness",
  object_id: "doc-1",
  event_time: "2025-06-15T11:59:30Z",
  user_id: "user-1"
})

const signed = (text: string, timestamp = String(Math.floor(nowMs / 1000)), secret = ouraClient.clientSecret) => ({
  method: "POST" as const,
  query: new URLSearchParams(),
  headers: { "x-oura-timestamp": timestamp, "x-oura-signature": ouraSignatureOf(timestamp, text, secret) },
  body: text
})

describe("ouraWebhooks", () => {
  it("answers the verification challenge with the app's token, and only with it", () => {
    const request = verification({ verification_token: token, challenge: "abc123" })
    expect(ouraWebhooks(request, app, nowMs)).toEqual({ _tag: "Verified", status: 200, body: { challenge: "abc123" } })
    const wrong = verification({ verification_token: "guess", challenge: "abc123" })
    expect(ouraWebhooks(wrong, app, nowMs)).toMatchObject({ _tag: "Rejected", status: 401 })
    expect(ouraWebhooks(verification({ challenge: "x" }), app, nowMs)).toMatchObject({ status: 400 })
    // an operator-set verification code is accepted beside the derived token, which the subscriptions made after a
    // backfill carry
    const configured = { ...app, verificationCode: "operator-token" }
    expect(ouraWebhooks(verification({ verification_token: "operator-token", challenge: "c" }), configured, nowMs))
      .toEqual({ _tag: "Verified", status: 200, body: { challenge: "c" } })
    expect(ouraWebhooks(verification({ verification_token: token, challenge: "d" }), configured, nowMs))
      .toEqual({ _tag: "Verified", status: 200, body: { challenge: "d" } })
    expect(ouraWebhooks(verification({ verification_token: "guess", challenge: "e" }), configured, nowMs))
      .toMatchObject({ _tag: "Rejected", status: 401 })
  })

  it("accepts a signed notification as a notification for its user", () => {
    const result = ouraWebhooks(signed(body), app, nowMs)
    expect(result).toEqual({
      _tag: "Accepted",
      status: 200,
      notifications: [{
        providerUserId: "user-1",
        notification: {
          _tag: "OuraEvent",
          eventType: "update",
          dataType: "daily_readiness",
          objectId: "doc-1",
          eventTime: "2025-06-15T11:59:30Z"
        }
      }],
      deregistrations: []
    })
  })

  it("refuses a bad signature, another app's, a stale timestamp, and a malformed body", () => {
    const tampered = { ...signed(body), body: body.replace("user-1", "user-2") }
    expect(ouraWebhooks(tampered, app, nowMs)).toMatchObject({ _tag: "Rejected", status: 401 })
    expect(ouraWebhooks(signed(body, undefined, "another-secret"), app, nowMs)).toMatchObject({ status: 401 })
    const stale = signed(body, String(Math.floor(nowMs / 1000) - 3600))
    expect(ouraWebhooks(stale, app, nowMs)).toMatchObject({ status: 401 })
    expect(ouraWebhooks({ ...signed(body), headers: {} }, app, nowMs)).toMatchObject({ status: 401 })
    expect(ouraWebhooks(signed("{\"event_type\":1}"), app, nowMs)).toMatchObject({ status: 400 })
  })

  it("acknowledges notifications of collections it does not read, with nothing to do", () => {
    const tag = JSON.stringify({ event_type: "create", data_type: "tag", object_id: "t", user_id: "u" })
    expect(ouraWebhooks(signed(tag), app, nowMs)).toMatchObject({ _tag: "Accepted", notifications: [] })
  })

  it("subscribes only through a callback Oura can reach", () => {
    const oura = { authBaseUrl: "", tokenBaseUrl: "", apiBaseUrl: "https://api.ouraring.com" }
    expect(ouraPublicCallback("https://pb.example.com/webhooks/oura/app-1", oura)).toBe(
      "https://pb.example.com/webhooks/oura/app-1"
    )
    expect(ouraPublicCallback("http://pb.example.com/webhooks/oura/app-1", oura)).toBeNull()
    expect(ouraPublicCallback("https://localhost:8443/webhooks/oura/app-1", oura)).toBeNull()
    expect(ouraPublicCallback("https://192.168.1.20/webhooks/oura/app-1", oura)).toBeNull()
    expect(ouraPublicCallback(null, oura)).toBeNull()
    const sandbox = { ...oura, apiBaseUrl: "http://127.0.0.1:9000/sandbox/oura" }
    expect(ouraPublicCallback("http://127.0.0.1:9000/webhooks/oura/app-1", sandbox)).not.toBeNull()
  })
})

/** A server endpoint as the lead's server would be: the receiver, the challenge answered with its body. */
const endpoint = (now: () => number) =>
  Effect.gen(function*() {
    const notifications: Array<WebhookNotification> = []
    const handler = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const text = yield* Effect.orElseSucceed(request.text, () => "")
      const url = new URL(request.url, "http://x")
      const delivery: WebhookRequest = {
        method: request.method === "GET" ? "GET" : "POST",
        query: url.searchParams,
        headers: request.headers,
        body: text
      }
      const result = ouraWebhooks(delivery, app, now())
      if (result._tag === "Verified") return HttpServerResponse.unsafeJson(result.body, { status: result.status })
      if (result._tag === "Rejected") return HttpServerResponse.text(result.message, { status: result.status })
      notifications.push(...result.notifications)
      return HttpServerResponse.empty({ status: result.status })
    })
    const served = yield* serveHttpApp(handler)
    return { url: `${served.baseUrl}/webhooks/oura/app-1`, notifications }
  })

describe("Oura subscriptions and notifications", () => {
  it.scopedLive("afterBackfill subscribes once through a verified callback, then renews what expires", () =>
    withHttp(Effect.gen(function*() {
      const { clock, input, sim } = yield* connectOura()
      const hook = yield* endpoint(() => clock.ms)
      const after = OuraData.afterBackfill!
      // against Oura itself, a callback Oura cannot reach (loopback): nothing is subscribed (no call is made at
      // all), periodic sync stays
      yield* after({ ...input(), endpoints: OuraAdapter.defaultEndpoints, connectionId: "c-1", webhookUrl: hook.url })
      expect(sim.control.subscriptions()).toHaveLength(0)
      const withCallback = { ...input(), connectionId: "c-1", webhookUrl: hook.url }
      yield* after(withCallback)
      const first = sim.control.subscriptions(ouraClient.clientId)
      expect(first).toHaveLength(14)
      expect(first.every((s) => s["callback_url"] === hook.url)).toBe(true)
      // a second connection's backfill changes nothing
      sim.control.clearCalls()
      yield* after({ ...withCallback, connectionId: "c-2" })
      expect(sim.control.calls({ method: "POST", path: "/v2/webhook/subscription" })).toHaveLength(0)
      expect(sim.control.calls({ method: "PUT" })).toHaveLength(0)
      // subscriptions about to expire are renewed, not made again
      sim.control.expireSubscriptions(86_400_000)
      yield* after(withCallback)
      expect(sim.control.calls({ method: "PUT", path: "/v2/webhook/subscription/renew/*" })).toHaveLength(14)
      expect(sim.control.subscriptions()).toHaveLength(14)
    })))

  it.scopedLive("a notification delivered by Oura re-reads the day of the document it names", () =>
    withHttp(Effect.gen(function*() {
      const { clock, input, providerUserId, sim } = yield* connectOura()
      const hook = yield* endpoint(() => clock.ms)
      const withCallback = { ...input(), connectionId: "c-1", webhookUrl: hook.url }
      yield* OuraData.afterBackfill!(withCallback)
      yield* sim.control.notify({
        userId: providerUserId,
        dataType: "sleep",
        eventType: "update",
        day: "2025-06-12"
      })
      expect(hook.notifications).toHaveLength(1)
      const [delivered] = hook.notifications
      expect(delivered!.providerUserId).toBe(providerUserId)
      const outcome = yield* OuraData.notify(input(), delivered!.notification)
      expect(outcome).toEqual({ _tag: "Resync", window: { from: "2025-06-12", to: "2025-06-12" } })
      const deleted = yield* OuraData.notify(input(), {
        _tag: "OuraEvent",
        eventType: "delete",
        dataType: "workout",
        objectId: "w-1"
      })
      expect(deleted).toEqual({ _tag: "Delete", deletions: [{ kind: "Workout", providerRecordId: "w-1" }] })
      const gone = yield* OuraData.notify(input(), {
        _tag: "OuraEvent",
        eventType: "update",
        dataType: "sleep",
        objectId: "no-such-document"
      })
      expect(gone).toMatchObject({ _tag: "Store" })
      const unreadable = yield* Effect.flip(OuraData.notify(input(), { _tag: "Other" }))
      expect(unreadable.code).toBe("invalid_notification")
    })))
})
