/**
 * The Fitbit simulator's outbound side: `X-Fitbit-Signature` signing, notification delivery to
 * a subscriber (for every matching subscription), and the two verification GETs Fitbit makes
 * before it trusts a subscriber endpoint.
 */
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { deliver } from "../core/Deliver.js"
import type { FitbitControl, FitbitCore } from "./Shapes.js"

/** Base64 HMAC-SHA1 of the raw body keyed by `clientSecret + "&"`. */
export const fitbitSignature = (body: string, clientSecret: string): string =>
  crypto.createHmac("sha1", `${clientSecret}&`).update(body).digest("base64")

export const makeFitbitWebhooks = (core: FitbitCore) => {
  const signature = (body: string, clientId?: string) => fitbitSignature(body, core.client(clientId).clientSecret)

  const sendNotification: FitbitControl["sendNotification"] = (url, notifications, opts) => {
    const body = JSON.stringify(notifications)
    return deliver(url, body, { "x-fitbit-signature": signature(body, opts?.clientId) })
  }

  const notifySubscribers: FitbitControl["notifySubscribers"] = (url, event) => {
    const clientId = core.client(event.clientId).clientId
    const matching = core.state.subscriptions.filter((sub) =>
      sub.clientId === clientId && sub.ownerId === event.ownerId &&
      (sub.collection === null || sub.collection === event.collectionType)
    )
    if (matching.length === 0) return Effect.succeed(undefined)
    return sendNotification(
      url,
      matching.map((sub) => ({
        collectionType: event.collectionType,
        date: event.date,
        ownerId: event.ownerId,
        ownerType: "user" as const,
        subscriptionId: sub.subscriptionId
      })),
      { clientId }
    )
  }

  const verifySubscriber: FitbitControl["verifySubscriber"] = (url, verificationCode) =>
    Effect.gen(function*() {
      const withCode = (code: string) => {
        const target = new URL(url)
        target.searchParams.set("verify", code)
        return target.toString()
      }
      const wrong = `${verificationCode}-wrong-${crypto.randomBytes(4).toString("hex")}`
      const correct = yield* deliver(withCode(verificationCode), "", {}, "GET")
      const incorrect = yield* deliver(withCode(wrong), "", {}, "GET")
      return {
        correctCodeStatus: correct.status,
        wrongCodeStatus: incorrect.status,
        verified: correct.status === 204 && incorrect.status === 404
      }
    })

  return { signature, sendNotification, notifySubscribers, verifySubscriber }
}
