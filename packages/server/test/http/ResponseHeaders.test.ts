/**
 * The headers an answer carries whatever route gives it, where the wire is the subject:
 * - `Strict-Transport-Security` on every answer of a server whose public URL names a real host (its `max-age`
 *   from `HSTS_MAX_AGE`), and on none when the public URL is localhost or a loopback address (it would pin
 *   every localhost port of the browser to HTTPS), when TLS ends at a proxy (which sets it), or when it is off;
 * - `Cache-Control: no-store` on every API answer that carries a credential, personal or health data, except the
 *   range reads revalidated by their ETag, which keep `private, no-cache`; a sweep over every read of the
 *   OpenAPI document keeps a route added later from going without.
 */
import { expect, it, layer } from "@effect/vitest"
import { addConnection, createUser, makeTestServer } from "@pulsebridge/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { hstsHeader } from "../../src/http/ResponseHeaders.js"
import { ServerConfig, serverConfig } from "../../src/platform/ServerConfig.js"
import { redirectUrl } from "../fixtures/Connect.js"
import type { Reply } from "../fixtures/Http.js"
import { json, preview, send, unknownId } from "../fixtures/Http.js"
import { makePng } from "../journal/fixtures/Images.js"
import { entriesPath, scan, scanForm } from "../journal/fixtures/Journal.js"
import { loggedIn } from "../portal/fixtures.js"

const mcpHeaders = { accept: "application/json, text/event-stream" }

/**
 * One answer of each kind: probes and pages, the API's success and its errors, an answer the router never
 * reaches (a path refused before it), the platform's 404, the MCP server and the portal's assets.
 */
const answersOfEveryKind = (headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const { apiKey, user } = yield* createUser(`headers-${unknownId().slice(0, 8)}`)
    const replies: Record<string, Reply> = {
      "health": yield* send("GET", "/health", { headers }),
      "root": yield* send("GET", "/", { headers }),
      "openapi": yield* send("GET", "/openapi.json", { headers }),
      "user": yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey, headers }),
      "no credential": yield* send("GET", `/api/v1/users/${user.id}`, { headers }),
      "bad path": yield* send("GET", `/api/v1/users/${"x".repeat(101)}`, { bearer: apiKey, headers }),
      "unknown route": yield* send("GET", "/no-such-route", { headers }),
      "mcp": yield* send("POST", "/mcp", { json: {}, headers: { ...mcpHeaders, ...headers } }),
      "portal": yield* send("GET", "/portal/", { headers })
    }
    const statuses = Object.fromEntries(Object.entries(replies).map(([kind, reply]) => [kind, reply.status]))
    expect(statuses).toEqual({
      "health": 200,
      "root": 200,
      "openapi": 200,
      "user": 200,
      "no credential": 401,
      "bad path": 400,
      "unknown route": 404,
      "mcp": 401,
      "portal": 200
    })
    return replies
  })

const expectNoHsts = (replies: Record<string, Reply>) => {
  for (const [kind, reply] of Object.entries(replies)) {
    expect(reply.headers["strict-transport-security"], kind).toBeUndefined()
  }
}

layer(makeTestServer({ publicUrl: Option.some("https://health.example.com") }), {
  timeout: "120 seconds",
  excludeTestServices: true
})("a public URL on a real host", (it) => {
  it.effect("every answer carries Strict-Transport-Security for a year", () =>
    Effect.gen(function*() {
      for (const [kind, reply] of Object.entries(yield* answersOfEveryKind())) {
        expect(reply.headers["strict-transport-security"], `${kind}: ${preview(reply)}`).toBe("max-age=31536000")
      }
    }))
})

layer(makeTestServer({ publicUrl: Option.some("https://Health.Example.com:8443/"), hstsMaxAge: 600 }), {
  timeout: "120 seconds",
  excludeTestServices: true
})("a public URL on a real host with HSTS_MAX_AGE", (it) => {
  it.effect("every answer carries the configured max-age", () =>
    Effect.gen(function*() {
      for (const [kind, reply] of Object.entries(yield* answersOfEveryKind())) {
        expect(reply.headers["strict-transport-security"], `${kind}: ${preview(reply)}`).toBe("max-age=600")
      }
    }))
})

layer(makeTestServer({ publicUrl: Option.some("https://health.example.com"), hstsMaxAge: 0 }), {
  timeout: "120 seconds",
  excludeTestServices: true
})("HSTS_MAX_AGE=0", (it) => {
  it.effect("no answer carries Strict-Transport-Security", () => Effect.map(answersOfEveryKind(), expectNoHsts))
})

layer(makeTestServer({ publicUrl: Option.some("https://127.0.0.1:8443") }), {
  timeout: "120 seconds",
  excludeTestServices: true
})("a public URL on a loopback address", (it) => {
  it.effect("no answer carries Strict-Transport-Security", () => Effect.map(answersOfEveryKind(), expectNoHsts))
})

layer(makeTestServer({ publicUrl: Option.some("https://health.example.com"), trustProxy: true }), {
  timeout: "120 seconds",
  excludeTestServices: true
})("behind a TLS-terminating proxy", (it) => {
  it.effect("no answer carries Strict-Transport-Security: the proxy sets it", () =>
    Effect.map(answersOfEveryKind({ "x-forwarded-proto": "https" }), expectNoHsts))
})

it("the header is sent for a host name only: never localhost, a loopback or other IP address, or when off", () => {
  const header = (publicUrl: string | undefined, overrides: Partial<Parameters<typeof hstsHeader>[0]> = {}) =>
    hstsHeader(ServerConfig.make({ publicUrl: Option.fromNullable(publicUrl), ...overrides }))
  expect(header("https://health.example.com")).toBe("max-age=31536000")
  expect(header("https://api.example.co.uk:8443/base/")).toBe("max-age=31536000")
  expect(header("https://health.example.com", { hstsMaxAge: 86400 })).toBe("max-age=86400")
  for (
    const local of [
      undefined,
      "https://localhost:8443",
      "https://LOCALHOST",
      "https://localhost.:8443",
      "https://pulse.localhost:8443",
      "https://127.0.0.1:8443",
      "https://127.8.9.10",
      "https://[::1]:8443",
      "https://[::ffff:127.0.0.1]",
      "https://192.168.1.20:8443",
      "http://health.example.com"
    ]
  ) {
    expect(header(local), local).toBeUndefined()
  }
  expect(header("https://health.example.com", { hstsMaxAge: 0 })).toBeUndefined()
  expect(header("https://health.example.com", { trustProxy: true })).toBeUndefined()
})

it.effect("HSTS_MAX_AGE is a number of seconds, a year unless set; anything else is refused", () =>
  Effect.gen(function*() {
    const read = (value: string | undefined) =>
      Effect.withConfigProvider(
        serverConfig,
        ConfigProvider.fromMap(new Map(value === undefined ? [] : [["HSTS_MAX_AGE", value]]))
      )
    expect((yield* read(undefined)).hstsMaxAge).toBe(31_536_000)
    expect((yield* read("600")).hstsMaxAge).toBe(600)
    expect((yield* read("0")).hstsMaxAge).toBe(0)
    for (const bad of ["-1", "a year", "1.5"]) {
      expect(String(yield* Effect.flip(read(bad))), bad).toMatch(/HSTS_MAX_AGE/)
    }
  }))

/** The routes whose reads are revalidated by ETag: they keep `private, no-cache`. */
const etagReads = [
  "/api/v1/users/{userId}/connections/activity",
  "/api/v1/users/{userId}/connections/activity-load",
  "/api/v1/users/{userId}/connections/glucose",
  "/api/v1/users/{userId}/connections/sleep",
  "/api/v1/users/{userId}/connections/workouts",
  "/api/v1/users/{userId}/connections/recovery",
  "/api/v1/users/{userId}/connections/body",
  "/api/v1/users/{userId}/meal-comparisons"
]

const expectNoStore = (what: string, reply: Reply, status: number) => {
  expect(reply.status, `${what}: ${preview(reply)}`).toBe(status)
  expect(reply.headers["cache-control"], what).toBe("no-store")
}

layer(makeTestServer({ sandbox: true }), { timeout: "180 seconds", excludeTestServices: true })(
  "a public URL on localhost (the default)",
  (it) => {
    it.effect("no answer carries Strict-Transport-Security", () => Effect.map(answersOfEveryKind(), expectNoHsts))

    it.effect("every answer with a credential, personal or health data is no-store; ETag range reads private, no-cache", () =>
      Effect.gen(function*() {
        const { apiKey, token, user } = yield* createUser(`cache-${unknownId().slice(0, 8)}`)
        const userId = user.id
        const created = yield* send("POST", "/api/v1/users", {
          bearer: apiKey,
          json: { externalUserId: `cache-other-${unknownId().slice(0, 8)}` }
        })
        expectNoStore("create user (its token)", created, 201)
        const connectionId = yield* addConnection(user, "Dexcom")
        const users = `/api/v1/users/${userId}`
        const find = `/api/v1/users?external_user_id=${user.externalUserId}`
        expectNoStore("find user", yield* send("GET", find, { bearer: apiKey }), 200)
        expectNoStore("get user", yield* send("GET", users, { bearer: apiKey }), 200)
        expectNoStore("patch user", yield* send("PATCH", users, { bearer: apiKey, json: { locale: "de-DE" } }), 200)
        const rotated = yield* send("POST", `${users}/rotate-token`, { bearer: apiKey })
        expectNoStore("rotate token", rotated, 200)
        const fresh = json(rotated).token as string
        expect(fresh).not.toBe(token)
        expectNoStore("export", yield* send("GET", `${users}/export`, { bearer: apiKey }), 200)
        expectNoStore("connections", yield* send("GET", `${users}/connections`, { bearer: fresh }), 200)
        expectNoStore("providers", yield* send("GET", `${users}/connections/providers`, { bearer: fresh }), 200)
        expectNoStore(
          "connect session",
          yield* send("POST", `${users}/connections/sessions`, {
            bearer: fresh,
            json: { provider: "Fitbit", redirectUrl }
          }),
          200
        )
        const entry = yield* send("POST", entriesPath(userId), {
          bearer: fresh,
          json: { entryKind: "Meal", consumedAtUtc: "2026-01-05T12:30:00Z", timezone: "UTC", title: "Lunch" }
        })
        expectNoStore("create entry", entry, 201)
        const entryId = json(entry).id as string
        expectNoStore("entries", yield* send("GET", `${entriesPath(userId)}?date=2026-01-05`, { bearer: fresh }), 200)
        expectNoStore("entry", yield* send("GET", `${entriesPath(userId)}/${entryId}`, { bearer: fresh }), 200)
        expectNoStore(
          "patch entry",
          yield* send("PATCH", `${entriesPath(userId)}/${entryId}`, { bearer: fresh, json: { title: "Late lunch" } }),
          200
        )
        const photo = yield* scan(
          fresh,
          userId,
          scanForm({ bytes: makePng(16, 16, 3), type: "image/png", name: "meal.png" }, {
            entryKind: "Meal",
            consumedAtUtc: "2026-01-06T19:00:00Z",
            timezone: "UTC"
          })
        )
        expectNoStore(
          "meal photo",
          yield* send("GET", `${entriesPath(userId)}/${photo.id}/image`, { bearer: fresh }),
          200
        )
        const range = "from=2026-01-01&to=2026-01-07"
        expectNoStore("daily scores", yield* send("GET", `/api/v1/scores/daily?${range}`, { bearer: fresh }), 200)
        expectNoStore("weekly scores", yield* send("GET", `/api/v1/scores/weekly?${range}`, { bearer: fresh }), 200)
        expectNoStore(
          "meal responses",
          yield* send("GET", `${users}/insights/meal-responses?${range}`, { bearer: fresh }),
          200
        )
        expectNoStore("coverage", yield* send("GET", `${users}/coverage?${range}`, { bearer: fresh }), 200)
        expectNoStore(
          "mcp",
          yield* send("POST", "/mcp", {
            bearer: fresh,
            headers: mcpHeaders,
            json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_profile", arguments: {} } }
          }),
          200
        )

        const endpoint = yield* send("POST", "/api/v1/webhook-endpoints", {
          bearer: apiKey,
          json: { url: "https://example.com/hooks" }
        })
        expectNoStore("create webhook endpoint (its secret)", endpoint, 201)
        const endpoints = `/api/v1/webhook-endpoints/${json(endpoint).id}`
        expectNoStore("webhook endpoints", yield* send("GET", "/api/v1/webhook-endpoints", { bearer: apiKey }), 200)
        expectNoStore("webhook endpoint", yield* send("GET", endpoints, { bearer: apiKey }), 200)
        expectNoStore("rotate secret", yield* send("POST", `${endpoints}/rotate-secret`, { bearer: apiKey }), 200)
        expectNoStore("deliveries", yield* send("GET", `${endpoints}/deliveries`, { bearer: apiKey }), 200)

        // The range reads revalidated by their ETag: private, no-cache, the 304 too.
        for (const path of etagReads) {
          const url = `${path.replace("{userId}", userId)}?${range}`
          const read = yield* send("GET", url, { bearer: fresh })
          expect(read.status, `${path}: ${preview(read)}`).toBe(200)
          expect(read.headers["cache-control"], path).toBe("private, no-cache")
          const again = yield* send("GET", url, { bearer: fresh, headers: { "if-none-match": read.headers["etag"]! } })
          expect(again.status, path).toBe(304)
          expect(again.headers["cache-control"], path).toBe("private, no-cache")
        }
        // A day of one connection is not revalidated: no-store.
        expectNoStore(
          "activity of a day",
          yield* send("GET", `${users}/connections/${connectionId}/activity/2026-01-05`, { bearer: fresh }),
          404
        )

        // Errors of these routes carry it too.
        expectNoStore("unknown user", yield* send("GET", `/api/v1/users/${unknownId()}`, { bearer: apiKey }), 404)
        expectNoStore("no credential", yield* send("GET", users), 401)

        // The portal's API: the operator's session, users, their photos and exports.
        const { client } = yield* loggedIn
        for (
          const [what, path] of [
            ["session", "/portal/api/session"],
            ["apps", "/portal/api/apps"],
            ["user page", `/portal/api/users/${userId}`],
            ["journal", `/portal/api/users/${userId}/journal?from=2026-01-01&to=2026-01-31`],
            ["photo", `/portal/api/users/${userId}/journal/${photo.id}/photo`],
            ["export", `/portal/api/users/${userId}/export`],
            ["audit", "/portal/api/audit"]
          ] as const
        ) {
          const reply = yield* client.get(path)
          expect(reply.status, `${what}: ${reply.text.slice(0, 200)}`).toBe(200)
          expect(reply.headers["cache-control"], what).toBe("no-store")
        }
      }))

    it.effect("every read in the OpenAPI document answers no-store, or private, no-cache where revalidated", () =>
      Effect.gen(function*() {
        const { apiKey, token, user } = yield* createUser(`sweep-${unknownId().slice(0, 8)}`)
        const connectionId = yield* addConnection(user, "Dexcom")
        const endpoint = yield* send("POST", "/api/v1/webhook-endpoints", {
          bearer: apiKey,
          json: { url: "https://example.com/hooks" }
        })
        expect(endpoint.status, preview(endpoint)).toBe(201)
        const entry = yield* send("POST", entriesPath(user.id), {
          bearer: token,
          json: { entryKind: "Meal", consumedAtUtc: "2026-01-05T12:30:00Z", timezone: "UTC", title: "Lunch" }
        })
        expect(entry.status, preview(entry)).toBe(201)
        const doc = json(yield* send("GET", "/openapi.json"))
        const values: Record<string, string> = {
          userId: user.id,
          connectionId,
          entryId: json(entry).id,
          date: "2026-01-05",
          from: "2026-01-01",
          to: "2026-01-07",
          external_user_id: user.externalUserId
        }
        let checked = 0
        for (const [template, operations] of Object.entries(doc.paths as Record<string, any>)) {
          const read = operations.get
          if (read === undefined || !template.startsWith("/api/v1/")) continue
          const id = template.startsWith("/api/v1/webhook-endpoints") ? json(endpoint).id : user.id
          const path = template.replace(/\{(\w+)\}/g, (_, name: string) => name === "id" ? id : values[name] ?? name)
          const query = (read.parameters ?? [])
            .filter((p: any) => p.in === "query" && values[p.name] !== undefined)
            .map((p: any) => `${p.name}=${encodeURIComponent(values[p.name]!)}`)
            .join("&")
          const schemes = (read.security ?? []).flatMap((r: object) => Object.keys(r)).join(" ")
          const bearer = /userToken/.test(schemes) ? token : /apiKey/.test(schemes) ? apiKey : undefined
          const reply = yield* send("GET", query === "" ? path : `${path}?${query}`, {
            ...(bearer === undefined ? {} : { bearer })
          })
          expect(reply.status, `${template}: ${preview(reply)}`).toBeLessThan(500)
          const expected = etagReads.includes(template) && reply.status === 200 ? "private, no-cache" : "no-store"
          expect(reply.headers["cache-control"], `${template} answered ${reply.status}`).toBe(expected)
          checked++
        }
        expect(checked).toBeGreaterThanOrEqual(20)
      }))
  }
)
