/**
 * What the portal's data tests share: a logged-in operator's client, and the audit log's events of
 * one action on one target, as the portal's audit page reads them.
 */
import { expect } from "@effect/vitest"
import { createOperator, portalClient, portalLogin, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"

export const operatorPassword = "correct horse battery staple"

/** A new operator of `role`, logged in: its client sends the session cookie and the CSRF token with every call. */
export const loggedInAs = (role: "admin" | "viewer") =>
  Effect.gen(function*() {
    const email = `${role}-${crypto.randomBytes(6).toString("hex")}@example.com`
    const operator = yield* createOperator(email, operatorPassword, role)
    const { baseUrl } = yield* TestServer
    const login = yield* portalLogin(baseUrl, email, operatorPassword)
    return { email, id: operator.id as string, login, client: portalClient(baseUrl, login) }
  })

/** A new admin, logged in. */
export const loggedIn = loggedInAs("admin")

export type PortalClient = Effect.Effect.Success<typeof loggedIn>["client"]

/** The audit events (newest first, from the last 200) of `action` on `targetId`. */
export const auditOf = (client: PortalClient, action: string, targetId: string) =>
  Effect.gen(function*() {
    const reply = yield* client.get("/portal/api/audit?limit=200")
    expect(reply.status, reply.text).toBe(200)
    return (reply.body.data as Array<any>).filter((event) => event.action === action && event.targetId === targetId)
  })

/** The audit events (newest first, from the last 200) of `action` by the operator of `email`. */
export const auditOfOperator = (client: PortalClient, action: string, email: string) =>
  Effect.gen(function*() {
    const reply = yield* client.get("/portal/api/audit?limit=200")
    expect(reply.status, reply.text).toBe(200)
    return (reply.body.data as Array<any>).filter((event) => event.action === action && event.operatorEmail === email)
  })
