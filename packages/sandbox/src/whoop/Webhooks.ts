/**
 * The WHOOP simulator's signed v2 webhooks (`X-WHOOP-Signature` over timestamp and body), sent
 * only while the user is still connected to the client, as WHOOP stops them on revocation.
 */
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { deliver } from "../core/Deliver.js"
import type { WhoopControl, WhoopCore } from "./Shapes.js"

/** Base64 HMAC-SHA256 of `timestamp + body` keyed by the client secret (no separator). */
export const whoopSignature = (clientSecret: string, timestamp: string, body: string): string =>
  crypto.createHmac("sha256", clientSecret).update(timestamp + body).digest("base64")

export const makeWhoopWebhooks = (core: WhoopCore) => {
  const connected = (clientId: string, userId: string) => {
    const s = core.state
    return Object.values(s.access).some((r) => r.clientId === clientId && r.userId === userId) ||
      Object.values(s.refresh).some((r) => r.clientId === clientId && r.userId === userId && r.usedAt === null)
  }

  const sendWebhook: WhoopControl["sendWebhook"] = (url, event) => {
    const client = core.client(event.clientId)
    if (!connected(client.clientId, String(event.userId))) return Effect.succeed(undefined)
    const payload = JSON.stringify({
      user_id: event.userId,
      id: event.id,
      type: event.type,
      trace_id: crypto.randomUUID()
    })
    const timestamp = String(core.nowMs())
    return deliver(url, payload, {
      "x-whoop-signature": whoopSignature(client.clientSecret, timestamp, payload),
      "x-whoop-signature-timestamp": timestamp
    })
  }

  return { sendWebhook }
}
