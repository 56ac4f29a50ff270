/**
 * The credential matrix end to end: API keys on the user-management endpoints (1-6) and user tokens
 * on the user endpoints (8 and 15), as bearer tokens and as the legacy headers; missing, invalid,
 * wrong-type, revoked, rotated, cross-user, cross-app and under-permitted credentials.
 */
import { expect, it } from "@effect/vitest"
import { createApp, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { Apps } from "../../src/apps/Apps.js"
import type { Method, RequestOptions } from "../fixtures/Http.js"
import { expectError, json, preview, send, unknownId } from "../fixtures/Http.js"

interface Call {
  readonly label: string
  readonly method: Method
  readonly path: string
  readonly json?: unknown
}

/** The user-management endpoints (API key), all aimed at `userId`. */
const apiKeyCalls = (userId: string): ReadonlyArray<Call> => [
  { label: "create", method: "POST", path: "/api/v1/users", json: { externalUserId: "matrix-new" } },
  { label: "find", method: "GET", path: "/api/v1/users?external_user_id=matrix" },
  { label: "get", method: "GET", path: `/api/v1/users/${userId}` },
  { label: "update", method: "PATCH", path: `/api/v1/users/${userId}`, json: { locale: "en-GB" } },
  { label: "delete", method: "DELETE", path: `/api/v1/users/${userId}` },
  { label: "rotate-token", method: "POST", path: `/api/v1/users/${userId}/rotate-token` }
]

/** The built user endpoints (user token) of `userId`. */
const userTokenCalls = (userId: string): ReadonlyArray<Call> => [
  { label: "connections", method: "GET", path: `/api/v1/users/${userId}/connections` },
  { label: "providers", method: "GET", path: `/api/v1/users/${userId}/connections/providers` }
]

const call = (c: Call, options: RequestOptions) =>
  send(c.method, c.path, c.json === undefined ? options : { ...options, json: c.json })

/** Every call answers `status` with the JSON error body of `tag`; returns the bodies. */
const expectAll = (calls: ReadonlyArray<Call>, options: RequestOptions, status: number, tag: string) =>
  Effect.forEach(calls, (c) =>
    Effect.map(call(c, options), (reply) => {
      expect(reply.status, `${c.label}: ${preview(reply)}`).toBe(status)
      return expectError(reply, status, tag)
    }))

/** Well-formed but never issued. */
const randomSecret = (prefix: string) => prefix + crypto.randomBytes(32).toString("base64url")

const getUser = (apiKey: string, userId: string) =>
  Effect.map(send("GET", `/api/v1/users/${userId}`, { bearer: apiKey }), (reply) => {
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply)
  })

const expectTokenWorks = (token: string, userId: string) =>
  Effect.forEach(userTokenCalls(userId), (c) =>
    Effect.map(call(c, { bearer: token }), (reply) => {
      expect(reply.status, `${c.label}: ${preview(reply)}`).toBe(200)
    }))

it.layer(makeTestServer(), { timeout: "120 seconds" })("credentials", (it) => {
  it.effect("requests without a credential get 401 on user-management and user endpoints", () =>
    Effect.gen(function*() {
      const { apiKey, user } = yield* createUser("matrix")
      yield* expectAll(apiKeyCalls(user.id), {}, 401, "Unauthorized")
      yield* expectAll(userTokenCalls(user.id), {}, 401, "Unauthorized")
      // An Authorization header that is not a bearer credential is no credential either.
      yield* expectAll(apiKeyCalls(user.id), { headers: { authorization: `Basic ${apiKey}` } }, 401, "Unauthorized")
      yield* expectAll(apiKeyCalls(user.id), { headers: { authorization: "Bearer " } }, 401, "Unauthorized")
      // Nothing was done on the user's behalf.
      expect((yield* getUser(apiKey, user.id)).status).toBe("Active")
    }))

  it.effect("invalid credentials get 401 on user-management and user endpoints", () =>
    Effect.gen(function*() {
      const { apiKey, user } = yield* createUser("matrix")
      for (const secret of [randomSecret("pb_sk_"), "pb_sk_short", "nonsense", `${apiKey}x`, apiKey.slice(0, -1)]) {
        yield* expectAll(apiKeyCalls(user.id), { bearer: secret }, 401, "Unauthorized")
        yield* expectAll(apiKeyCalls(user.id), { headers: { "X-App-Api-Key": secret } }, 401, "Unauthorized")
      }
      for (const secret of [randomSecret("pb_ut_"), "pb_ut_short", "nonsense"]) {
        yield* expectAll(userTokenCalls(user.id), { bearer: secret }, 401, "Unauthorized")
        yield* expectAll(userTokenCalls(user.id), { headers: { "X-User-Token": secret } }, 401, "Unauthorized")
      }
      expect((yield* getUser(apiKey, user.id)).status).toBe("Active")
    }))

  it.effect("a user token on a user-management endpoint gets 401 naming the wrong credential type", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("matrix")
      for (const options of [{ bearer: token }, { headers: { "X-App-Api-Key": token } }]) {
        const bodies = yield* expectAll(apiKeyCalls(user.id), options, 401, "Unauthorized")
        for (const body of bodies) {
          expect(body.message).toMatch(/wrong credential type/i)
          expect(body.message).toContain("API key")
          expect(body.message).toContain("user token")
        }
      }
      expect((yield* getUser(apiKey, user.id)).status).toBe("Active")
    }))

  it.effect("an API key on a user endpoint gets 401 naming the wrong credential type", () =>
    Effect.gen(function*() {
      const { apiKey, user } = yield* createUser("matrix")
      for (const options of [{ bearer: apiKey }, { headers: { "X-User-Token": apiKey } }]) {
        const bodies = yield* expectAll(userTokenCalls(user.id), options, 401, "Unauthorized")
        for (const body of bodies) {
          expect(body.message).toMatch(/wrong credential type/i)
          expect(body.message).toContain("user token")
          expect(body.message).toContain("API key")
        }
      }
    }))

  it.effect("a credential in the other type's legacy header gets 401 naming the wrong credential type", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("matrix")
      const onKeyEndpoints = yield* expectAll(
        apiKeyCalls(user.id),
        { headers: { "X-User-Token": token } },
        401,
        "Unauthorized"
      )
      const onTokenEndpoints = yield* expectAll(
        userTokenCalls(user.id),
        { headers: { "X-App-Api-Key": apiKey } },
        401,
        "Unauthorized"
      )
      for (const body of [...onKeyEndpoints, ...onTokenEndpoints]) {
        expect(body.message).toMatch(/wrong credential type/i)
      }
    }))

  it.effect("the legacy X-App-Api-Key header works on every user-management endpoint", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const headers = { "X-App-Api-Key": apiKey }
      const created = yield* send("POST", "/api/v1/users", { headers, json: { externalUserId: "legacy" } })
      expect(created.status, preview(created)).toBe(201)
      const id = json(created).id
      const found = yield* send("GET", "/api/v1/users?external_user_id=legacy", { headers })
      expect(found.status, preview(found)).toBe(200)
      expect(json(found).id).toBe(id)
      const got = yield* send("GET", `/api/v1/users/${id}`, { headers })
      expect(got.status, preview(got)).toBe(200)
      const patched = yield* send("PATCH", `/api/v1/users/${id}`, { headers, json: { timezone: "Europe/Paris" } })
      expect(patched.status, preview(patched)).toBe(200)
      expect(json(patched).timezone).toBe("Europe/Paris")
      const rotated = yield* send("POST", `/api/v1/users/${id}/rotate-token`, { headers })
      expect(rotated.status, preview(rotated)).toBe(200)
      const deleted = yield* send("DELETE", `/api/v1/users/${id}`, { headers })
      expect(deleted.status, preview(deleted)).toBe(204)
    }))

  it.effect("the legacy X-User-Token header works on the user endpoints", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("legacy-token")
      for (const c of userTokenCalls(user.id)) {
        const reply = yield* call(c, { headers: { "X-User-Token": token } })
        expect(reply.status, `${c.label}: ${preview(reply)}`).toBe(200)
      }
    }))

  it.effect("a user token on another user's path gets 403, whoever that user is", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("owner")
      const sibling = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: "sibling" } })
      const siblingId = json(sibling).id
      const stranger = yield* createUser("stranger")
      for (const otherId of [siblingId, stranger.user.id, unknownId()]) {
        yield* expectAll(userTokenCalls(otherId), { bearer: token }, 403, "Forbidden")
        yield* expectAll(userTokenCalls(otherId), { headers: { "X-User-Token": token } }, 403, "Forbidden")
      }
      yield* expectTokenWorks(token, user.id)
    }))

  it.effect("app A's API key on app B's user answers 404 for get, update, delete and rotate-token", () =>
    Effect.gen(function*() {
      const a = yield* createApp("app a")
      const b = yield* createUser("b-user")
      const before = yield* getUser(b.apiKey, b.user.id)
      const calls = apiKeyCalls(b.user.id).filter((c) => ["get", "update", "delete", "rotate-token"].includes(c.label))
      expect(calls).toHaveLength(4)
      yield* expectAll(calls, { bearer: a.apiKey }, 404, "NotFound")
      yield* expectAll(calls, { headers: { "X-App-Api-Key": a.apiKey } }, 404, "NotFound")
      // App B's user is untouched: same fields, still Active, its token still works.
      expect(yield* getUser(b.apiKey, b.user.id)).toEqual(before)
      yield* expectTokenWorks(b.token, b.user.id)
    }))

  it.effect("a read-only API key can read users but gets 403 on create, update, delete and rotate-token", () =>
    Effect.gen(function*() {
      const { app, token, user } = yield* createUser("read-only")
      const apps = yield* Apps
      const readOnly = yield* apps.createApiKey(app.id, ["users:read"])
      const before = yield* getUser(readOnly.apiKey, user.id)
      const found = yield* send("GET", "/api/v1/users?external_user_id=read-only", { bearer: readOnly.apiKey })
      expect(found.status, preview(found)).toBe(200)
      const writes = apiKeyCalls(user.id).filter((c) => c.method !== "GET")
      expect(writes.map((c) => c.label)).toEqual(["create", "update", "delete", "rotate-token"])
      const bodies = yield* expectAll(writes, { bearer: readOnly.apiKey }, 403, "Forbidden")
      for (const body of bodies) expect(body.message).toContain("users:write")
      // Nothing was written: no new user, same fields, the token still works.
      expect(yield* getUser(readOnly.apiKey, user.id)).toEqual(before)
      expectError(
        yield* send("GET", "/api/v1/users?external_user_id=matrix-new", { bearer: readOnly.apiKey }),
        404,
        "NotFound"
      )
      yield* expectTokenWorks(token, user.id)
    }))

  it.effect("a write-only API key can create users but gets 403 on reads", () =>
    Effect.gen(function*() {
      const { app, user } = yield* createUser("write-only")
      const apps = yield* Apps
      const writeOnly = yield* apps.createApiKey(app.id, ["users:write"])
      const reads = apiKeyCalls(user.id).filter((c) => c.method === "GET")
      const bodies = yield* expectAll(reads, { bearer: writeOnly.apiKey }, 403, "Forbidden")
      for (const body of bodies) expect(body.message).toContain("users:read")
      const created = yield* send("POST", "/api/v1/users", {
        bearer: writeOnly.apiKey,
        json: { externalUserId: "by-writer" }
      })
      expect(created.status, preview(created)).toBe(201)
    }))

  it.effect("a revoked API key gets 401 while the app's other keys keep working", () =>
    Effect.gen(function*() {
      const { apiKey, app, user } = yield* createUser("revoked-key")
      const apps = yield* Apps
      const second = yield* apps.createApiKey(app.id, ["users:read", "users:write"])
      yield* getUser(second.apiKey, user.id)
      yield* apps.revokeApiKey(second.id)
      yield* expectAll(apiKeyCalls(user.id), { bearer: second.apiKey }, 401, "Unauthorized")
      yield* expectAll(apiKeyCalls(user.id), { headers: { "X-App-Api-Key": second.apiKey } }, 401, "Unauthorized")
      expect((yield* getUser(apiKey, user.id)).status).toBe("Active")
    }))

  it.effect("a token replaced by rotate-token gets 401 on the user endpoints", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("rotated")
      yield* expectTokenWorks(token, user.id)
      const rotated = yield* send("POST", `/api/v1/users/${user.id}/rotate-token`, { bearer: apiKey })
      expect(rotated.status, preview(rotated)).toBe(200)
      yield* expectAll(userTokenCalls(user.id), { bearer: token }, 401, "Unauthorized")
      yield* expectAll(userTokenCalls(user.id), { headers: { "X-User-Token": token } }, 401, "Unauthorized")
      yield* expectTokenWorks(json(rotated).token, user.id)
    }))

  it.effect("a deleted user's token gets 401 on the user endpoints", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("deleted")
      yield* expectTokenWorks(token, user.id)
      expect((yield* send("DELETE", `/api/v1/users/${user.id}`, { bearer: apiKey })).status).toBe(204)
      yield* expectAll(userTokenCalls(user.id), { bearer: token }, 401, "Unauthorized")
      yield* expectAll(userTokenCalls(user.id), { headers: { "X-User-Token": token } }, 401, "Unauthorized")
    }))

  it.effect("credentials are checked before the path and body: without one, bad input still gets 401", () =>
    Effect.gen(function*() {
      yield* expectAll(
        [
          { label: "get malformed id", method: "GET", path: "/api/v1/users/not-a-uuid" },
          { label: "create without fields", method: "POST", path: "/api/v1/users", json: {} },
          { label: "update malformed id", method: "PATCH", path: "/api/v1/users/not-a-uuid", json: { locale: 5 } },
          { label: "connections malformed id", method: "GET", path: "/api/v1/users/not-a-uuid/connections" },
          { label: "providers malformed id", method: "GET", path: "/api/v1/users/not-a-uuid/connections/providers" }
        ],
        {},
        401,
        "Unauthorized"
      )
    }))
})
