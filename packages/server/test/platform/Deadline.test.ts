/**
 * The request deadline on the real application: a request whose handler outlasts `REQUEST_TIMEOUT_MS` (here a
 * sandbox provider route held by a `slow` fault) is answered 503 `ServiceUnavailable` with `Retry-After`.
 */
import { expect, layer } from "@effect/vitest"
import { makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { sim } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"

// The live clock: the deadline is measured by the server's own clock.
layer(makeTestServer({ sandbox: true, requestTimeoutMs: 500 }), { excludeTestServices: true })(
  "request deadline",
  (it) => {
    it.effect("a request over the deadline gets 503 ServiceUnavailable with Retry-After", () =>
      Effect.gen(function*() {
        yield* sim("Dexcom", "POST", "faults", { path: "/v3/users/self/egvs", kind: "slow", delayMs: 3000, count: 1 })
        const reply = yield* send("GET", "/sandbox/dexcom/v3/users/self/egvs")
        expect(reply.status, preview(reply)).toBe(503)
        expect(reply.headers["retry-after"]).toBe("1")
        expect(json(reply)).toMatchObject({ _tag: "ServiceUnavailable" })
      }))

    it.effect("a request within the deadline is answered as usual", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/health/live")
        expect(reply.status, preview(reply)).toBe(200)
      }))
  }
)
