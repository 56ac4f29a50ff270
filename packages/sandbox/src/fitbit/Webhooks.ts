/**
 * The simulator's outbound side: notifications POSTed as Google sends them (`{"data": {...}}`,
 * with the subscriber's `Authorization` value and an `X-HEALTHAPI-SIGNATURE` header), and the two
 * verification POSTs of `{"type":"verification"}` Google makes before it accepts a subscriber
 * endpoint (with the `Authorization` value: 201 expected; without: 401 or 403 expected).
 *
 * The simulator signs with a key of its own (ECDSA P-256 over the body, base64): it cannot sign
 * as Google, so a receiver cannot check it against Google's key set; the header is there for
 * shape.
 */
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { deliver } from "../core/Deliver.js"
import { addDaysTo } from "./Data.js"
import type { FitbitControl, GoogleHealthNotificationBody } from "./Shapes.js"

const signingKey = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey

const signatureOf = (body: string) => crypto.sign("sha256", Buffer.from(body), signingKey).toString("base64")

export const makeFitbitWebhooks = (): Pick<FitbitControl, "notifyChange" | "sendNotification" | "verifySubscriber"> => {
  const sendNotification: FitbitControl["sendNotification"] = (url, body, authorization) => {
    const text = JSON.stringify(body)
    return deliver(url, text, {
      ...(authorization === null ? {} : { authorization }),
      "x-healthapi-signature": signatureOf(text)
    })
  }

  const notifyChange: FitbitControl["notifyChange"] = (url, change) => {
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

  return { sendNotification, notifyChange, verifySubscriber }
}
