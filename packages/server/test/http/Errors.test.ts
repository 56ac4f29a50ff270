/**
 * Error answers end to end: malformed, non-object, mistyped and oversize bodies, unknown routes,
 * the request id on every response, and plain HTTP on the HTTPS port. Every error is JSON with
 * `_tag` and `message`, and none is a 500.
 */
import { HttpClientRequest } from "@effect/platform"
import { expect, it } from "@effect/vitest"
import { createApp, createUser, makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as http from "node:http"
import type { Reply } from "../fixtures/Http.js"
import { execute, expectError, json, preview, request, send, unknownId } from "../fixtures/Http.js"

const MiB = 1024 * 1024

/** A JSON object body of exactly `bytes` bytes that creates a user (unknown fields are ignored). */
const createBodyOfSize = (externalUserId: string, bytes: number) => {
  const prefix = `{"externalUserId":"${externalUserId}","padding":"`
  const suffix = `"}`
  return prefix + "p".repeat(bytes - prefix.length - suffix.length) + suffix
}

/** A transport failure as a reply with status 0, so the assertion shows what happened. */
const executeOrTransportError = (req: HttpClientRequest.HttpClientRequest) =>
  execute(req).pipe(
    Effect.catchAllDefect((defect) =>
      Effect.succeed<Reply>({
        status: 0,
        headers: {},
        text: `transport error instead of a reply: ${String((defect as { cause?: unknown }).cause ?? defect)}`
      })
    )
  )

const expectNoUser = (apiKey: string, externalUserId: string) =>
  Effect.map(
    send("GET", `/api/v1/users?external_user_id=${externalUserId}`, { bearer: apiKey }),
    (reply) => expectError(reply, 404, "NotFound")
  )

it.layer(makeTestServer(), { timeout: "120 seconds" })("errors", (it) => {
  it.effect("a malformed JSON body answers 400 BadRequest with a JSON body", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("malformed")
      for (const body of ["{nope", "{\"externalUserId\": \"x\",}", "{\"externalUserId\": \"x\"", "\u0000"]) {
        expectError(yield* send("POST", "/api/v1/users", { bearer: apiKey, body }), 400, "BadRequest")
        expectError(yield* send("PATCH", `/api/v1/users/${user.id}`, { bearer: apiKey, body }), 400, "BadRequest")
        expectError(
          yield* send("POST", `/api/v1/users/${user.id}/connections/sessions`, { bearer: token, body }),
          400,
          "BadRequest"
        )
      }
      yield* expectNoUser(apiKey, "x")
    }))

  it.effect("a JSON body that is not an object answers 400", () =>
    Effect.gen(function*() {
      const { apiKey, user } = yield* createUser("not-object")
      const bodies = ["[]", "[{\"externalUserId\":\"in-array\"}]", "\"in-string\"", "5", "true", "null"]
      for (const body of bodies) {
        const created = yield* send("POST", "/api/v1/users", { bearer: apiKey, body })
        expect(created.status, `${body}: ${preview(created)}`).toBe(400)
        expectError(created, 400)
        const patched = yield* send("PATCH", `/api/v1/users/${user.id}`, { bearer: apiKey, body })
        expect(patched.status, `${body}: ${preview(patched)}`).toBe(400)
        expectError(patched, 400)
      }
      yield* expectNoUser(apiKey, "in-array")
    }))

  it.effect("a body with a content type other than JSON answers 400 and creates nothing", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const body = JSON.stringify({ externalUserId: "wrong-type" })
      for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
        const reply = yield* send("POST", "/api/v1/users", { bearer: apiKey, body, contentType })
        expect(reply.status, `${contentType}: ${preview(reply)}`).toBe(400)
        expect(expectError(reply, 400, "BadRequest").message).toContain("application/json")
      }
      yield* expectNoUser(apiKey, "wrong-type")
    }))

  it.effect("application/json with a charset parameter is accepted", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const reply = yield* send("POST", "/api/v1/users", {
        bearer: apiKey,
        body: JSON.stringify({ externalUserId: "charset" }),
        contentType: "application/json; charset=utf-8"
      })
      expect(reply.status, preview(reply)).toBe(201)
    }))

  it.effect("a POST /api/v1/users without a body answers 400", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      expectError(yield* send("POST", "/api/v1/users", { bearer: apiKey }), 400)
      expectError(yield* send("POST", "/api/v1/users", { bearer: apiKey, body: "" }), 400)
      expectError(yield* send("POST", "/api/v1/users", { bearer: apiKey, json: {} }), 400)
    }))

  it.effect("a body that fails the schema answers 400 HttpApiDecodeError with the issues", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const reply = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: "x", locale: 5 } })
      const body = expectError(reply, 400, "HttpApiDecodeError") as unknown as { issues: ReadonlyArray<any> }
      expect(Array.isArray(body.issues)).toBe(true)
      expect(body.issues.map((issue) => issue.path.join("."))).toContain("locale")
      yield* expectNoUser(apiKey, "x")
    }))

  it.effect("a body over 1 MiB answers 413 PayloadTooLarge with a JSON body", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const body = createBodyOfSize("too-large", MiB + 1)
      expect(Buffer.byteLength(body)).toBe(MiB + 1)
      expectError(yield* send("POST", "/api/v1/users", { bearer: apiKey, body }), 413, "PayloadTooLarge")
      // The size is checked before the content type.
      expectError(
        yield* send("POST", "/api/v1/users", { bearer: apiKey, body, contentType: "text/plain" }),
        413,
        "PayloadTooLarge"
      )
      yield* expectNoUser(apiKey, "too-large")
    }))

  it.effect("a body of exactly 1 MiB is accepted", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const body = createBodyOfSize("exactly-one-mib", MiB)
      expect(Buffer.byteLength(body)).toBe(MiB)
      const reply = yield* send("POST", "/api/v1/users", { bearer: apiKey, body })
      expect(reply.status, preview(reply)).toBe(201)
    }))

  it.effect("a chunked body over 1 MiB without a content length answers 413 PayloadTooLarge", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const chunk = new Uint8Array(64 * 1024).fill(0x70)
      const chunks = Stream.make(new TextEncoder().encode("{\"externalUserId\":\"chunked\",\"padding\":\"")).pipe(
        Stream.concat(Stream.fromIterable(Array.from({ length: 17 }, () => chunk))),
        Stream.concat(Stream.make(new TextEncoder().encode("\"}")))
      )
      const req = (yield* request("POST", "/api/v1/users", { bearer: apiKey })).pipe(
        HttpClientRequest.bodyStream(chunks, { contentType: "application/json" })
      )
      expect(req.headers["content-length"]).toBeUndefined()
      expectError(yield* executeOrTransportError(req), 413, "PayloadTooLarge")
      yield* expectNoUser(apiKey, "chunked")
    }))

  it.effect("unknown routes answer 404 NotFound with a JSON body", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const routes: ReadonlyArray<readonly ["GET" | "POST" | "DELETE" | "PUT", string]> = [
        ["GET", "/api/v1/nothing-here"],
        ["GET", "/nothing-here"],
        ["GET", "/api/v2/users"],
        ["POST", "/api/v1/users/x/y/z"],
        ["PUT", "/api/v1/users"],
        ["DELETE", "/api/v1/users"]
      ]
      for (const [method, path] of routes) {
        const reply = yield* send(method, path, { bearer: apiKey })
        expect(reply.status, `${method} ${path}: ${preview(reply)}`).toBe(404)
        expectError(reply, 404, "NotFound")
      }
    }))

  it.effect("every API response carries its own x-request-id header", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("request-id")
      const replies: ReadonlyArray<readonly [number, Reply]> = [
        [201, yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: "request-id-2" } })],
        [200, yield* send("GET", `/api/v1/users/${user.id}`, { bearer: apiKey })],
        [200, yield* send("GET", `/api/v1/users/${user.id}/connections`, { bearer: token })],
        [400, yield* send("POST", "/api/v1/users", { bearer: apiKey, json: {} })],
        [400, yield* send("GET", "/api/v1/users/not-a-uuid", { bearer: apiKey })],
        [401, yield* send("GET", `/api/v1/users/${user.id}`)],
        [403, yield* send("GET", `/api/v1/users/${unknownId()}/connections`, { bearer: token })],
        [404, yield* send("GET", `/api/v1/users/${unknownId()}`, { bearer: apiKey })],
        [404, yield* send("GET", "/api/v1/nothing-here")],
        [200, yield* send("GET", "/api/v1/scores/daily?from=2026-01-01&to=2026-01-07", { bearer: token })],
        [200, yield* send("GET", "/openapi.json")],
        [200, yield* send("GET", "/health")],
        [204, yield* send("DELETE", `/api/v1/users/${user.id}`, { bearer: apiKey })]
      ]
      const ids = new Set<string>()
      for (const [status, reply] of replies) {
        expect(reply.status, preview(reply)).toBe(status)
        const id = reply.headers["x-request-id"]
        expect(typeof id, `x-request-id of a ${status} reply`).toBe("string")
        expect(id).toMatch(/^[0-9a-f-]{36}$/)
        ids.add(id!)
      }
      expect(ids.size).toBe(replies.length)
    }))

  it.effect("responses to rejected bodies carry an x-request-id header too", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      const replies: ReadonlyArray<readonly [string, Reply]> = [
        ["malformed JSON", yield* send("POST", "/api/v1/users", { bearer: apiKey, body: "{nope" })],
        ["array body", yield* send("POST", "/api/v1/users", { bearer: apiKey, body: "[]" })],
        ["text/plain", yield* send("POST", "/api/v1/users", { bearer: apiKey, body: "{}", contentType: "text/plain" })],
        ["over 1 MiB", yield* send("POST", "/api/v1/users", { bearer: apiKey, body: createBodyOfSize("x", MiB + 1) })]
      ]
      for (const [label, reply] of replies) {
        expect(reply.status).toBeGreaterThanOrEqual(400)
        const id = reply.headers["x-request-id"]
        expect(typeof id, `x-request-id of the reply to a ${label} body`).toBe("string")
        expect(id).toMatch(/^[0-9a-f-]{36}$/)
      }
    }))

  it.effect("plain HTTP on the HTTPS port answers 400 with a JSON body saying HTTPS is required", () =>
    Effect.gen(function*() {
      const { port } = yield* TestServer
      const { apiKey } = yield* createApp()
      const reply = yield* Effect.promise(() =>
        new Promise<Reply>((resolve, reject) => {
          // agent: false so no keep-alive socket outlives the test.
          const req = http.request({
            host: "127.0.0.1",
            port,
            method: "GET",
            path: "/api/v1/users?external_user_id=x",
            agent: false,
            headers: { authorization: `Bearer ${apiKey}` }
          }, (response) => {
            const chunks: Array<Buffer> = []
            response.on("data", (chunk: Buffer) => chunks.push(chunk))
            response.on("error", reject)
            response.on("end", () =>
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers as Record<string, string>,
                text: Buffer.concat(chunks).toString("utf8")
              }))
          })
          req.on("error", reject)
          req.end()
        })
      )
      const body = expectError(reply, 400)
      expect(body.message).toContain("HTTPS is required")
      expect(reply.text).not.toContain("externalUserId")
      expect(json(reply)).toEqual({ _tag: body._tag, message: body.message })
    }))
})
