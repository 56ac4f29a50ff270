import { HttpClient, HttpClientRequest, HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { makeAppMiddleware } from "../../src/http/Middleware.js"

const app = HttpRouter.empty.pipe(
  HttpRouter.get("/boom", Effect.die(new Error("secret internal detail"))),
  HttpRouter.get("/ok", Effect.succeed(HttpServerResponse.unsafeJson({ ok: true }))),
  HttpRouter.post("/echo", Effect.succeed(HttpServerResponse.unsafeJson({ ok: true })))
)

const serverWith = (trustProxy: boolean) =>
  HttpServer.serve(app, makeAppMiddleware({ trustProxy })).pipe(
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provide(Logger.minimumLogLevel(LogLevel.None))
  )

describe("request middleware with TRUST_PROXY", () => {
  it.layer(serverWith(true))((it) => {
    it.effect("requests not forwarded as https are refused; https ones are served", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const plain = yield* client.get("/ok")
        expect(plain.status).toBe(400)
        expect(((yield* plain.json) as { message: string }).message).toContain("HTTPS is required")
        const forwarded = yield* client.execute(
          HttpClientRequest.get("/ok").pipe(HttpClientRequest.setHeader("x-forwarded-proto", "https"))
        )
        expect(forwarded.status).toBe(200)
      }))
  })
})
