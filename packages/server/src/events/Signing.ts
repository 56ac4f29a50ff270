/**
 * Webhook signing per Standard Webhooks, with its reference library: secrets are `whsec_` and the
 * base64 of 32 random bytes; a delivery carries `webhook-id` (the event id), `webhook-timestamp`
 * (seconds since the epoch, of the attempt) and `webhook-signature`, one `v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` per live secret, space-separated: during the 24 hours after a rotation
 * both the new and the previous secret sign, so a receiver verifying with either keeps working.
 */
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { Webhook } from "standardwebhooks"

export const SecretPrefix = "whsec_"

/** How long the secret before a rotation still signs. */
export const previousSecretOverlapMs = 24 * 60 * 60 * 1000

/** A new signing secret. */
export const generateSigningSecret = (): string => `${SecretPrefix}${crypto.randomBytes(32).toString("base64")}`

export interface SignedHeaders {
  readonly "webhook-id": string
  readonly "webhook-timestamp": string
  readonly "webhook-signature": string
}

/** The Standard Webhooks headers of `body` for event `eventId` sent at `at`, signed with each secret. */
export const signHeaders = (
  secrets: ReadonlyArray<Redacted.Redacted<string>>,
  eventId: string,
  at: Date,
  body: string
): SignedHeaders => ({
  "webhook-id": eventId,
  "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
  "webhook-signature": secrets.map((secret) => new Webhook(Redacted.value(secret)).sign(eventId, at, body)).join(" ")
})
