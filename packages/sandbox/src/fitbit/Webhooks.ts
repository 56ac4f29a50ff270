/**
 * The simulator's outbound side: notifications POSTed as Google sends them (`{"data": {...}}`,
 * with the subscriber's `Authorization` value and an `X-HEALTHAPI-SIGNATURE` header), and the two
 * verification POSTs of `{"type":"verification"}` Google makes before it accepts a subscriber
 * endpoint (with the `Authorization` value: 201 expected; without: 401 or 403 expected).
 *
 * The signature is made the way Google's is verified (ECDSA P-256, SHA-256, DER, over the exact
 * body; the header the base64 of Tink's prefix, 0x01 and the 4-byte key id, then the signature),
 * with a key of the simulator's own: derived from its client's secret, so that the sandbox
 * configuration, which gave it that secret, can hand the matching public keyset to the receiver
 * (`webhookKeyset` is that keyset, in the form Google publishes its own). Google sends no
 * notification for active minutes or active energy: `notifyChange` refuses those data types.
 */
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { deliver } from "../core/Deliver.js"
import { addDaysTo } from "./Data.js"
import type { FitbitControl, GoogleHealthNotificationBody } from "./Shapes.js"
import { NOTIFIED_DATA_TYPES } from "./Shapes.js"

const p256Order = BigInt("0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

/** The private scalar of the key a client's secret gives (the same derivation as the receiver's sandbox keyset). */
const scalarOf = (clientSecret: string): Buffer => {
  let digest = crypto.createHash("sha256").update(`google-health-simulator-webhook-key:${clientSecret}`).digest()
  while (BigInt(`0x${digest.toString("hex")}`) === 0n || BigInt(`0x${digest.toString("hex")}`) >= p256Order) {
    digest = crypto.createHash("sha256").update(digest).digest()
  }
  return digest
}

interface SigningKey {
  readonly keyId: number
  readonly privateKey: crypto.KeyObject
  readonly point: Buffer
}

/** The simulator's key: from its client's secret, or (no client) a fresh one. */
const signingKeyOf = (clientSecret: string | undefined): SigningKey => {
  const ecdh = crypto.createECDH("prime256v1")
  if (clientSecret === undefined) ecdh.generateKeys()
  else ecdh.setPrivateKey(scalarOf(clientSecret))
  const point = ecdh.getPublicKey()
  const privateKey = crypto.createPrivateKey({
    key: {
      kty: "EC",
      crv: "P-256",
      d: ecdh.getPrivateKey().toString("base64url"),
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url")
    },
    format: "jwk"
  })
  return { keyId: crypto.createHash("sha256").update(point).digest().readUInt32BE(0), privateKey, point }
}

/** The header value: base64 of Tink's prefix (0x01, key id) and the DER ECDSA-SHA256 signature of `body`. */
export const googleHealthSignature = (key: SigningKey, body: string): string => {
  const prefix = Buffer.alloc(5)
  prefix[0] = 1
  prefix.writeUInt32BE(key.keyId, 1)
  const signature = crypto.sign("sha256", Buffer.from(body, "utf8"), { key: key.privateKey, dsaEncoding: "der" })
  return Buffer.concat([prefix, signature]).toString("base64")
}

/** The header a simulator whose client has `clientSecret` signs `body` with (for tests that post as it would). */
export const simulatorSignature = (clientSecret: string, body: string): string =>
  googleHealthSignature(signingKeyOf(clientSecret), body)

/** A Tink JSON public keyset of the key, as Google publishes its own. */
const keysetOf = (key: SigningKey): string => {
  const field = (n: number, bytes: Buffer) => Buffer.concat([Buffer.from([n * 8 + 2, bytes.length]), bytes])
  const withZero = (b: Buffer) => Buffer.concat([Buffer.from([0]), b])
  const value = Buffer.concat([
    // EcdsaParams: hash SHA256 (3), curve NIST_P256 (2), encoding DER (2)
    field(2, Buffer.from([0x08, 0x03, 0x10, 0x02, 0x18, 0x02])),
    field(3, withZero(key.point.subarray(1, 33))),
    field(4, withZero(key.point.subarray(33, 65)))
  ])
  return JSON.stringify({
    primaryKeyId: key.keyId,
    key: [{
      keyData: {
        typeUrl: "type.googleapis.com/google.crypto.tink.EcdsaPublicKey",
        value: value.toString("base64"),
        keyMaterialType: "ASYMMETRIC_PUBLIC"
      },
      status: "ENABLED",
      keyId: key.keyId,
      outputPrefixType: "TINK"
    }]
  })
}

export const makeFitbitWebhooks = (
  clientSecret: string | undefined
): Pick<FitbitControl, "notifyChange" | "sendNotification" | "verifySubscriber" | "webhookKeyset"> => {
  const key = signingKeyOf(clientSecret)

  const sendNotification: FitbitControl["sendNotification"] = (url, body, authorization) => {
    const text = JSON.stringify(body)
    return deliver(url, text, {
      ...(authorization === null ? {} : { authorization }),
      "x-healthapi-signature": googleHealthSignature(key, text)
    })
  }

  const notifyChange: FitbitControl["notifyChange"] = (url, change) => {
    if (!NOTIFIED_DATA_TYPES.includes(change.dataType)) {
      return Effect.dieMessage(`Google sends no notification for ${change.dataType}`)
    }
    const end = addDaysTo(change.to, 1)
    const body: GoogleHealthNotificationBody = {
      data: {
        version: "1",
        healthUserId: change.healthUserId,
        operation: "UPSERT",
        dataType: change.dataType,
        intervals: [{
          physicalTimeInterval: { startTime: `${change.from}T00:00:00Z`, endTime: `${end}T00:00:00Z` },
          civilIso8601TimeInterval: { startTime: `${change.from}T00:00:00`, endTime: `${end}T00:00:00` }
        }]
      }
    }
    return sendNotification(url, body, change.authorization)
  }

  const verifySubscriber: FitbitControl["verifySubscriber"] = (url, authorization) =>
    Effect.gen(function*() {
      const body = JSON.stringify({ type: "verification" })
      const withAuthorization = yield* deliver(url, body, { authorization })
      const withoutAuthorization = yield* deliver(url, body, {})
      return {
        withAuthorizationStatus: withAuthorization.status,
        withoutAuthorizationStatus: withoutAuthorization.status,
        verified: withAuthorization.status === 201 &&
          (withoutAuthorization.status === 401 || withoutAuthorization.status === 403)
      }
    })

  const keyset = keysetOf(key)
  return { sendNotification, notifyChange, verifySubscriber, webhookKeyset: () => keyset }
}
