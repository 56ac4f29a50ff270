/**
 * The portal's apps group over HTTP: apps with user counts, API keys made in the portal working on the
 * contract's API until revoked (401 at once), provider credentials that are never answered back and
 * that the connect flow uses, and the audit log listing each change, newest first, page by page.
 */
import { expect, layer } from "@effect/vitest"
import { createOperator, makeTestServer, portalClient, portalLogin, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { json, preview, send } from "../fixtures/Http.js"

const password = "correct horse battery staple"

const loggedIn = Effect.gen(function*() {
  const email = `apps-${crypto.randomBytes(4).toString("hex")}@example.com`
  yield* createOperator(email, password)
  const { baseUrl } = yield* TestServer
  const login = yield* portalLogin(baseUrl, email, password)
  return { email, client: portalClient(baseUrl, login) }
})

layer(makeTestServer(), { timeout: "120 seconds" })("portal apps", (it) => {
  it.effect("apps are created, listed with their user counts, read and renamed; an unknown app is 404", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const created = yield* client.post("/portal/api/apps", { json: { name: "Portal app" } })
      expect(created.status, created.text).toBe(201)
      expect(created.body).toMatchObject({ name: "Portal app", users: 0 })
      const appId = created.body.id as string
      const key = yield* client.post(`/portal/api/apps/${appId}/keys`, { json: { permissions: ["users:write"] } })
      const user = yield* send("POST", "/api/v1/users", { bearer: key.body.apiKey, json: { externalUserId: "u1" } })
      expect(user.status, preview(user)).toBe(201)
      const listed = yield* client.get("/portal/api/apps")
      expect(listed.body.data.find((app: { id: string }) => app.id === appId)).toMatchObject({ users: 1 })
      const renamed = yield* client.patch(`/portal/api/apps/${appId}`, { json: { name: "Renamed" } })
      expect(renamed.status, renamed.text).toBe(200)
      expect(renamed.body).toMatchObject({ id: appId, name: "Renamed", users: 1 })
      expect((yield* client.get(`/portal/api/apps/${appId}`)).body.name).toBe("Renamed")
      const unknown = yield* client.get(`/portal/api/apps/${crypto.randomUUID()}`)
      expect(unknown.status).toBe(404)
      expect(unknown.body._tag).toBe("NotFound")
      expect((yield* client.post("/portal/api/apps", { json: { name: "" } })).status).toBe(400)
      expect((yield* client.post("/portal/api/apps", { json: { name: "x" }, csrf: null })).status).toBe(403)
    }))

  it.effect("the assistant sign-in URL is set (https only), read, cleared and audited", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const appId = (yield* client.post("/portal/api/apps", { json: { name: "assistants" } })).body.id as string
      const path = `/portal/api/apps/${appId}/assistant-sign-in`
      expect((yield* client.get(path)).body).toEqual({ assistantSignInUrl: null })
      const url = "https://app.example/assistant-sign-in"
      const set = yield* client.put(path, { json: { assistantSignInUrl: url } })
      expect(set.status, set.text).toBe(200)
      expect((yield* client.get(path)).body).toEqual({ assistantSignInUrl: url })
      const plain = yield* client.put(path, { json: { assistantSignInUrl: "http://app.example/sign-in" } })
      expect(plain.status).toBe(400)
      expect(plain.body.message).toContain("https")
      expect((yield* client.get(path)).body).toEqual({ assistantSignInUrl: url })
      expect((yield* client.put(path, { json: { assistantSignInUrl: null } })).status).toBe(200)
      expect((yield* client.get(path)).body).toEqual({ assistantSignInUrl: null })
      expect((yield* client.get(`/portal/api/apps/${crypto.randomUUID()}/assistant-sign-in`)).status).toBe(404)
      const audit = yield* client.get(`/portal/api/audit?appId=${appId}&action=app.assistantSignIn`)
      expect(audit.body.data.map((event: { detail: unknown }) => event.detail)).toEqual([
        { assistantSignInUrl: null },
        { assistantSignInUrl: url }
      ])
    }))

  it.effect("a key made in the portal works on /api/v1/users until it is revoked, then 401 at once", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const appId = (yield* client.post("/portal/api/apps", { json: { name: "keys" } })).body.id as string
      const created = yield* client.post(`/portal/api/apps/${appId}/keys`, {
        json: { name: "backend", permissions: ["users:read", "users:write"] }
      })
      expect(created.status, created.text).toBe(201)
      const apiKey = created.body.apiKey as string
      expect(apiKey).toMatch(/^pb_sk_/)
      expect(created.body.key).toMatchObject({
        name: "backend",
        permissions: ["users:read", "users:write"],
        lastUsedAt: null,
        revokedAt: null
      })
      expect(apiKey.startsWith(created.body.key.prefix)).toBe(true)
      const used = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: "alice" } })
      expect(used.status, preview(used)).toBe(201)
      const keys = yield* client.get(`/portal/api/apps/${appId}/keys`)
      expect(keys.text).not.toContain(apiKey)
      const listed = keys.body.data.find((key: { id: string }) => key.id === created.body.key.id)
      expect(listed.lastUsedAt).not.toBeNull()
      const revoked = yield* client.post(`/portal/api/apps/${appId}/keys/${created.body.key.id}/revoke`)
      expect(revoked.status, revoked.text).toBe(200)
      expect(revoked.body.revokedAt).not.toBeNull()
      const refused = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: "bob" } })
      expect(refused.status).toBe(401)
      expect(json(refused)._tag).toBe("Unauthorized")
      // a key of one app is not revoked through another
      const other = (yield* client.post("/portal/api/apps", { json: { name: "other" } })).body.id as string
      const second = yield* client.post(`/portal/api/apps/${appId}/keys`, { json: { permissions: ["users:read"] } })
      expect((yield* client.post(`/portal/api/apps/${other}/keys/${second.body.key.id}/revoke`)).status).toBe(404)
    }))

  it.effect("provider credentials: every provider listed with its URLs, the secret never answered, the connect flow uses them", () =>
    Effect.gen(function*() {
      const { client } = yield* loggedIn
      const { port } = yield* TestServer
      const appId = (yield* client.post("/portal/api/apps", { json: { name: "providers" } })).body.id as string
      const before = yield* client.get(`/portal/api/apps/${appId}/providers`)
      expect(before.status).toBe(200)
      expect(before.body.data.map((p: { provider: string }) => p.provider)).toEqual([
        "Fitbit",
        "Garmin",
        "WHOOP",
        "Dexcom",
        "Oura",
        "Withings"
      ])
      const whoop = before.body.data.find((p: { provider: string }) => p.provider === "WHOOP")
      expect(whoop).toMatchObject({
        configured: false,
        clientId: null,
        callbackUrl: `https://localhost:${port}/api/v1/connections/callback`,
        webhookUrl: `https://localhost:${port}/webhooks/whoop/${appId}`
      })
      expect(before.body.data.find((p: { provider: string }) => p.provider === "Dexcom").webhookUrl).toBeNull()

      const user = yield* client.post(`/portal/api/apps/${appId}/keys`, { json: { permissions: ["users:write"] } })
      const created = json(
        yield* send("POST", "/api/v1/users", {
          bearer: user.body.apiKey,
          json: { externalUserId: "connector" }
        })
      )
      const connect = () =>
        send("POST", `/api/v1/users/${created.id}/connections/sessions`, {
          bearer: created.token,
          json: { provider: "WHOOP", redirectUrl: "https://app.example.com/done" }
        })
      expect((yield* connect()).status).toBeGreaterThanOrEqual(400)

      const secret = "whoop-secret-" + crypto.randomBytes(8).toString("hex")
      const set = yield* client.put(`/portal/api/apps/${appId}/providers/WHOOP`, {
        json: { clientId: "portal-whoop-client", clientSecret: secret, scopes: "read:recovery offline" }
      })
      expect(set.status, set.text).toBe(200)
      expect(set.body).toMatchObject({ provider: "WHOOP", configured: true, clientId: "portal-whoop-client" })
      expect(set.text).not.toContain(secret)
      const after = yield* client.get(`/portal/api/apps/${appId}/providers`)
      expect(after.text).not.toContain(secret)
      const audit = yield* client.get("/portal/api/audit")
      expect(audit.text).not.toContain(secret)

      const session = yield* connect()
      expect(session.status, preview(session)).toBe(200)
      expect(new URL(json(session).authorizationUrl).searchParams.get("client_id")).toBe("portal-whoop-client")

      const wrongKind = yield* client.put(`/portal/api/apps/${appId}/providers/WHOOP`, {
        json: { clientId: "x", clientSecret: "y", authType: "OAuth1" }
      })
      expect(wrongKind.status).toBe(400)
      expect(
        (yield* client.put(`/portal/api/apps/${crypto.randomUUID()}/providers/WHOOP`, {
          json: { clientId: "x", clientSecret: "y" }
        })).status
      ).toBe(404)
    }))

  it.effect("the audit log lists each change, newest first, with its operator, page by page", () =>
    Effect.gen(function*() {
      const { client, email } = yield* loggedIn
      const appId = (yield* client.post("/portal/api/apps", { json: { name: "audited" } })).body.id as string
      const changes = [
        yield* client.patch(`/portal/api/apps/${appId}`, { json: { name: "audited 2" } }),
        yield* client.post(`/portal/api/apps/${appId}/keys`, { json: { permissions: ["users:read"] } })
      ]
      changes.push(yield* client.post(`/portal/api/apps/${appId}/keys/${changes[1]!.body.key.id}/revoke`))
      changes.push(
        yield* client.put(`/portal/api/apps/${appId}/providers/Dexcom`, { json: { clientId: "c", clientSecret: "s" } })
      )
      for (const change of changes) expect(change.status, change.text).toBeLessThan(300)
      const first = yield* client.get("/portal/api/audit?limit=3")
      expect(first.status, first.text).toBe(200)
      expect(first.body.data.map((event: { action: string }) => event.action)).toEqual([
        "providerCredentials.create",
        "apiKey.revoke",
        "apiKey.create"
      ])
      expect(first.body.data[0]).toMatchObject({
        operatorEmail: email,
        appId,
        targetType: "provider",
        targetId: "Dexcom",
        address: expect.stringMatching(/127\.0\.0\.1/)
      })
      const second = yield* client.get(`/portal/api/audit?limit=3&cursor=${first.body.nextCursor}`)
      expect(second.body.data.slice(0, 2).map((event: { action: string }) => event.action)).toEqual([
        "app.rename",
        "app.create"
      ])
      expect(second.body.data[0].detail).toEqual({ from: "audited", to: "audited 2" })
      expect((yield* client.get("/portal/api/audit?cursor=abc")).status).toBe(400)
      const operators = yield* client.get("/portal/api/operators")
      expect(operators.body.data.map((operator: { email: string }) => operator.email)).toContain(email)
    }))
})
