/**
 * Fuzz below the routes: requests malformed at the HTTP level (request line, headers, framing, bytes
 * that are no HTTP), and the Prometheus scrape (`/metrics`) with good, bad and odd credentials. The
 * checks are the operations' (see `Operations.test.ts`).
 */
import { layer } from "@effect/vitest"
import { makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { changedTables, digest, fuzzRuns, Recorder, samples } from "../fixtures/Fuzz.js"
import { sendBytes, sendWire } from "../fixtures/Wire.js"
import { wireCases } from "./fixtures/HttpLevel.js"
import { metricsCases, metricsToken } from "./fixtures/Metrics.js"
import { finish, runCases, setUp } from "./fixtures/Run.js"

/** Generous: the time a run takes grows with `FUZZ_RUNS`. */
const fuzzTimeout = 600_000

// Without the test services: the server runs on the real clock.
layer(makeTestServer({ sandbox: true, metricsToken: Option.some(Redacted.make(metricsToken)) }), {
  timeout: "600 seconds",
  excludeTestServices: true
})("fuzz: the HTTP level and the Prometheus scrape", (it) => {
  it.effect("requests malformed at the HTTP level", () =>
    Effect.gen(function*() {
      const { world } = yield* setUp
      const recorder = new Recorder("HTTP")
      let before = yield* digest
      for (const fuzzCase of wireCases(world)) {
        const reply = "bytes" in fuzzCase && fuzzCase.bytes !== undefined
          ? yield* sendBytes(fuzzCase.bytes)
          : yield* sendWire(fuzzCase.request)
        const after = yield* digest
        recorder.check(fuzzCase, reply, changedTables(before, after))
        before = after
      }
      yield* finish(recorder)
    }), fuzzTimeout)

  it.effect("generated requests to the Prometheus scrape", () =>
    Effect.gen(function*() {
      yield* setUp
      const recorder = new Recorder("metrics")
      yield* runCases(recorder, samples("metrics", metricsCases, fuzzRuns * 2))
      yield* finish(recorder)
    }), fuzzTimeout)
})
