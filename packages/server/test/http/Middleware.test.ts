import { HttpClient, HttpClientRequest, HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Stream from "effect/Stream"
import { makeAppMiddleware } from "../../src/http/Middleware.js"

const app = HttpRouter.empty.pipe(
  HttpRouter.get("/boom", Effect.die(new Error("secret internal detail"))),
  HttpRouter.get("/ok", Effect.succeed(HttpServerResponse.unsafeJson({ ok: true }))),
  HttpRouter.post("/api/echo", Effect.succeed(HttpServerResponse.unsafeJson({ ok: true })))
)

const serverWith = (trustProxy: boolean) =>
  HttpServer.serve(app, makeAppMiddleware({ trustProxy })).pipe(
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provide(Logger.minimumLogLevel(LogLevel.None))
  )

describe("request middleware", () => {
  it.layer(serverWith(false))((it) => {
    it.effect("a defect answers 500 with a request id and no internal detail", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const response = yield* client.get("/boom")
        expect(response.status).toBe(500)
        const text = yield* response.text
        const body = JSON.parse(text)
        expect(body._tag).toBe("InternalServerError")
        expect(body.requestId).toBe(response.headers["x-request-id"])
        expect(text).not.toContain("secret internal detail")
        expect(text).not.toContain("at ")
      }))

    it.effect("an unknown route answers 404 JSON", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const response = yield* client.get("/nowhere")
        expect(response.status).toBe(404)
        expect(yield* response.json).toEqual({ _tag: "NotFound", message: "No such route" })
      }))

    it.effect("every request gets a distinct request id", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const a = yield* client.get("/ok")
        const b = yield* client.get("/ok")
        expect(a.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
        expect(a.headers["x-request-id"]).not.toBe(b.headers["x-request-id"])
      }))

    it.effect("a body that is not a JSON object, or not JSON, is refused before routing", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const send = (body: string, contentType = "application/json") =>
          client.execute(HttpClientRequest.post("/api/echo").pipe(HttpClientRequest.bodyText(body, contentType)))
        for (const body of ["[1,2]", "\"text\"", "null", "42", "{bad json"]) {
          const response = yield* send(body)
          expect(response.status).toBe(400)
          expect((yield* response.json) as { _tag: string }).toMatchObject({ _tag: "BadRequest" })
        }
        const wrongType = yield* send("{}", "text/plain")
        expect(wrongType.status).toBe(400)
        const ok = yield* send("{\"a\":1}", "application/json; charset=utf-8")
        expect(ok.status).toBe(200)
      }))

    it.effect("a body over 1 MiB answers 413", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const big = JSON.stringify({ pad: "x".repeat(1024 * 1024) })
        const sized = yield* client.execute(
          HttpClientRequest.post("/api/echo").pipe(HttpClientRequest.bodyText(big, "application/json"))
        )
        expect(sized.status).toBe(413)
      }))

    it.effect("a streamed body over 1 MiB answers 413", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const big = JSON.stringify({ pad: "x".repeat(1024 * 1024) })
        const streamed = yield* client.execute(
          HttpClientRequest.post("/api/echo").pipe(
            HttpClientRequest.bodyStream(Stream.make(new TextEncoder().encode(big)), {
              contentType: "application/json"
            })
          )
        )
        expect(streamed.status).toBe(413)
      }))
  })
})
