/**
 * Fuzz of the published operations: bad requests generated with fast-check for every operation of the
 * OpenAPI document the server publishes (the 24 endpoints of the contract, the journal image, re-sync,
 * and a user's erasure and export), and the user's own id in any case. Each request gets an answer, no
 * 5xx, the JSON error body `{_tag, message}` on every 4xx/5xx, a refusal where the contract certainly
 * refuses, and no change in the data tables unless it succeeded. Seeded (`FUZZ_SEED`) and bounded
 * (`FUZZ_RUNS` cases per operation); the figures are printed and appended to `FUZZ_REPORT` when set.
 * The other targets have files of their own beside this one.
 *
 * The server runs without rate limits in the test harness; a deployment's limits are not part of
 * what is fuzzed here.
 */
import { expect, layer } from "@effect/vitest"
import { makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { specEndpoints } from "../fixtures/Endpoints.js"
import { Recorder } from "../fixtures/Fuzz.js"
import { sendWire } from "../fixtures/Wire.js"
import { operationsOf } from "./fixtures/Documents.js"
import { requestOf, validBodies } from "./fixtures/Requests.js"
import { finish, fuzzOperations, setUp } from "./fixtures/Run.js"

/** Generous: the time a run takes grows with `FUZZ_RUNS`. */
const fuzzTimeout = 600_000

// Without the test services: the server runs on the real clock.
layer(makeTestServer({ sandbox: true }), { timeout: "600 seconds", excludeTestServices: true })(
  "fuzz: operations",
  (it) => {
    it.effect(
      "the OpenAPI document lists every endpoint of the contract, and each has a generator",
      () =>
        Effect.gen(function*() {
          const { document, world } = yield* setUp
          const operations = operationsOf(document)
          for (const endpoint of specEndpoints) {
            expect(operations.map((operation) => operation.label)).toContain(`${endpoint.method} ${endpoint.path}`)
          }
          for (const operation of operations) {
            if (operation.body?.contentType === "application/json") {
              expect(validBodies[operation.label], `a valid body for ${operation.label}`).toBeDefined()
              // the app's sign-in assertion needs a request PulseBridge signed for an authorization in progress
              if (operation.path === "/api/v1/mcp/sign-in-assertions") continue
              // the requests the cases change in one place are themselves accepted
              const reply = yield* sendWire(requestOf(world, operation, { mutation: "none", certain: false }, []))
              expect(reply.status, `${operation.label}: ${reply.text.slice(0, 300)}`).toBeLessThan(300)
            }
          }
        }),
      fuzzTimeout
    )

    it.effect("generated bad requests to every operation", () =>
      Effect.gen(function*() {
        const { document, world } = yield* setUp
        const recorder = new Recorder("operations")
        const operations = operationsOf(document).filter((operation) =>
          operation.body?.contentType !== "multipart/form-data"
        )
        yield* fuzzOperations(recorder, document, world, operations)
        yield* finish(recorder)
      }), fuzzTimeout)

    it.effect("the user's own id in any case answers as in lower case", () =>
      Effect.gen(function*() {
        const { document, world } = yield* setUp
        const recorder = new Recorder("id case")
        const operations = operationsOf(document).filter((operation) =>
          operation.method === "GET" && operation.path.includes("{userId}")
        )
        for (const operation of operations) {
          const lower = requestOf(world, operation, { mutation: "none", certain: false }, [])
          const upper = requestOf(world, operation, {
            mutation: "userId in upper case",
            certain: false,
            pathValues: { userId: world.userT.id.toUpperCase() }
          }, [])
          const expected = yield* sendWire(lower)
          const reply = yield* sendWire(upper)
          recorder.check(
            { operation: operation.label, mutation: "userId in upper case", mustReject: false, request: upper },
            reply,
            []
          )
          if (reply.status !== expected.status) {
            recorder.fail(`upper-case own id answers ${reply.status}, lower case ${expected.status}`, {
              operation: operation.label,
              mutation: "userId in upper case",
              mustReject: false,
              request: upper
            }, reply)
          }
        }
        yield* finish(recorder)
      }), fuzzTimeout)
  }
)
