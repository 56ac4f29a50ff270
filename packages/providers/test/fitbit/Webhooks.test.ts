/**
 * Fitbit's webhook receiver: subscriber verification (204 for the app's code, 404 otherwise),
 * the X-Fitbit-Signature check (HMAC-SHA1 keyed with secret + "&", 404 when wrong), malformed
 * bodies, and one notification per listed day.
 */
import { describe, expect, it } from "@effect/vitest"
import { fitbitSignatureOf, fitbitWebhooks } from "@pulsebridge/providers"
import * as crypto from "node:crypto"
import { app, clientSecret, get, post } from "../fixtures/Webhook.js"

const now = Date.UTC(2024, 0, 31, 12)

const signed = (body: string, secret = clientSecret) =>
  post(body, { "x-fitbit-signature": fitbitSignatureOf(body, secret) })

const items = [
  { collectionType: "activities", date: "2024-01-30", ownerId: "GGNJL9", ownerType: "user", subscriptionId: "c-1" },
  { collectionType: "activities", date: "2024-01-31", ownerId: "ABC123", ownerType: "user", subscriptionId: "c-2" }
]

describe("fitbitWebhooks", () => {
  it("signs with HMAC-SHA1 of the body keyed with the client secret and '&'", () => {
    const body = JSON.stringify(items)
    const expected = crypto.createHmac("sha1", "client-secret-456&").update(body).digest("base64")
    expect(fitbitSignatureOf(body, clientSecret)).toBe(expected)
  })

  it("verifies the subscriber with the app's code, and answers any other code 404", () => {
    expect(fitbitWebhooks(get({ verify: "verify-code-789" }), app, now)).toEqual({ _tag: "Verified" })
    expect(fitbitWebhooks(get({ verify: "wrong" }), app, now)).toEqual({
      _tag: "Rejected",
      status: 404,
      message: "Wrong verification code"
    })
    expect(fitbitWebhooks(get({}), app, now)).toMatchObject({ _tag: "Rejected", status: 404 })
    expect(fitbitWebhooks(get({ verify: "verify-code-789" }), { ...app, verificationCode: null }, now)).toMatchObject(
      { _tag: "Rejected", status: 404 }
    )
  })

  it("turns a signed delivery into one day to read again per item, answered 204", () => {
    expect(fitbitWebhooks(signed(JSON.stringify(items)), app, now)).toEqual({
      _tag: "Accepted",
      status: 204,
      notifications: [
        { providerUserId: "GGNJL9", notification: { _tag: "FitbitDay", date: "2024-01-30" } },
        { providerUserId: "ABC123", notification: { _tag: "FitbitDay", date: "2024-01-31" } }
      ],
      deregistrations: []
    })
  })

  it("answers a missing or wrong signature 404 (Fitbit's guidance)", () => {
    const body = JSON.stringify(items)
    const bad = { _tag: "Rejected", status: 404, message: "Bad signature" }
    expect(fitbitWebhooks(post(body), app, now)).toEqual(bad)
    expect(fitbitWebhooks(signed(body, "another-secret"), app, now)).toEqual(bad)
    expect(fitbitWebhooks(post(`${body} `, { "x-fitbit-signature": fitbitSignatureOf(body, clientSecret) }), app, now))
      .toEqual(bad)
  })

  it("answers a signed but malformed body 400", () => {
    for (
      const body of ["not json", "{}", JSON.stringify([{ ownerId: "x", date: "31/01/2024", collectionType: "a" }])]
    ) {
      expect(fitbitWebhooks(signed(body), app, now)).toEqual({
        _tag: "Rejected",
        status: 400,
        message: "Malformed notification body"
      })
    }
  })
})
