/**
 * Without an export, a log line is not copied onto the current span as an event: the request's span is then a
 * stand-in nobody reads, and Effect's logger that copies it would cost every line as much as the line itself.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { defaultServerConfig, ServerConfig } from "../../src/platform/ServerConfig.js"
import { TracingLive } from "../../src/platform/Tracing.js"

const loggers = FiberRef.get(FiberRef.currentLoggers)

describe("TracingLive without an export", () => {
  it.effect("keeps the log lines and drops their copy onto spans", () =>
    Effect.gen(function*() {
      // Effect's default: both.
      const before = yield* loggers
      expect(HashSet.has(before, Logger.tracerLogger)).toBe(true)

      const config = Layer.succeed(ServerConfig, { ...defaultServerConfig, otelEndpoint: Option.none() })
      const after = yield* loggers.pipe(Effect.provide(TracingLive), Effect.provide(config))
      expect(HashSet.has(after, Logger.tracerLogger)).toBe(false)
      // Every other logger stays.
      expect(HashSet.size(after)).toBe(HashSet.size(before) - 1)
      expect(HashSet.isSubset(after, before)).toBe(true)
    }))
})
