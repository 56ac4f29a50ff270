/**
 * Fuzz of the admin portal's session, operators and apps routes (from a document of their own), sent
 * with a logged-in session and its CSRF token; the session outlives every case. The checks are the
 * operations' (see `Operations.test.ts`).
 */
import { expect, layer } from "@effect/vitest"
import { makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { Recorder } from "../fixtures/Fuzz.js"
import { sendWire } from "../fixtures/Wire.js"
import { portalDocument, portalOperationsOf } from "./fixtures/Documents.js"
import { requestOf, validBodies } from "./fixtures/Requests.js"
import { finish, fuzzOperations, setUp } from "./fixtures/Run.js"

/** Generous: the time a run takes grows with `FUZZ_RUNS`. */
const fuzzTimeout = 600_000

// Without the test services: the server runs on the real clock.
layer(makeTestServer({ sandbox: true }), { timeout: "600 seconds", excludeTestServices: true })(
  "fuzz: the portal's JSON API",
  (it) => {
    it.effect(
      "generated bad requests to every operation of the portal's JSON API, with a logged-in session",
      () =>
        Effect.gen(function*() {
          const { world } = yield* setUp
          const document = portalDocument()
          const operations = portalOperationsOf(document)
          expect(operations.map((operation) => operation.label).sort()).toEqual([
            "GET /portal/api/apps",
            "GET /portal/api/apps/{appId}",
            "GET /portal/api/apps/{appId}/assistant-sign-in",
            "GET /portal/api/apps/{appId}/keys",
            "GET /portal/api/apps/{appId}/providers",
            "GET /portal/api/audit",
            "GET /portal/api/audit/export",
            "GET /portal/api/operators",
            "GET /portal/api/session",
            "GET /portal/api/session/current",
            "GET /portal/api/settings",
            "PATCH /portal/api/apps/{appId}",
            "POST /portal/api/apps",
            "POST /portal/api/apps/{appId}/keys",
            "POST /portal/api/apps/{appId}/keys/{keyId}/revoke",
            "POST /portal/api/login",
            "POST /portal/api/login/second-factor",
            "POST /portal/api/logout",
            "POST /portal/api/operators",
            "POST /portal/api/operators/{operatorId}/disable",
            "POST /portal/api/operators/{operatorId}/enable",
            "POST /portal/api/operators/{operatorId}/reset-password",
            "POST /portal/api/operators/{operatorId}/reset-second-factor",
            "POST /portal/api/setup",
            "PUT /portal/api/apps/{appId}/assistant-sign-in",
            "PUT /portal/api/apps/{appId}/providers/{provider}",
            "PUT /portal/api/operators/{operatorId}/role",
            "PUT /portal/api/settings"
          ])
          // the requests the cases change in one place are themselves accepted (the setup's token and the second
          // step's challenge are never valid)
          for (const operation of operations) {
            if (
              operation.body?.contentType !== "application/json" || operation.path.endsWith("/setup") ||
              operation.path.endsWith("/second-factor")
            ) continue
            expect(validBodies[operation.label], `a valid body for ${operation.label}`).toBeDefined()
            const reply = yield* sendWire(requestOf(world, operation, { mutation: "none", certain: false }, []))
            expect(reply.status, `${operation.label}: ${reply.text.slice(0, 300)}`).toBeLessThan(300)
          }
          const recorder = new Recorder("portal")
          yield* fuzzOperations(recorder, document, world, operations)
          // the session outlived every case: none of them logged it out
          const session = yield* sendWire(requestOf(world, operations.find((o) => o.path === "/portal/api/session")!, {
            mutation: "none",
            certain: false
          }, []))
          expect(session.status).toBe(200)
          yield* finish(recorder)
        }),
      fuzzTimeout
    )
  }
)
