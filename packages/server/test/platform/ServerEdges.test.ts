/**
 * What reaches the server below or beside the API, through the real listener: the HTTP parser's own errors and
 * an unmet `Expect` answered with the JSON error body (raw TLS sockets, since no client sends such requests),
 * the health probes, and the per-request deadline.
 */
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as http from "node:http"
import * as tls from "node:tls"
import { makeAppMiddleware } from "../../src/http/Middleware.js"
import { json, preview, send } from "../fixtures/Http.js"

interface RawReply {
  readonly status: number
  readonly headers: string
  readonly body: string
}

/** Writes `bytes` on a TLS connection and reads everything until the server closes it. */
const rawTls = (bytes: string) =>
  Effect.flatMap(TestServer, ({ ca, port }) =>
    Effect.async<RawReply, Error>((resume) => {
      const socket = tls.connect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => socket.write(bytes))
      const chunks: Array<Buffer> = []
      socket.on("data", (chunk: Buffer) => chunks.push(chunk))
      socket.on("error", (error) => resume(Effect.fail(error)))
      socket.on("close", () => {
        const text = Buffer.concat(chunks).toString()
        const [head = "", body = ""] = text.split("\r\n\r\n", 2)
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)
        resume(Effect.succeed({ status, headers: head.toLowerCase(), body }))
      })
      socket.setTimeout(10_000, () => socket.destroy(new Error("no answer")))
    }))

const expectJsonError = (reply: RawReply, status: number, tag: string) => {
  expect(reply.status, `${reply.headers}\n\n${reply.body}`).toBe(status)
  expect(reply.headers).toContain("content-type: application/json")
  const body = JSON.parse(reply.body) as { _tag: string; message: string }
  expect(body._tag).toBe(tag)
  expect(body.message.length).toBeGreaterThan(0)
}

describe("below and beside the API", () => {
  it.layer(makeTestServer())((it) => {
    it.effect("an unknown method gets 400 with the JSON error body", () =>
      Effect.gen(function*() {
        const reply = yield* rawTls("FOO /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        expectJsonError(reply, 400, "BadRequest")
      }))

    it.effect("an Expect header other than 100-continue gets 417 with the JSON error body", () =>
      Effect.gen(function*() {
        const reply = yield* rawTls("GET /health HTTP/1.1\r\nHost: localhost\r\nExpect: bogus\r\n\r\n")
        expectJsonError(reply, 417, "ExpectationFailed")
      }))

    it.effect("headers over 16 KiB get 431 with the JSON error body", () =>
      Effect.gen(function*() {
        const reply = yield* rawTls(
          `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`
        )
        expectJsonError(reply, 431, "RequestHeaderFieldsTooLarge")
      }))

    it.effect("an HTTP/1.1 request without Host gets 400 with the JSON error body", () =>
      Effect.gen(function*() {
        const reply = yield* rawTls("GET /api/v1/users HTTP/1.1\r\nConnection: close\r\n\r\n")
        expectJsonError(reply, 400, "BadRequest")
      }))

    it.effect("CONNECT gets 405 with the JSON error body instead of a dropped connection", () =>
      Effect.gen(function*() {
        const reply = yield* rawTls("CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n")
        expectJsonError(reply, 405, "MethodNotAllowed")
      }))

    it.effect("a malformed request line gets 400 with the JSON error body", () =>
      Effect.gen(function*() {
        const reply = yield* rawTls("GET /health HTTP/9\r\n\r\n")
        expectJsonError(reply, 400, "BadRequest")
      }))

    it.effect("a malformed header gets 400 with the JSON error body", () =>
      Effect.gen(function*() {
        const reply = yield* rawTls("GET /health HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n")
        expectJsonError(reply, 400, "BadRequest")
      }))

    it.effect("a well-formed request on the same listener is still answered", () =>
      Effect.gen(function*() {
        const reply = yield* rawTls("GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        expect(reply.status).toBe(200)
        expect(JSON.parse(reply.body)).toEqual({ status: "ok" })
      }))

    it.effect("/health/live answers 200 without a credential", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/health/live")
        expect(reply.status, preview(reply)).toBe(200)
        expect(json(reply)).toEqual({ status: "ok" })
      }))

    it.effect("/health/ready checks the database, the migrations and the cluster", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/health/ready")
        expect(reply.status, preview(reply)).toBe(200)
        expect(json(reply)).toEqual({
          status: "ok",
          checks: { database: { ok: true }, migrations: { ok: true }, cluster: { ok: true } }
        })
      }))

    it.effect("/health is the same readiness probe", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/health")
        expect(reply.status, preview(reply)).toBe(200)
        expect((json(reply) as { checks: unknown }).checks).toBeDefined()
      }))
  })
})

const slowApp = HttpRouter.empty.pipe(
  HttpRouter.get("/slow", Effect.as(Effect.sleep("5 seconds"), HttpServerResponse.text("late"))),
  HttpRouter.get("/fast", Effect.succeed(HttpServerResponse.text("on time"))),
  HttpRouter.post("/upload", Effect.as(Effect.sleep("300 millis"), HttpServerResponse.text("stored"))),
  // Answered at once; its body takes longer than the deadline to stream.
  HttpRouter.get(
    "/stream",
    Effect.succeed(HttpServerResponse.stream(
      Stream.fromIterable(["a", "b", "c", "d"]).pipe(
        Stream.tap(() => Effect.sleep("100 millis")),
        Stream.encodeText
      ),
      { contentType: "text/plain" }
    ))
  )
)

const DeadlineServer = HttpServer.serve(
  makeAppMiddleware({ trustProxy: false, tracing: false, deadline: { requestMs: 200, uploadMs: 2_000 } })(slowApp)
).pipe(
  Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port: 0, host: "127.0.0.1" }))
)

const plainRequest = (port: number, method: string, path: string, contentType?: string) =>
  Effect.async<{ status: number; headers: http.IncomingHttpHeaders; body: string }, Error>((resume) => {
    const request = http.request({
      host: "127.0.0.1",
      port,
      method,
      path,
      agent: false,
      headers: contentType === undefined ? {} : { "content-type": contentType }
    }, (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on(
        "end",
        () => resume(Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, body }))
      )
    })
    request.on("error", (error) => resume(Effect.fail(error)))
    request.end()
  })

describe("request deadline", () => {
  const onDeadlineServer = <A, E>(f: (port: number) => Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      return yield* f((server.address as { port: number }).port)
    }).pipe(Effect.provide(DeadlineServer), Effect.scoped)

  it.live("a request over its deadline gets 503 ServiceUnavailable with Retry-After", () =>
    onDeadlineServer((port) =>
      Effect.gen(function*() {
        const reply = yield* plainRequest(port, "GET", "/slow")
        expect(reply.status).toBe(503)
        expect(reply.headers["retry-after"], JSON.stringify(reply)).toBe("1")
        expect(JSON.parse(reply.body)).toMatchObject({ _tag: "ServiceUnavailable" })
      })
    ))

  it.live("a request within its deadline is answered, and an upload gets the longer deadline", () =>
    onDeadlineServer((port) =>
      Effect.gen(function*() {
        const fast = yield* plainRequest(port, "GET", "/fast")
        expect(fast.status).toBe(200)
        expect(fast.body).toBe("on time")
        const upload = yield* plainRequest(port, "POST", "/upload", "multipart/form-data; boundary=x")
        expect(upload.status).toBe(200)
        expect(upload.body).toBe("stored")
      })
    ))

  it.live("the deadline ends with the answer: a body streamed for longer is not cut", () =>
    onDeadlineServer((port) =>
      Effect.gen(function*() {
        const streamed = yield* plainRequest(port, "GET", "/stream")
        expect(streamed.status).toBe(200)
        expect(streamed.body).toBe("abcd")
      })
    ))
})
