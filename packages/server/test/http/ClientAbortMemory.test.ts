/**
 * Clients that leave before their answers cost the server nothing once those requests are over: the real server
 * (`pulsebridge serve --sandbox` in a child process), a thousand requests each closed by its client while the server
 * waits for its body, and the server's heap after a full collection before and after them. Each request is sent with
 * `Expect: 100-continue` and closed once the server's `100 Continue` says it is being handled, so every one of them
 * reaches the application. Before `SettledResponse`, each such request kept its fiber and request for good (about
 * 30 KB each).
 */
import { expect, it } from "@effect/vitest"
import { freePort, heapAfterGc, startChildServer, stopChild, tempDir } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as tls from "node:tls"

const mib = (bytes: number) => Math.round(bytes / 1024 / 1024 * 10) / 10

/** A `POST /api/v1/users` whose client closes its connection as soon as the server asks for the body. */
const leaveWhenAsked = (port: number, apiKey: string) =>
  Effect.async<boolean>((resume) => {
    let asked = false
    const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      socket.write(
        "POST /api/v1/users HTTP/1.1\r\nhost: localhost\r\n" +
          `authorization: Bearer ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: 200\r\n` +
          "expect: 100-continue\r\n\r\n"
      )
    })
    socket.on("data", (chunk: Buffer) => {
      if (!asked && chunk.toString("latin1").startsWith("HTTP/1.1 100")) {
        asked = true
        socket.write("{\"externalUserId\":")
        socket.destroy()
      }
    })
    socket.on("error", () => {})
    socket.on("close", () => resume(Effect.succeed(asked)))
    return Effect.sync(() => socket.destroy())
  })

const leaveMany = (port: number, apiKey: string, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => leaveWhenAsked(port, apiKey), { concurrency: 10 })

it.live(
  "requests whose clients leave before their answers are each logged as 499 and leave nothing held",
  () =>
    Effect.scoped(Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-abort-")
      const port = yield* freePort
      const server = yield* startChildServer({ dataDir, port, args: ["--sandbox"], heapProbe: true })
      const apiKey = server.apiKey!
      const logged = () => server.output().split("\n").filter((line) => line.includes("http.status=499")).length

      const warmUp = yield* leaveMany(port, apiKey, 100)
      expect(warmUp.every((asked) => asked)).toBe(true)
      const heapBefore = yield* heapAfterGc(server)
      const measured = yield* leaveMany(port, apiKey, 1000)
      expect(measured.every((asked) => asked)).toBe(true)

      // Every one of them is over: logged once, as the client's doing, not the server's.
      for (let waited = 0; waited < 200 && logged() < 1100; waited++) yield* Effect.sleep("50 millis")
      expect(logged()).toBe(1100)
      expect(server.output()).not.toContain("Request failed")

      const heapAfter = yield* heapAfterGc(server)
      const grown = { before: mib(heapBefore.heapUsed), after: mib(heapAfter.heapUsed) }
      // Held for good, they took about 30 MiB; what a thousand finished requests leave (compiled code, the
      // metrics' series) is a few.
      expect(heapAfter.heapUsed - heapBefore.heapUsed, JSON.stringify(grown)).toBeLessThan(10 * 1024 * 1024)

      const stopped = yield* stopChild(server)
      expect(stopped.code, server.output()).toBe(0)
    })),
  180_000
)
