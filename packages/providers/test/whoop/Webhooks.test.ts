/**
 * WHOOP's webhook receiver: the X-WHOOP-Signature check (HMAC-SHA256 of timestamp + body keyed
 * with the client secret), the five-minute timestamp window taken from the given time, 401 for
 * either, 400 for a malformed body, and the event as one notification with string ids.
 */
import { describe, expect, it } from "@effect/vitest"
import { whoopSignatureOf, WhoopTimestampToleranceMs, whoopWebhooks } from "@pulsebridge/providers"
import * as crypto from "node:crypto"
import { app, clientSecret, get, post } from "../fixtures/Webhook.js"

const now = Date.UTC(2024, 0, 31, 12)

const signed = (body: string, sentAt = now, secret = clientSecret) =>
  post(body, {
    "x-whoop-signature": whoopSignatureOf(String(sentAt), body, secret),
    "x-whoop-signature-timestamp": String(sentAt)
  })

const event = { user_id: 10129, id: "ecfc6a15-4661-442f-a9a4-f160dd7afae8", type: "sleep.updated", trace_id: "t-1" }

describe("whoopWebhooks", () => {
  it("signs with HMAC-SHA256 of timestamp + body keyed with the client secret", () => {
    const expected = crypto.createHmac("sha256", clientSecret).update("1706702400000{}").digest("base64")
    expect(whoopSignatureOf("1706702400000", "{}", clientSecret)).toBe(expected)
  })

  it("turns a signed event into one notification, ids as strings, answered 204", () => {
    expect(whoopWebhooks(signed(JSON.stringify(event)), app, now)).toEqual({
      _tag: "Accepted",
      status: 204,
      notifications: [{
        providerUserId: "10129",
        notification: { _tag: "WhoopEvent", type: "sleep.updated", id: "ecfc6a15-4661-442f-a9a4-f160dd7afae8" }
      }],
      deregistrations: []
    })
    const numeric = JSON.stringify({ user_id: "10129", id: 93845, type: "workout.updated" })
    expect(whoopWebhooks(signed(numeric), app, now)).toMatchObject({
      notifications: [{ providerUserId: "10129", notification: { _tag: "WhoopEvent", id: "93845" } }]
    })
  })

  it("accepts a timestamp up to five minutes either side of now, and refuses an older or newer one with 401", () => {
    const body = JSON.stringify(event)
    for (const sentAt of [now - WhoopTimestampToleranceMs, now + WhoopTimestampToleranceMs]) {
      expect(whoopWebhooks(signed(body, sentAt), app, now)._tag).toBe("Accepted")
    }
    const stale = { _tag: "Rejected", status: 401, message: "Missing or stale signature timestamp" }
    expect(whoopWebhooks(signed(body, now - WhoopTimestampToleranceMs - 1), app, now)).toEqual(stale)
    expect(whoopWebhooks(signed(body, now + WhoopTimestampToleranceMs + 1), app, now)).toEqual(stale)
    expect(whoopWebhooks(post(body, { "x-whoop-signature": "x" }), app, now)).toEqual(stale)
    expect(whoopWebhooks(post(body, { "x-whoop-signature-timestamp": "soon", "x-whoop-signature": "x" }), app, now))
      .toEqual(stale)
  })

  it("refuses a missing or wrong signature with 401", () => {
    const body = JSON.stringify(event)
    const bad = { _tag: "Rejected", status: 401, message: "Bad signature" }
    expect(whoopWebhooks(post(body, { "x-whoop-signature-timestamp": String(now) }), app, now)).toEqual(bad)
    expect(whoopWebhooks(signed(body, now, "another-secret"), app, now)).toEqual(bad)
    const tampered = signed(body)
    expect(whoopWebhooks({ ...tampered, body: body.replace("sleep", "workout") }, app, now)).toEqual(bad)
  })

  it("answers a signed but malformed body 400, and a GET 404", () => {
    for (const body of ["not json", JSON.stringify({ user_id: 1, id: 2 }), JSON.stringify({ ...event, id: null })]) {
      expect(whoopWebhooks(signed(body), app, now)).toEqual({
        _tag: "Rejected",
        status: 400,
        message: "Malformed webhook body"
      })
    }
    expect(whoopWebhooks(get({}), app, now)).toMatchObject({ _tag: "Rejected", status: 404 })
  })
})
