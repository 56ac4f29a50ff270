/**
 * Fuzz of the routes providers and their users reach: the provider webhook routes and the sandbox
 * consent pages. The checks are the operations' (see `Operations.test.ts`).
 */
import { layer } from "@effect/vitest"
import { makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { fuzzRuns, Recorder, samples } from "../fixtures/Fuzz.js"
import { consentCases, webhookCases } from "./fixtures/ProviderRoutes.js"
import { finish, runCases, setUp } from "./fixtures/Run.js"

/** Generous: the time a run takes grows with `FUZZ_RUNS`. */
const fuzzTimeout = 600_000

// Without the test services: the server runs on the real clock.
layer(makeTestServer({ sandbox: true }), { timeout: "600 seconds", excludeTestServices: true })(
  "fuzz: provider webhooks and consent pages",
  (it) => {
    it.effect(
      "generated requests to the provider webhook routes and the sandbox consent pages",
      () =>
        Effect.gen(function*() {
          const { world } = yield* setUp
          const recorder = new Recorder("webhooks and consent pages")
          yield* runCases(recorder, samples("webhooks", webhookCases(world), fuzzRuns * 4))
          yield* runCases(recorder, samples("consent", consentCases, fuzzRuns * 2))
          yield* finish(recorder)
        }),
      fuzzTimeout
    )
  }
)
