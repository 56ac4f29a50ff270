/**
 * Users (endpoints 1-6) end to end: the real server over HTTPS and a real database, called with an
 * app's API key. Each test makes its own app, so no test sees another's users.
 */
import { expect, it } from "@effect/vitest"
import type { UserId } from "@pulsebridge/domain"
import { apiClient, createApp, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import type { Reply } from "../fixtures/Http.js"
import { expectError, isoUtc, json, preview, send, unknownId, userTokenPattern } from "../fixtures/Http.js"

const createRaw = (apiKey: string, body: unknown) => send("POST", "/api/v1/users", { bearer: apiKey, json: body })

const getRaw = (apiKey: string, id: string) => send("GET", `/api/v1/users/${id}`, { bearer: apiKey })

const patchRaw = (apiKey: string, id: string, body: unknown) =>
  send("PATCH", `/api/v1/users/${id}`, { bearer: apiKey, json: body })

/** A user-token endpoint: 200 when the token is live for `userId`. */
const connectionsWith = (token: string, userId: string) =>
  send("GET", `/api/v1/users/${userId}/connections`, { bearer: token })

const expectTokenWorks = (token: string, userId: string) =>
  Effect.map(connectionsWith(token, userId), (reply) => {
    expect(reply.status, preview(reply)).toBe(200)
    expect(json(reply)).toEqual([])
  })

const expectTokenRevoked = (token: string, userId: string) =>
  Effect.map(connectionsWith(token, userId), (reply) => {
    expectError(reply, 401, "Unauthorized")
  })

/** The user body as the API writes it, without the token. */
const expectUserBody = (body: any) => {
  expect(Object.keys(body).sort()).toEqual(
    ["appId", "createdAt", "externalUserId", "id", "locale", "metadata", "status", "timezone", "updatedAt"]
  )
  expect(body.createdAt).toMatch(isoUtc)
  expect(body.updatedAt).toMatch(isoUtc)
}

const userBody = (reply: Reply, status = 200) => {
  expect(reply.status, preview(reply)).toBe(status)
  const body = json(reply)
  expectUserBody(body)
  return body
}

it.layer(makeTestServer(), { timeout: "120 seconds" })("users", (it) => {
  it.effect("create answers 201 with a pb_ut_ token, every field and the defaults", () =>
    Effect.gen(function*() {
      const { apiKey, app } = yield* createApp()
      const reply = yield* createRaw(apiKey, { externalUserId: "ext-create" })
      expect(reply.status, preview(reply)).toBe(201)
      const body = json(reply)
      expect(Object.keys(body).sort()).toEqual(
        ["appId", "createdAt", "externalUserId", "id", "locale", "metadata", "status", "timezone", "token", "updatedAt"]
      )
      expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect(body.appId).toBe(app.id)
      expect(body.externalUserId).toBe("ext-create")
      expect(body.status).toBe("Active")
      expect(body.locale).toBe("en-US")
      expect(body.timezone).toBe("UTC")
      expect(body.metadata).toEqual({})
      expect(body.token).toMatch(userTokenPattern)
      expect(body.createdAt).toMatch(isoUtc)
      expect(body.updatedAt).toMatch(isoUtc)
      expect(Date.parse(body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(body.createdAt))
      yield* expectTokenWorks(body.token, body.id)
    }))

  it.effect("create stores the given locale, timezone and metadata", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const metadata = { plan: "pro", nested: { list: [1, "two", null], flag: true } }
      const reply = yield* createRaw(apiKey, {
        externalUserId: "ext-fields",
        locale: "de-DE",
        timezone: "Europe/Berlin",
        metadata
      })
      expect(reply.status, preview(reply)).toBe(201)
      const created = json(reply)
      expect(created).toMatchObject({ locale: "de-DE", timezone: "Europe/Berlin", metadata })
      const fetched = userBody(yield* getRaw(apiKey, created.id))
      expect(fetched).toMatchObject({ locale: "de-DE", timezone: "Europe/Berlin", metadata })
    }))

  it.effect("create with an existing externalUserId answers 200 with the same user and a fresh token", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const first = yield* createRaw(apiKey, { externalUserId: "ext-again", locale: "fr-FR", metadata: { a: 1 } })
      expect(first.status, preview(first)).toBe(201)
      const again = yield* createRaw(apiKey, { externalUserId: "ext-again" })
      expect(again.status, preview(again)).toBe(200)
      const a = json(first)
      const b = json(again)
      expect(b.id).toBe(a.id)
      expect(b.token).toMatch(userTokenPattern)
      expect(b.token).not.toBe(a.token)
      // Creation is idempotent: the existing user's fields are kept.
      expect(b).toMatchObject({ status: "Active", locale: "fr-FR", timezone: "UTC", metadata: { a: 1 } })
      expect(b.createdAt).toBe(a.createdAt)
      yield* expectTokenWorks(a.token, a.id)
      yield* expectTokenWorks(b.token, a.id)
    }))

  it.effect("concurrent creates of one externalUserId make one user: one 201, the rest 200", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const replies = yield* Effect.all(
        Array.from({ length: 5 }, () => createRaw(apiKey, { externalUserId: "ext-race" })),
        { concurrency: "unbounded" }
      )
      expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201])
      const bodies = replies.map(json)
      expect(new Set(bodies.map((b) => b.id)).size).toBe(1)
      expect(new Set(bodies.map((b) => b.token)).size).toBe(5)
    }))

  it.effect("the same externalUserId in two apps makes two separate users", () =>
    Effect.gen(function*() {
      const appA = yield* createApp("app a")
      const appB = yield* createApp("app b")
      const a = yield* createRaw(appA.apiKey, { externalUserId: "shared-ext" })
      const b = yield* createRaw(appB.apiKey, { externalUserId: "shared-ext" })
      expect(a.status).toBe(201)
      expect(b.status).toBe(201)
      expect(json(a).id).not.toBe(json(b).id)
      expect(json(a).appId).toBe(appA.app.id)
      expect(json(b).appId).toBe(appB.app.id)
    }))

  it.effect("create rejects invalid bodies with 400 and creates nothing", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const cases: ReadonlyArray<readonly [string, unknown]> = [
        ["missing externalUserId", {}],
        ["empty externalUserId", { externalUserId: "" }],
        ["externalUserId over 255 characters", { externalUserId: "x".repeat(256) }],
        ["numeric externalUserId", { externalUserId: 42 }],
        ["numeric locale", { externalUserId: "ext-bad", locale: 5 }],
        ["locale that is no language tag", { externalUserId: "ext-bad", locale: "not a locale" }],
        ["unknown timezone", { externalUserId: "ext-bad", timezone: "Mars/Olympus_Mons" }],
        ["string metadata", { externalUserId: "ext-bad", metadata: "x" }],
        ["array metadata", { externalUserId: "ext-bad", metadata: ["x"] }],
        ["null metadata", { externalUserId: "ext-bad", metadata: null }],
        ["metadata over 16 KiB", { externalUserId: "ext-bad", metadata: { blob: "x".repeat(16 * 1024) } }]
      ]
      for (const [label, body] of cases) {
        const reply = yield* createRaw(apiKey, body)
        expect(reply.status, `${label}: ${preview(reply)}`).toBe(400)
        expectError(reply, 400)
      }
      expectError(
        yield* send("GET", "/api/v1/users?external_user_id=ext-bad", { bearer: apiKey }),
        404,
        "NotFound"
      )
    }))

  it.effect("an externalUserId of exactly 255 characters is accepted", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const reply = yield* createRaw(apiKey, { externalUserId: "x".repeat(255) })
      expect(reply.status, preview(reply)).toBe(201)
    }))

  it.effect("find by external_user_id returns the user without a token", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const externalUserId = "user+tag@example.com/ä & more"
      const created = json(yield* createRaw(apiKey, { externalUserId }))
      const client = yield* apiClient(apiKey)
      const [found, response] = yield* client.users.find({
        urlParams: { external_user_id: externalUserId },
        withResponse: true
      })
      expect(response.status).toBe(200)
      expect(found.id).toBe(created.id)
      expect(found.externalUserId).toBe(externalUserId)
      const raw = yield* send("GET", `/api/v1/users?external_user_id=${encodeURIComponent(externalUserId)}`, {
        bearer: apiKey
      })
      const body = userBody(raw)
      expect(body).toEqual({ ...created, token: undefined })
      expect("token" in body).toBe(false)
    }))

  it.effect("find answers 404 NotFound when no user of the app has the externalUserId", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const other = yield* createApp("other app")
      expect((yield* createRaw(other.apiKey, { externalUserId: "ext-other-app" })).status).toBe(201)
      expectError(yield* send("GET", "/api/v1/users?external_user_id=nobody", { bearer: apiKey }), 404, "NotFound")
      // Another app's user with that externalUserId stays invisible.
      expectError(
        yield* send("GET", "/api/v1/users?external_user_id=ext-other-app", { bearer: apiKey }),
        404,
        "NotFound"
      )
      const client = yield* apiClient(apiKey)
      const error = yield* Effect.flip(client.users.find({ urlParams: { external_user_id: "nobody" } }))
      expect(error._tag).toBe("NotFound")
    }))

  it.effect("find without external_user_id answers 400", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      expectError(yield* send("GET", "/api/v1/users", { bearer: apiKey }), 400)
      expectError(yield* send("GET", "/api/v1/users?externalUserId=x", { bearer: apiKey }), 400)
    }))

  it.effect("get returns the user without a token", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-get", metadata: { k: "v" } }))
      const body = userBody(yield* getRaw(apiKey, created.id))
      expect("token" in body).toBe(false)
      const { token: _token, ...withoutToken } = created
      expect(body).toEqual(withoutToken)
      const client = yield* apiClient(apiKey)
      const user = yield* client.users.get({ path: { id: created.id } })
      expect(user.id).toBe(created.id)
      expect(user.createdAt).toBeInstanceOf(Date)
    }))

  it.effect("unknown user ids answer 404 NotFound on get, update, delete and rotate-token", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const id = unknownId()
      expectError(yield* getRaw(apiKey, id), 404, "NotFound")
      expectError(yield* patchRaw(apiKey, id, { locale: "en-GB" }), 404, "NotFound")
      expectError(yield* send("DELETE", `/api/v1/users/${id}`, { bearer: apiKey }), 404, "NotFound")
      expectError(yield* send("POST", `/api/v1/users/${id}/rotate-token`, { bearer: apiKey }), 404, "NotFound")
      const client = yield* apiClient(apiKey)
      const error = yield* Effect.flip(client.users.get({ path: { id: id as UserId } }))
      expect(error._tag).toBe("NotFound")
    }))

  it.effect("error bodies say what is missing: an unknown id or externalUserId, or a deleted user to rotate", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const id = unknownId()
      for (const reply of [yield* getRaw(apiKey, id), yield* patchRaw(apiKey, id, { locale: "en-GB" })]) {
        expect(expectError(reply, 404, "NotFound").message).toBe(`no user with id ${id}`)
      }
      const missing = yield* send("GET", "/api/v1/users?external_user_id=nobody", { bearer: apiKey })
      expect(expectError(missing, 404, "NotFound").message).toBe("no user with externalUserId nobody")
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-rotate-deleted" }))
      expect((yield* send("DELETE", `/api/v1/users/${created.id}`, { bearer: apiKey })).status).toBe(204)
      const rotated = yield* send("POST", `/api/v1/users/${created.id}/rotate-token`, { bearer: apiKey })
      expect(expectError(rotated, 400, "BadRequest").message).toBe(
        "the user is Inactive; create it again with POST /api/v1/users to reactivate it"
      )
    }))

  it.effect("malformed user ids in the path answer 400 on get, update, delete and rotate-token", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      for (const id of ["not-a-uuid", "123", "00000000-0000-0000-0000-00000000000g"]) {
        expectError(yield* getRaw(apiKey, id), 400)
        expectError(yield* patchRaw(apiKey, id, { locale: "en-GB" }), 400)
        expectError(yield* send("DELETE", `/api/v1/users/${id}`, { bearer: apiKey }), 400)
        expectError(yield* send("POST", `/api/v1/users/${id}/rotate-token`, { bearer: apiKey }), 400)
      }
    }))

  it.effect("update changes locale and timezone and keeps everything else", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-patch", metadata: { keep: true } }))
      const reply = yield* patchRaw(apiKey, created.id, { locale: "pt-BR", timezone: "America/Sao_Paulo" })
      const updated = userBody(reply)
      expect("token" in updated).toBe(false)
      expect(updated).toMatchObject({
        id: created.id,
        appId: created.appId,
        externalUserId: "ext-patch",
        status: "Active",
        locale: "pt-BR",
        timezone: "America/Sao_Paulo",
        metadata: { keep: true },
        createdAt: created.createdAt
      })
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt))
      expect(userBody(yield* getRaw(apiKey, created.id))).toEqual(updated)

      const onlyTimezone = userBody(yield* patchRaw(apiKey, created.id, { timezone: "Asia/Tokyo" }))
      expect(onlyTimezone).toMatchObject({ locale: "pt-BR", timezone: "Asia/Tokyo", metadata: { keep: true } })
    }))

  it.effect("update replaces metadata entirely instead of merging it", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(
        yield* createRaw(apiKey, { externalUserId: "ext-meta", metadata: { a: 1, b: { c: 2, d: 3 } } })
      )
      const replaced = userBody(yield* patchRaw(apiKey, created.id, { metadata: { b: { e: 4 } } }))
      expect(replaced.metadata).toEqual({ b: { e: 4 } })
      expect(userBody(yield* getRaw(apiKey, created.id)).metadata).toEqual({ b: { e: 4 } })

      const cleared = userBody(yield* patchRaw(apiKey, created.id, { metadata: {} }))
      expect(cleared.metadata).toEqual({})
      expect(cleared.locale).toBe("en-US")
    }))

  it.effect("update with an empty body answers 200 and changes no field", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(
        yield* createRaw(apiKey, { externalUserId: "ext-empty-patch", locale: "it-IT", metadata: { x: 1 } })
      )
      const updated = userBody(yield* patchRaw(apiKey, created.id, {}))
      expect(updated).toMatchObject({ locale: "it-IT", timezone: "UTC", metadata: { x: 1 }, status: "Active" })
    }))

  it.effect("update rejects invalid values with 400 and changes nothing", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(
        yield* createRaw(apiKey, {
          externalUserId: "ext-bad-patch",
          locale: "en-GB",
          timezone: "Europe/London",
          metadata: { original: true }
        })
      )
      const before = userBody(yield* getRaw(apiKey, created.id))
      const cases: ReadonlyArray<readonly [string, unknown]> = [
        ["unknown timezone", { timezone: "Not/AZone" }],
        ["unknown timezone next to a valid locale", { locale: "fr-FR", timezone: "Europe/Atlantis" }],
        ["numeric locale", { locale: 5 }],
        ["numeric timezone", { timezone: 5 }],
        ["locale that is no language tag", { locale: "!!" }],
        ["string metadata", { metadata: "x" }],
        ["array metadata", { metadata: [1, 2] }],
        ["null metadata", { metadata: null }],
        ["metadata over 16 KiB", { metadata: { blob: "y".repeat(16 * 1024) } }],
        ["metadata over 16 KiB next to a valid locale", { locale: "fr-FR", metadata: { blob: "y".repeat(20_000) } }]
      ]
      for (const [label, body] of cases) {
        const reply = yield* patchRaw(apiKey, created.id, body)
        expect(reply.status, `${label}: ${preview(reply)}`).toBe(400)
        expectError(reply, 400)
      }
      expect(userBody(yield* getRaw(apiKey, created.id))).toEqual(before)
    }))

  it.effect("metadata of exactly 16 KiB as JSON is accepted and one byte more is rejected", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-meta-limit" }))
      // `{"k":"..."}` is the value plus 8 characters.
      const atLimit = { k: "z".repeat(16 * 1024 - 8) }
      expect(JSON.stringify(atLimit).length).toBe(16 * 1024)
      expect(userBody(yield* patchRaw(apiKey, created.id, { metadata: atLimit })).metadata).toEqual(atLimit)
      expectError(yield* patchRaw(apiKey, created.id, { metadata: { k: "z".repeat(16 * 1024 - 7) } }), 400)
      expect(userBody(yield* getRaw(apiKey, created.id)).metadata).toEqual(atLimit)
    }))

  it.effect("metadata over 16 KiB of UTF-8 is rejected even when it has fewer than 16384 characters", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-meta-utf8" }))
      // 9000 two-byte characters: 9008 characters of JSON, but 18008 bytes.
      const metadata = { k: "é".repeat(9000) }
      expect(Buffer.byteLength(JSON.stringify(metadata), "utf8")).toBeGreaterThan(16 * 1024)
      expectError(yield* patchRaw(apiKey, created.id, { metadata }), 400)
      expectError(yield* createRaw(apiKey, { externalUserId: "ext-meta-utf8-new", metadata }), 400)
      expect(userBody(yield* getRaw(apiKey, created.id)).metadata).toEqual({})
    }))

  it.effect("delete answers 204 with an empty body and the user then reads as Inactive", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-delete", metadata: { kept: 1 } }))
      const reply = yield* send("DELETE", `/api/v1/users/${created.id}`, { bearer: apiKey })
      expect(reply.status, preview(reply)).toBe(204)
      expect(reply.text).toBe("")
      const afterGet = userBody(yield* getRaw(apiKey, created.id))
      expect(afterGet).toMatchObject({ id: created.id, status: "Inactive", metadata: { kept: 1 } })
      const afterFind = userBody(
        yield* send("GET", "/api/v1/users?external_user_id=ext-delete", { bearer: apiKey })
      )
      expect(afterFind.status).toBe("Inactive")
    }))

  it.effect("a deleted user's tokens get 401 on a user endpoint", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const first = json(yield* createRaw(apiKey, { externalUserId: "ext-delete-tokens" }))
      const second = json(yield* createRaw(apiKey, { externalUserId: "ext-delete-tokens" }))
      yield* expectTokenWorks(first.token, first.id)
      expect((yield* send("DELETE", `/api/v1/users/${first.id}`, { bearer: apiKey })).status).toBe(204)
      yield* expectTokenRevoked(first.token, first.id)
      yield* expectTokenRevoked(second.token, first.id)
      expectError(
        yield* send("GET", `/api/v1/users/${first.id}/connections/providers`, { bearer: second.token }),
        401,
        "Unauthorized"
      )
    }))

  it.effect("creating a deleted user again reactivates it with 200 and a new token; old tokens stay revoked", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-reactivate" }))
      expect((yield* send("DELETE", `/api/v1/users/${created.id}`, { bearer: apiKey })).status).toBe(204)
      const again = yield* createRaw(apiKey, { externalUserId: "ext-reactivate" })
      expect(again.status, preview(again)).toBe(200)
      const reactivated = json(again)
      expect(reactivated.id).toBe(created.id)
      expect(reactivated.status).toBe("Active")
      expect(reactivated.token).toMatch(userTokenPattern)
      expect(reactivated.token).not.toBe(created.token)
      yield* expectTokenWorks(reactivated.token, created.id)
      yield* expectTokenRevoked(created.token, created.id)
      expect(userBody(yield* getRaw(apiKey, created.id)).status).toBe("Active")
    }))

  it.effect("rotate-token answers 200 with only a new token; the old token gets 401 and the new one works", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-rotate" }))
      const reply = yield* send("POST", `/api/v1/users/${created.id}/rotate-token`, { bearer: apiKey })
      expect(reply.status, preview(reply)).toBe(200)
      const body = json(reply)
      expect(Object.keys(body)).toEqual(["token"])
      expect(body.token).toMatch(userTokenPattern)
      expect(body.token).not.toBe(created.token)
      yield* expectTokenRevoked(created.token, created.id)
      yield* expectTokenWorks(body.token, created.id)
      // The user itself is unchanged.
      expect(userBody(yield* getRaw(apiKey, created.id)).status).toBe("Active")
    }))

  it.effect("rotate-token revokes every earlier token of the user", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const first = json(yield* createRaw(apiKey, { externalUserId: "ext-rotate-all" }))
      const second = json(yield* createRaw(apiKey, { externalUserId: "ext-rotate-all" }))
      const client = yield* apiClient(apiKey)
      const rotated = yield* client.users.rotateToken({ path: { id: first.id } })
      yield* expectTokenRevoked(first.token, first.id)
      yield* expectTokenRevoked(second.token, first.id)
      yield* expectTokenWorks(rotated.token, first.id)
      const again = yield* client.users.rotateToken({ path: { id: first.id } })
      yield* expectTokenRevoked(rotated.token, first.id)
      yield* expectTokenWorks(again.token, first.id)
    }))

  it.effect("rotating one user's token leaves other users' tokens working", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("ext-bystander")
      const other = json(yield* createRaw(apiKey, { externalUserId: "ext-rotated" }))
      const client = yield* apiClient(apiKey)
      yield* client.users.rotateToken({ path: { id: other.id } })
      yield* expectTokenWorks(token, user.id)
    }))

  it.effect("the token appears only in the create and rotate-token responses", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const created = json(yield* createRaw(apiKey, { externalUserId: "ext-token-only" }))
      expect(created.token).toMatch(userTokenPattern)
      const readers = [
        yield* getRaw(apiKey, created.id),
        yield* send("GET", "/api/v1/users?external_user_id=ext-token-only", { bearer: apiKey }),
        yield* patchRaw(apiKey, created.id, { locale: "en-AU" })
      ]
      for (const reply of readers) {
        expect(reply.status).toBe(200)
        expect(reply.text).not.toContain("pb_ut_")
        expect("token" in json(reply)).toBe(false)
      }
      const rotated = json(yield* send("POST", `/api/v1/users/${created.id}/rotate-token`, { bearer: apiKey }))
      expect(rotated.token).toMatch(userTokenPattern)
    }))
})
