/**
 * A client that goes away before its answer is written: the answer's write still ends (`SettledResponse`), and the
 * request is logged and counted once, as 499, with no error: the server did nothing wrong.
 */
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as http from "node:http"
import * as net from "node:net"
import { makeAppMiddleware } from "../../src/http/Middleware.js"
import { SettledResponse } from "../../src/platform/SettledResponse.js"

/** Sends `head` (and `body`) on a new connection and closes it as soon as `leave` resolves. */
const leaveEarly = (port: number, head: string, leave: Promise<unknown>) =>
  Effect.async<void>((resume) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(head))
    socket.on("error", () => {})
    void leave.then(() => socket.destroy())
    socket.on("close", () => resume(Effect.void))
  })

const listening = (server: http.Server) =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as net.AddressInfo).port)))
    }),
    () =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/** A promise and what resolves it. */
const signal = () => {
  let resolve = () => {}
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

describe("SettledResponse", () => {
  it.scopedLive("calls back an answer written after its client left, which Node's response never does", () =>
    Effect.gen(function*() {
      const settled = yield* Deferred.make<string>()
      const received = signal()
      const server = http.createServer({ ServerResponse: SettledResponse }, (_request, response) => {
        received.resolve()
        response.once("close", () => {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(Buffer.from("{\"late\":true}"), () => Deferred.unsafeDone(settled, Effect.succeed("called")))
        })
      })
      const port = yield* listening(server)
      yield* leaveEarly(port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n", received.promise)
      expect(yield* Deferred.await(settled).pipe(Effect.timeout("5 seconds"))).toBe("called")
    }))

  it.scopedLive("calls back a written answer once", () =>
    Effect.gen(function*() {
      let calls = 0
      const finished = yield* Deferred.make<void>()
      const server = http.createServer({ ServerResponse: SettledResponse }, (_request, response) => {
        response.once("close", () => setTimeout(() => Deferred.unsafeDone(finished, Effect.void), 100))
        response.end("ok", () => calls++)
      })
      const port = yield* listening(server)
      const body = yield* Effect.promise(() =>
        new Promise<string>((resolve, reject) => {
          http.get({ host: "127.0.0.1", port, agent: false }, (response) => {
            let text = ""
            response.on("data", (chunk: Buffer) => (text += chunk.toString()))
            response.on("end", () => resolve(text))
          }).on("error", reject)
        })
      )
      expect(body).toBe("ok")
      yield* Deferred.await(finished)
      expect(calls).toBe(1)
    }))
})

const lines: Array<{ readonly level: string; readonly message: unknown; readonly status: unknown }> = []
const capture = Logger.make(({ annotations, logLevel, message }) => {
  const status = [...annotations].find(([key]) => key === "http.status")?.[1]
  lines.push({ level: logLevel.label, message: Array.isArray(message) ? message[0] : message, status })
})
// Resolved once a request reached the server, and once the slow route runs, so that the client leaves after that.
let received = signal()
let started = signal()
const slow = Effect.zipRight(
  Effect.sync(() => started.resolve()),
  Effect.as(Effect.sleep("2 seconds"), HttpServerResponse.unsafeJson({ ok: true }))
)
const app = HttpRouter.empty.pipe(
  HttpRouter.get("/slow", slow),
  HttpRouter.post("/api/echo", Effect.succeed(HttpServerResponse.unsafeJson({ ok: true })))
)
const ServerLive = HttpServer.serve(app, makeAppMiddleware({ trustProxy: false })).pipe(
  Layer.provideMerge(
    NodeHttpServer.layer(() => {
      const server = http.createServer({ ServerResponse: SettledResponse })
      server.prependListener("request", () => received.resolve())
      return server
    }, { port: 0, host: "127.0.0.1" })
  ),
  Layer.provide(Logger.replace(Logger.defaultLogger, capture))
)
const port = Effect.map(
  HttpServer.HttpServer,
  (server) => server.address._tag === "TcpAddress" ? server.address.port : 0
)
/** The log line of the next request, once it has one. */
const nextLine = (before: number) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < 100 && lines.length === before; waited++) yield* Effect.sleep("50 millis")
    return lines.slice(before)
  })

layer(ServerLive, { excludeTestServices: true })("a request whose client leaves", (it) => {
  it.effect("before its answer is logged as 499 without an error, as soon as it leaves", () =>
    Effect.gen(function*() {
      started = signal()
      const before = lines.length
      yield* leaveEarly(yield* port, "GET /slow HTTP/1.1\r\nhost: x\r\n\r\n", started.promise)
      const logged = yield* nextLine(before)
      expect(logged).toEqual([{ level: "INFO", message: "Client closed the request", status: 499 }])
    }))

  it.effect("in the middle of its body is logged as 499", () =>
    Effect.gen(function*() {
      received = signal()
      const before = lines.length
      const head = "POST /api/echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n" +
        "content-length: 100\r\n\r\n{\"externalUs"
      yield* leaveEarly(yield* port, head, received.promise)
      const logged = yield* nextLine(before)
      expect(logged).toEqual([{ level: "INFO", message: "Client closed the request", status: 499 }])
    }))
})
