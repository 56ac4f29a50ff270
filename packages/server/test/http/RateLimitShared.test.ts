/**
 * Rate limits hold across processes: two API processes (`ROLE=api`) over one PostgreSQL, asked in
 * parallel with the same API key, together let through exactly one bucket's worth of requests, not
 * one per process. Needs a real PostgreSQL (`DATABASE_URL`): the embedded database belongs to one
 * process, so on PGlite this test is skipped.
 */
import { expect, it } from "@effect/vitest"
import { childServerClient, freePort, freshDatabase, startChildServer, tempDir } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import type { Reply } from "../fixtures/Http.js"
import { expectError, preview, send, unknownId } from "../fixtures/Http.js"

const databaseUrl = process.env["DATABASE_URL"]

/** The shared budget: a burst of 20, refilling one token per 100 s (none comes back during the test). */
const burst = 20
const addressBurst = 10

it.live.skipIf(databaseUrl === undefined || databaseUrl === "")(
  "two API processes over one PostgreSQL share one budget per API key",
  () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-ratelimit-")
      const env = {
        DATABASE_URL: yield* freshDatabase(databaseUrl!),
        SECRET_KEY: crypto.randomBytes(32).toString("base64url"),
        LOG_LEVEL: "Warn",
        ROLE: "api",
        RATE_LIMIT: "on",
        RATE_LIMIT_API_KEY: `0.01/${burst}`,
        RATE_LIMIT_ADDRESS: `0.01/${addressBurst}`
      }
      const first = yield* startChildServer({ dataDir, port: yield* freePort, env })
      const second = yield* startChildServer({ dataDir, port: yield* freePort, env })
      const apiKey = first.apiKey
      expect(apiKey, first.output()).toBeDefined()

      // Each process is asked for the whole budget and more, both at once.
      const ask = (port: number) =>
        Effect.forEach(
          Array.from({ length: burst + 5 }),
          () => send("GET", `/api/v1/users/${unknownId()}`, { bearer: apiKey! }),
          { concurrency: 5 }
        ).pipe(Effect.provide(childServerClient(dataDir, port)))
      const [fromFirst, fromSecond] = yield* Effect.all([ask(first.port), ask(second.port)], {
        concurrency: 2
      })

      const served = (replies: ReadonlyArray<Reply>) => replies.filter((reply) => reply.status !== 429)
      for (const reply of [...fromFirst, ...fromSecond]) {
        if (reply.status === 429) expectError(reply, 429, "TooManyRequests")
        else expectError(reply, 404, "NotFound")
        expect(reply.headers["ratelimit-limit"], preview(reply)).toBe(String(burst))
      }
      // One bucket, drawn from both sides at once, never overdrawn: per-process buckets would serve 40.
      expect(served(fromFirst).length + served(fromSecond).length).toBe(burst)

      // The per-address bucket too: requests without a credential sent to each process in turn.
      const replies: Array<Reply> = []
      for (let i = 0; i < 2 * addressBurst + 4; i++) {
        const port = i % 2 === 0 ? first.port : second.port
        replies.push(yield* send("GET", "/no-such-route").pipe(Effect.provide(childServerClient(dataDir, port))))
      }
      expect(replies.map((reply) => reply.status)).toEqual([
        ...Array.from({ length: addressBurst }, () => 404),
        ...Array.from({ length: addressBurst + 4 }, () => 429)
      ])
    }).pipe(Effect.scoped),
  { timeout: 300_000 }
)
