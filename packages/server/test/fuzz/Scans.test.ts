/**
 * Fuzz of the journal's scan upload: multipart bodies broken in every part, wrong credentials and
 * content types, and one upload over 10 MiB. The checks are the operations' (see `Operations.test.ts`).
 */
import { layer } from "@effect/vitest"
import { makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import type { FuzzCase } from "../fixtures/Fuzz.js"
import { fuzzRuns, oddHeaders, Recorder, samples } from "../fixtures/Fuzz.js"
import { type Header, MiB } from "./fixtures/Documents.js"
import { finish, runCases, setUp } from "./fixtures/Run.js"
import { boundary, imagePart, multipart, png, type ScanDraft, scanDrafts, validFields } from "./fixtures/Scans.js"

/** Generous: the time a run takes grows with `FUZZ_RUNS`. */
const fuzzTimeout = 600_000

// Without the test services: the server runs on the real clock.
layer(makeTestServer({ sandbox: true }), { timeout: "600 seconds", excludeTestServices: true })(
  "fuzz: scan uploads",
  (it) => {
    it.effect("generated bad scan uploads", () =>
      Effect.gen(function*() {
        const { world } = yield* setUp
        const recorder = new Recorder("scans")
        const operation = "POST /api/v1/users/{userId}/journal-entries/scans"
        const target = `/api/v1/users/${world.userT.id}/journal-entries/scans`
        const drafts = samples(operation, fc.tuple(scanDrafts(world), oddHeaders), Math.max(20, fuzzRuns * 3))
        const toCase = (draft: ScanDraft, extra: ReadonlyArray<Header>): FuzzCase => {
          const contentType = draft.contentType === undefined
            ? `multipart/form-data; boundary=${boundary}`
            : draft.contentType
          return {
            operation,
            mutation: draft.mutation,
            mustReject: draft.certain,
            request: {
              method: "POST",
              target,
              headers: [
                ...(draft.credential ?? [["Authorization", `Bearer ${world.userT.token}`] as const]),
                ...(contentType === null ? [] : [["Content-Type", contentType] as const]),
                ...extra
              ],
              body: draft.body
            }
          }
        }
        yield* runCases(recorder, drafts.map(([draft, extra]) => toCase(draft, extra)))
        // once: an upload over 10 MiB
        const big = multipart([imagePart(new Uint8Array(Buffer.concat([png, Buffer.alloc(10 * MiB)]))), ...validFields])
        yield* runCases(recorder, [toCase({ mutation: "an upload over 10 MiB", certain: true, body: big }, [])])
        yield* finish(recorder)
      }), fuzzTimeout)
  }
)
