/**
 * What the webhook receivers share: a constant-time comparison of signatures and shared codes,
 * and the results they answer with.
 */
import * as crypto from "node:crypto"
import type { WebhookNotification, WebhookResult } from "../Plugin.js"

/** Constant-time comparison of an expected value with the one given (trimmed). */
export const sameSecret = (expected: string, given: string | undefined): boolean => {
  if (given === undefined) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given.trim())
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}

export const rejected = (status: 400 | 401 | 404, message: string): WebhookResult => ({
  _tag: "Rejected",
  status,
  message
})

export const accepted = (
  status: 200 | 204,
  notifications: ReadonlyArray<WebhookNotification>,
  deregistrations: ReadonlyArray<string> = []
): WebhookResult => ({ _tag: "Accepted", status, notifications, deregistrations })
