/**
 * The hosted connect flow end to end over HTTPS against the sandbox simulators: connect sessions
 * (endpoint 7), the consent pages, the OAuth 2.0 and OAuth 1.0a callbacks (23, 24), the listings
 * (8, 15), disconnecting (9), what lands in the database, and token freshness.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { Provider } from "@pulsebridge/domain"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { ConnectionTokens } from "../../src/connections/ConnectionTokens.js"
import { SecretBox } from "../../src/platform/SecretBox.js"
import {
  connect,
  consent,
  createSession,
  listConnections,
  locationOf,
  redirectUrl,
  sim,
  simCalls,
  simulatedUser,
  slugs
} from "../fixtures/Connect.js"
import { expectError, isoUtc, json, preview, send } from "../fixtures/Http.js"

/** Where each provider's revoke goes, relative to its simulator. */
const revokeCalls: Partial<Record<Provider, { readonly method: string; readonly path: string }>> = {
  Fitbit: { method: "POST", path: "/revoke" },
  WHOOP: { method: "DELETE", path: "/developer/v2/user/access" },
  Garmin: { method: "DELETE", path: "/wellness-api/rest/user/registration" }
}

const tokenPaths = { Fitbit: "/token", WHOOP: "/oauth/oauth2/token" } as const

/** The refresh-token grants the simulator saw for the provider user of the user's one connection. */
const refreshGrants = (provider: "Fitbit" | "WHOOP", userId: string, token: string) =>
  Effect.gen(function*() {
    const [connection] = yield* listConnections(userId, token)
    const calls = yield* simCalls(provider, { method: "POST", path: tokenPaths[provider] })
    return calls.filter((c) => c.params["grant_type"] === "refresh_token" && c.userId === connection.providerUserId)
  })

const connectionRow = (connectionId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Record<string, unknown>>`select * from connections where id = ${connectionId}`
    expect(rows).toHaveLength(1)
    return rows[0]!
  })

// Without the test services: the server and the token expiries run on the real clock.
layer(makeTestServer({ sandbox: true }), { timeout: "180 seconds", excludeTestServices: true })(
  "connect flow",
  (it) => {
    for (const provider of ["Fitbit", "Garmin", "WHOOP", "Dexcom"] as const) {
      it.effect(`${provider}: session, consent and callback make an Active connection the listings show`, () =>
        Effect.gen(function*() {
          const { token, user } = yield* createUser(`connect-${provider}`)
          const before = Date.now()
          const session = yield* createSession(user.id, token, provider)
          expect(Object.keys(session).sort()).toEqual(["authorizationUrl", "expiresAt", "id"])
          expect(session.id).toMatch(/^[0-9a-f-]{36}$/)
          expect(session.expiresAt).toMatch(isoUtc)
          const expiresIn = new Date(session.expiresAt).getTime() - before
          expect(expiresIn).toBeGreaterThan(14 * 60 * 1000)
          expect(expiresIn).toBeLessThanOrEqual(15 * 60 * 1000 + 5000)
          expect(new URL(session.authorizationUrl).pathname).toMatch(new RegExp(`^/sandbox/${slugs[provider]}/`))

          const name = simulatedUser("approve")
          const { callbackPath, final } = yield* consent(session.authorizationUrl, "approve", name)
          expect(callbackPath).toMatch(
            provider === "Garmin"
              ? /^\/api\/v1\/connections\/callback\/oauth1\?/
              : /^\/api\/v1\/connections\/callback\?/
          )
          expect(`${final.origin}${final.pathname}`).toBe(redirectUrl)
          expect(final.searchParams.get("success")).toBe("true")
          expect(final.searchParams.get("provider")).toBe(provider)
          const connectionId = final.searchParams.get("connectionId")
          expect(connectionId).toMatch(/^[0-9a-f-]{36}$/)

          const connections = yield* listConnections(user.id, token)
          expect(connections).toHaveLength(1)
          const connection = connections[0]
          expect(connection).toMatchObject({ id: connectionId, userId: user.id, provider, status: "Active" })
          expect(typeof connection.providerUserId).toBe("string")
          expect(connection.providerUserId.length).toBeGreaterThan(0)
          expect(typeof connection.scopes).toBe("string")
          if (provider === "Garmin") {
            // OAuth 1.0a: no OAuth scopes; the permissions the user ticked on the consent page are read
            // after the exchange and kept as the scopes; tokens that never expire.
            expect(connection.scopes.split(" ")).toEqual(expect.arrayContaining(["HEALTH_EXPORT", "ACTIVITY_EXPORT"]))
            expect(connection.tokenExpiresAt).toBeNull()
          } else {
            expect(connection.scopes.length).toBeGreaterThan(0)
            expect(connection.tokenExpiresAt).toMatch(isoUtc)
            expect(new Date(connection.tokenExpiresAt).getTime()).toBeGreaterThan(Date.now())
          }

          const listing = yield* send("GET", `/api/v1/users/${user.id}/connections/providers`, { bearer: token })
          expect(listing.status, preview(listing)).toBe(200)
          const entries: Array<any> = json(listing)
          for (const entry of entries) {
            if (entry.provider.name === provider) expect(entry.connection).toEqual(connection)
            else expect(entry.connection, entry.provider.name).toBeNull()
          }
        }))

      it.effect(`${provider}: a denied consent redirects with success=false and access_denied, and connects nothing`, () =>
        Effect.gen(function*() {
          const { token, user } = yield* createUser(`deny-${provider}`)
          const session = yield* createSession(user.id, token, provider)
          const { final } = yield* consent(session.authorizationUrl, "deny", simulatedUser("deny"))
          expect(`${final.origin}${final.pathname}`).toBe(redirectUrl)
          expect(Object.fromEntries(final.searchParams)).toEqual({ success: "false", error: "access_denied", provider })
          expect(yield* listConnections(user.id, token)).toEqual([])
        }))
    }

    it.effect("a replayed callback redirects with session_already_used and leaves exactly one connection", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("replay")
        const { callbackPath, connectionId } = yield* connect(user.id, token, "Fitbit", simulatedUser("replay"))
        const replay = locationOf(yield* send("GET", callbackPath))
        expect(`${replay.origin}${replay.pathname}`).toBe(redirectUrl)
        expect(Object.fromEntries(replay.searchParams)).toEqual({
          success: "false",
          error: "session_already_used",
          provider: "Fitbit"
        })
        const connections = yield* listConnections(user.id, token)
        expect(connections.map((c) => c.id)).toEqual([connectionId])
      }))

    it.effect("a callback with a forged state is a 400 JSON error, not a redirect", () =>
      Effect.gen(function*() {
        const forged = crypto.randomBytes(32).toString("base64url")
        const reply = yield* send("GET", `/api/v1/connections/callback?code=abc&state=${forged}`)
        expectError(reply, 400)
        expect(reply.headers["location"]).toBeUndefined()
        const oauth1 = yield* send("GET", `/api/v1/connections/callback/oauth1?oauth_token=${forged}&oauth_verifier=x`)
        expectError(oauth1, 400)
        expect(oauth1.headers["location"]).toBeUndefined()
      }))

    it.effect("a session for an unknown provider is a 400", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("unknown-provider")
        const reply = yield* send("POST", `/api/v1/users/${user.id}/connections/sessions`, {
          bearer: token,
          json: { provider: "Polar", redirectUrl }
        })
        expectError(reply, 400)
      }))

    it.effect("a session whose redirectUrl is plain http to a non-loopback host is a 400", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("evil-redirect")
        const reply = yield* send("POST", `/api/v1/users/${user.id}/connections/sessions`, {
          bearer: token,
          json: { provider: "Fitbit", redirectUrl: "http://evil.example.com" }
        })
        expectError(reply, 400)
      }))

    it.effect("reconnecting the same provider keeps one Active connection with the same id and new tokens", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("reconnect")
        const name = simulatedUser("reconnect")
        const first = yield* connect(user.id, token, "WHOOP", name)
        const before = yield* connectionRow(first.connectionId)
        const second = yield* connect(user.id, token, "WHOOP", name)
        expect(second.connectionId).toBe(first.connectionId)
        const after = yield* connectionRow(first.connectionId)
        const box = yield* SecretBox
        const opened = (sealed: unknown) => Effect.map(box.open(sealed as string), Redacted.value)
        expect(yield* opened(after["accessTokenSealed"])).not.toBe(yield* opened(before["accessTokenSealed"]))
        expect(yield* opened(after["refreshTokenSealed"])).not.toBe(yield* opened(before["refreshTokenSealed"]))
        const connections = yield* listConnections(user.id, token)
        expect(connections.map((c) => [c.id, c.status])).toEqual([[first.connectionId, "Active"]])
      }))

    it.effect("the database holds provider tokens only sealed, never in plain text", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const box = yield* SecretBox
        const { token, user } = yield* createUser("raw-db")
        // The authorization codes (OAuth 2.0) and verifiers (OAuth 1.0a) the simulators sent back through the browser.
        const codes: Array<string> = []
        for (const provider of ["Fitbit", "Garmin", "WHOOP", "Dexcom"] as const) {
          const { callbackPath } = yield* connect(user.id, token, provider, simulatedUser("raw"))
          const params = new URL(callbackPath, "https://callback.invalid").searchParams
          const code = params.get("code") ?? params.get("oauth_verifier")
          expect(code, `${provider} callback ${callbackPath}`).not.toBeNull()
          codes.push(code!)
        }
        const connections = yield* sql<Record<string, unknown>>`select * from connections where user_id = ${user.id}`
        const sessions = yield* sql<Record<string, unknown>>`select * from connect_sessions where user_id = ${user.id}`
        const credentials = yield* sql<Record<string, unknown>>`select * from provider_credentials`
        expect(connections).toHaveLength(4)
        expect(sessions).toHaveLength(4)

        const sealedColumns = [
          "accessTokenSealed",
          "refreshTokenSealed",
          "tokenSecretSealed",
          "codeVerifierSealed",
          "requestTokenSecretSealed",
          "clientSecretSealed"
        ]
        const plainLongAllowed = new Set([
          "id",
          "appId",
          "userId",
          "providerUserId",
          "redirectUrl",
          "stateHash",
          "requestToken",
          "scopes"
        ])
        for (const row of [...connections, ...sessions, ...credentials]) {
          for (const [column, value] of Object.entries(row)) {
            if (typeof value !== "string") continue
            if (sealedColumns.includes(column)) {
              expect(value, column).toMatch(/^v1\./)
            } else if (!plainLongAllowed.has(column)) {
              expect(value.length, `${column}: ${value}`).toBeLessThanOrEqual(40)
            }
          }
        }
        const dump = JSON.stringify([connections, sessions, credentials])
        for (const row of connections) {
          const secrets = [row["accessTokenSealed"], row["refreshTokenSealed"], row["tokenSecretSealed"]]
          for (const sealed of secrets) {
            if (sealed === null) continue
            const plain = Redacted.value(yield* box.open(sealed as string))
            expect(plain.length).toBeGreaterThan(0)
            expect(dump.includes(plain), `${row["provider"]}: a plain token appears in the database`).toBe(false)
          }
        }
        // Garmin's row has an access token and secret, the OAuth 2.0 ones an access and refresh token.
        for (const row of connections) {
          expect(row["accessTokenSealed"], String(row["provider"])).toMatch(/^v1\./)
          if (row["provider"] === "Garmin") expect(row["tokenSecretSealed"]).toMatch(/^v1\./)
          else expect(row["refreshTokenSealed"], String(row["provider"])).toMatch(/^v1\./)
        }
        for (const code of codes) {
          expect(dump.includes(code), `an authorization code appears in the database`).toBe(false)
        }
      }))

    for (const provider of ["Fitbit", "WHOOP", "Garmin"] as const) {
      it.effect(`${provider}: disconnecting revokes at the provider and removes the connection from the list`, () =>
        Effect.gen(function*() {
          const { token, user } = yield* createUser(`disconnect-${provider}`)
          const { connectionId } = yield* connect(user.id, token, provider, simulatedUser("disconnect"))
          const [connection] = yield* listConnections(user.id, token)
          const revoke = revokeCalls[provider]!
          const revokesBefore = (yield* simCalls(provider, { ...revoke, userId: connection.providerUserId })).length

          const reply = yield* send("DELETE", `/api/v1/users/${user.id}/connections/${connectionId}`, { bearer: token })
          expect(reply.status, preview(reply)).toBe(204)
          const revokes = yield* simCalls(provider, { ...revoke, userId: connection.providerUserId })
          expect(revokes.length).toBe(revokesBefore + 1)
          expect(revokes.at(-1)!.status).toBeLessThan(300)
          expect(yield* listConnections(user.id, token)).toEqual([])
          const row = yield* connectionRow(connectionId)
          expect(row["status"]).toBe("Disconnected")
          expect(row["accessTokenSealed"]).toBeNull()
          expect(row["refreshTokenSealed"]).toBeNull()
          expect(row["tokenSecretSealed"]).toBeNull()

          const again = yield* send("DELETE", `/api/v1/users/${user.id}/connections/${connectionId}`, { bearer: token })
          expectError(again, 404)
        }))
    }

    it.effect("disconnecting another user's connection is a 404 and leaves it connected", () =>
      Effect.gen(function*() {
        const owner = yield* createUser("owner")
        const other = yield* createUser("other")
        const { connectionId } = yield* connect(owner.user.id, owner.token, "Fitbit", simulatedUser("owner"))
        const reply = yield* send("DELETE", `/api/v1/users/${other.user.id}/connections/${connectionId}`, {
          bearer: other.token
        })
        expectError(reply, 404)
        const connections = yield* listConnections(owner.user.id, owner.token)
        expect(connections.map((c) => [c.id, c.status])).toEqual([[connectionId, "Active"]])
      }))

    it.effect("disconnecting still answers 204 and disconnects when the provider's revoke fails with a 500", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("revoke-fault")
        const { connectionId } = yield* connect(user.id, token, "WHOOP", simulatedUser("revoke-fault"))
        yield* sim("WHOOP", "POST", "faults", {
          path: "/developer/v2/user/access",
          method: "DELETE",
          kind: "serverError",
          count: 1
        })
        const reply = yield* send("DELETE", `/api/v1/users/${user.id}/connections/${connectionId}`, { bearer: token })
        expect(reply.status, preview(reply)).toBe(204)
        const faulted = (yield* simCalls("WHOOP", { method: "DELETE", path: "/developer/v2/user/access" }))
          .filter((c) => c.fault === "serverError")
        expect(faulted.length).toBeGreaterThanOrEqual(1)
        expect(yield* listConnections(user.id, token)).toEqual([])
        expect((yield* connectionRow(connectionId))["status"]).toBe("Disconnected")
      }))

    for (const provider of ["Fitbit", "WHOOP"] as const) {
      it.effect(`${provider}: two concurrent forced refreshes both succeed and present the refresh token once`, () =>
        Effect.gen(function*() {
          const tokens = yield* ConnectionTokens
          const box = yield* SecretBox
          const { token, user } = yield* createUser(`refresh-${provider}`)
          const { connectionId } = yield* connect(user.id, token, provider, simulatedUser("refresh"))
          const before = yield* connectionRow(connectionId)
          const issued = Redacted.value(yield* box.open(before["refreshTokenSealed"] as string))

          const [a, b] = yield* Effect.all([
            tokens.fresh(connectionId, { force: true }),
            tokens.fresh(connectionId, { force: true })
          ], { concurrency: 2 })
          expect(Redacted.value(a.accessToken).length).toBeGreaterThan(0)
          expect(Redacted.value(b.accessToken).length).toBeGreaterThan(0)

          const presented = yield* simCalls(provider, { method: "POST", path: tokenPaths[provider], presented: issued })
          expect(presented.map((c) => [c.params["grant_type"], c.status])).toEqual([["refresh_token", 200]])
          // Every refresh the provider saw succeeded: no caller presented a token another had already rotated.
          const grants = yield* refreshGrants(provider, user.id, token)
          expect(grants.length).toBeGreaterThanOrEqual(1)
          expect(grants.map((c) => c.status)).toEqual(grants.map(() => 200))
          expect(new Set(grants.map((c) => c.params["refresh_token"])).size).toBe(grants.length)
          expect((yield* connectionRow(connectionId))["status"]).toBe("Active")
        }))

      it.effect(`${provider}: two concurrent forced refreshes make a single refresh-token grant both callers share`, () =>
        Effect.gen(function*() {
          const tokens = yield* ConnectionTokens
          const { token, user } = yield* createUser(`refresh-once-${provider}`)
          const { connectionId } = yield* connect(user.id, token, provider, simulatedUser("refresh-once"))
          const [a, b] = yield* Effect.all([
            tokens.fresh(connectionId, { force: true }),
            tokens.fresh(connectionId, { force: true })
          ], { concurrency: 2 })
          const grants = yield* refreshGrants(provider, user.id, token)
          expect(grants.map((c) => c.status)).toEqual([200])
          expect(Redacted.value(a.accessToken)).toBe(Redacted.value(b.accessToken))
        }))

      it.effect(`${provider}: a refresh the provider refuses fails and moves the connection to Reauthorize`, () =>
        Effect.gen(function*() {
          const tokens = yield* ConnectionTokens
          const { token, user } = yield* createUser(`reauthorize-${provider}`)
          const { connectionId } = yield* connect(user.id, token, provider, simulatedUser("reauthorize"))
          const [connection] = yield* listConnections(user.id, token)
          yield* sim(provider, "POST", "revoke", { userId: connection.providerUserId })

          const error = yield* Effect.flip(tokens.fresh(connectionId, { force: true }))
          expect(error).toMatchObject({ _tag: "ConnectionUnusable", status: "Reauthorize" })
          expect((yield* connectionRow(connectionId))["status"]).toBe("Reauthorize")
          expect(yield* listConnections(user.id, token)).toEqual([])
        }))
    }
  }
)
