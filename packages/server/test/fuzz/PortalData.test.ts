/**
 * Fuzz of the admin portal's users, webhook endpoints and sandbox routes (from a document of their own,
 * as the published one leaves the portal out), sent with a logged-in session and its CSRF token. The
 * checks are the operations' (see `Operations.test.ts`).
 */
import { expect, layer } from "@effect/vitest"
import { SandboxGroup, UsersGroup, WebhooksGroup } from "@pulsebridge/portal/api"
import { makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { Recorder } from "../fixtures/Fuzz.js"
import { sendWire } from "../fixtures/Wire.js"
import { portalDataDocument, portalOperationsOf } from "./fixtures/Documents.js"
import { requestOf, validBodies } from "./fixtures/Requests.js"
import { erasuresFinished, finish, fuzzOperations, setUp } from "./fixtures/Run.js"

/** Generous: the time a run takes grows with `FUZZ_RUNS`. */
const fuzzTimeout = 600_000

// Without the test services: the server runs on the real clock.
layer(makeTestServer({ sandbox: true }), { timeout: "600 seconds", excludeTestServices: true })(
  "fuzz: the portal's users, webhook endpoints and sandbox routes",
  (it) => {
    it.effect(
      "generated bad requests to the portal's users, webhook endpoints and sandbox routes",
      () =>
        Effect.gen(function*() {
          const { world } = yield* setUp
          const document = portalDataDocument()
          const operations = portalOperationsOf(document)
          const paths = new Set(operations.map((operation) => operation.path))
          for (const group of [UsersGroup, WebhooksGroup, SandboxGroup]) {
            for (const endpoint of Object.values(group.endpoints) as Array<{ readonly path: string }>) {
              expect(paths, `the portal document lists ${endpoint.path}`).toContain(
                endpoint.path.replace(/:(\w+)/g, "{$1}")
              )
            }
          }
          // The requests the cases change in one place are themselves accepted.
          for (const operation of operations.filter((o) => o.body?.contentType === "application/json")) {
            expect(validBodies[operation.label], `a valid body for ${operation.label}`).toBeDefined()
            const reply = yield* sendWire(requestOf(world, operation, { mutation: "none", certain: false }, []))
            expect(reply.status, `${operation.label}: ${reply.text.slice(0, 300)}`).toBeLessThan(300)
          }
          yield* erasuresFinished
          const recorder = new Recorder("portal operations")
          yield* fuzzOperations(recorder, document, world, operations)
          yield* finish(recorder)
        }),
      fuzzTimeout
    )
  }
)
