/**
 * The Google Health API notification receiver: the subscriber verification (201 with the
 * `Authorization` value, 401 without), notifications shaped as Google sends them (the `data`
 * envelope, alone or in a list) read into the days to read again, data types no window read is
 * made of left out, anything unreadable or unauthorised refused, and, when signing keys are
 * configured, the `X-HEALTHAPI-SIGNATURE` checked.
 *
 * Sources: the `EndpointAuthorization` reference (health:v4, developers.google.com/health/reference/rest/v4/
 * projects.subscribers: "an ECDSA (NIST P256) signature of the JSON payload" in `X-HEALTHAPI-SIGNATURE`, verified
 * with "Google Health API's public key"); the key's form and the signature's bytes as open-source receivers
 * verify them against the live API (a Tink JSON public keyset at
 * www.gstatic.com/googlehealthapi/webhooks/webhooks_public_keyset.json; base64 of 0x01, the 4-byte key id, then
 * the DER ECDSA-SHA256 signature of the raw body; `EcdsaParams` 08 03 10 02 18 02 = SHA256, NIST_P256, DER).
 */
import { describe, expect, it } from "@effect/vitest"
import type { WebhookApp, WebhookRequest } from "@pulsebridge/providers"
import { fitbitWebhooks, keysOfKeyset, tinkPublicKeyset, verifyGoogleSignature } from "@pulsebridge/providers"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"

const secret = "Bearer 8f2c1e-subscriber-secret"
const app: WebhookApp = { clientId: "client", clientSecret: Redacted.make("client-secret"), verificationCode: secret }
const now = Date.UTC(2026, 10, 20, 15)

const post = (body: string, headers: Record<string, string> = { authorization: secret }): WebhookRequest => ({
  method: "POST",
  query: new URLSearchParams(),
  headers: { "content-type": "application/json", ...headers },
  body
})

/** A notification as Google's webhook documentation and client libraries show it. */
const stepsChanged = {
  data: {
    version: "1",
    clientProvidedSubscriptionName: "pulsebridge",
    healthUserId: "2514986753",
    operation: "UPSERT",
    dataType: "steps",
    intervals: [{
      physicalTimeInterval: { startTime: "2026-11-19T05:00:00Z", endTime: "2026-11-20T05:00:00Z" },
      civilIso8601TimeInterval: { startTime: "2026-11-19T00:00:00", endTime: "2026-11-20T00:00:00" }
    }]
  }
}

describe("fitbitWebhooks (Google Health API)", () => {
  it("answers the verification with the Authorization value 201, and without it 401", () => {
    const body = JSON.stringify({ type: "verification" })
    expect(fitbitWebhooks(post(body), app, now)).toEqual({ _tag: "Verified", status: 201 })
    expect(fitbitWebhooks(post(body, {}), app, now)).toMatchObject({ _tag: "Rejected", status: 401 })
    expect(fitbitWebhooks(post(body, { authorization: "Bearer other" }), app, now)).toMatchObject({
      _tag: "Rejected",
      status: 401
    })
    expect(fitbitWebhooks(post(body), { ...app, verificationCode: null }, now)).toMatchObject({
      _tag: "Rejected",
      status: 401
    })
  })

  it("reads a notification into the civil days to read again; an end at midnight is the day before", () => {
    expect(fitbitWebhooks(post(JSON.stringify(stepsChanged)), app, now)).toEqual({
      _tag: "Accepted",
      status: 204,
      notifications: [{
        providerUserId: "2514986753",
        notification: { _tag: "GoogleHealthChange", dataType: "steps", from: "2026-11-19", to: "2026-11-19" }
      }],
      deregistrations: []
    })
  })

  it("takes a list of notifications; sleep, weight and a DELETE are re-reads, data types not read are left out", () => {
    const list = [
      stepsChanged,
      { data: { ...stepsChanged.data, dataType: "sleep" } },
      { data: { ...stepsChanged.data, dataType: "hydration-log" } },
      {
        data: {
          ...stepsChanged.data,
          healthUserId: "77",
          dataType: "distance",
          operation: "DELETE",
          intervals: [{
            physicalTimeInterval: { startTime: "2026-11-17T22:00:00Z", endTime: "2026-11-18T01:30:00Z" },
            civilIso8601TimeInterval: { startTime: "2026-11-17T17:00:00", endTime: "2026-11-17T20:30:00" }
          }]
        }
      }
    ]
    const result = fitbitWebhooks(post(JSON.stringify(list)), app, now)
    expect(result._tag === "Accepted" && result.notifications).toEqual([
      {
        providerUserId: "2514986753",
        notification: { _tag: "GoogleHealthChange", dataType: "steps", from: "2026-11-19", to: "2026-11-19" }
      },
      {
        providerUserId: "2514986753",
        notification: { _tag: "GoogleHealthChange", dataType: "sleep", from: "2026-11-19", to: "2026-11-19" }
      },
      {
        providerUserId: "77",
        notification: { _tag: "GoogleHealthChange", dataType: "distance", from: "2026-11-17", to: "2026-11-17" }
      }
    ])
  })

  it("without a civil interval, reads the physical one's UTC days and a day either side; without any, around now", () => {
    const physical = {
      data: {
        ...stepsChanged.data,
        intervals: [{ physicalTimeInterval: { startTime: "2026-11-19T05:00:00Z", endTime: "2026-11-19T06:00:00Z" } }]
      }
    }
    const none = { data: { ...stepsChanged.data, intervals: [] } }
    const read = (body: unknown) => {
      const result = fitbitWebhooks(post(JSON.stringify(body)), app, now)
      return result._tag === "Accepted" ? result.notifications.map((n) => n.notification) : result
    }
    expect(read(physical)).toEqual([{
      _tag: "GoogleHealthChange",
      dataType: "steps",
      from: "2026-11-18",
      to: "2026-11-20"
    }])
    expect(read(none)).toEqual([{
      _tag: "GoogleHealthChange",
      dataType: "steps",
      from: "2026-11-19",
      to: "2026-11-21"
    }])
  })

  it("refuses an unreadable body with 400 and a GET with 404, checking the Authorization first", () => {
    expect(fitbitWebhooks(post("{not json"), app, now)).toMatchObject({ _tag: "Rejected", status: 400 })
    expect(fitbitWebhooks(post(JSON.stringify({ data: { dataType: "steps" } })), app, now)).toMatchObject({
      _tag: "Rejected",
      status: 400
    })
    expect(fitbitWebhooks(post("{not json", {}), app, now)).toMatchObject({ _tag: "Rejected", status: 401 })
    expect(fitbitWebhooks({ ...post(""), method: "GET" }, app, now)).toMatchObject({ _tag: "Rejected", status: 404 })
  })

  it("re-reads the days of exercise, weight and the daily metrics", () => {
    for (const dataType of ["exercise", "weight", "body-fat", "daily-resting-heart-rate"]) {
      const result = fitbitWebhooks(post(JSON.stringify({ data: { ...stepsChanged.data, dataType } })), app, now)
      expect(result._tag === "Accepted" && result.notifications.map((n) => n.notification)).toEqual([
        { _tag: "GoogleHealthChange", dataType, from: "2026-11-19", to: "2026-11-19" }
      ])
    }
  })
})

/** A key of our own in Google's form: the Tink keyset, and a signer writing Tink's prefix and a DER signature. */
const googleLikeKey = (keyId: number) => {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" })
  const jwk = publicKey.export({ format: "jwk" })
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x!, "base64url"),
    Buffer.from(jwk.y!, "base64url")
  ])
  const prefix = Buffer.alloc(5)
  prefix[0] = 1
  prefix.writeUInt32BE(keyId, 1)
  return {
    keyset: tinkPublicKeyset(point, keyId),
    sign: (body: string) =>
      Buffer.concat([prefix, crypto.sign("sha256", Buffer.from(body), { key: privateKey, dsaEncoding: "der" })])
        .toString("base64")
  }
}

describe("fitbitWebhooks: the X-HEALTHAPI-SIGNATURE", () => {
  const google = googleLikeKey(1_924_318_005)
  const signed = { ...app, signingKeys: google.keyset }
  const body = JSON.stringify(stepsChanged)

  it("accepts a notification signed by a key of the configured keyset, over the exact body", () => {
    const result = fitbitWebhooks(
      post(body, { authorization: secret, "x-healthapi-signature": google.sign(body) }),
      signed,
      now
    )
    expect(result).toMatchObject({ _tag: "Accepted", status: 204 })
    // the header's later name in Google's client libraries is read too
    expect(
      fitbitWebhooks(
        post(body, { authorization: secret, "google-health-api-signature": google.sign(body) }),
        signed,
        now
      )
    ).toMatchObject({ _tag: "Accepted" })
  })

  it("refuses a missing, forged or other-body signature with 401 when keys are configured", () => {
    const other = googleLikeKey(1_924_318_005)
    for (
      const headers of [
        { authorization: secret },
        { authorization: secret, "x-healthapi-signature": other.sign(body) },
        { authorization: secret, "x-healthapi-signature": google.sign(`${body} `) },
        { authorization: secret, "x-healthapi-signature": "not base64!" },
        { authorization: secret, "x-healthapi-signature": "" }
      ]
    ) {
      expect(fitbitWebhooks(post(body, headers), signed, now)).toMatchObject({ _tag: "Rejected", status: 401 })
    }
    // a signature by a key of another id is not tried against this one
    const renamed = googleLikeKey(7)
    expect(
      fitbitWebhooks(post(body, { authorization: secret, "x-healthapi-signature": renamed.sign(body) }), signed, now)
    ).toMatchObject({ _tag: "Rejected", status: 401 })
  })

  it("does not check signatures without configured keys, nor on the verification challenge", () => {
    expect(fitbitWebhooks(post(body), app, now)).toMatchObject({ _tag: "Accepted" })
    expect(fitbitWebhooks(post(JSON.stringify({ type: "verification" })), signed, now)).toEqual({
      _tag: "Verified",
      status: 201
    })
  })

  it("reads a keyset of Google's form: enabled ECDSA P-256 keys only", () => {
    const parsed = JSON.parse(google.keyset)
    expect(keysOfKeyset(google.keyset)).toHaveLength(1)
    expect(keysOfKeyset(JSON.stringify({ ...parsed, key: [{ ...parsed.key[0], status: "DISABLED" }] }))).toEqual([])
    expect(keysOfKeyset("not a keyset")).toEqual([])
    // the value Google publishes: params 08 03 10 02 18 02, then x and y each with a leading zero byte
    expect(Buffer.from(parsed.key[0].keyData.value, "base64").subarray(0, 8).toString("hex")).toBe("1206080310021802")
    expect(verifyGoogleSignature(keysOfKeyset(google.keyset), body, undefined)).toBe(false)
  })
})
