/**
 * The metrics and telemetry settings as read from the environment: defaults, and refusals of a
 * short `METRICS_TOKEN`, a port out of range and a collector address that is not an HTTP URL.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { serverConfig } from "../../src/platform/ServerConfig.js"

const read = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(serverConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("metrics and telemetry settings", () => {
  it.effect("defaults: no token, no listener, no export", () =>
    Effect.gen(function*() {
      const config = yield* read({})
      expect(config._tag).toBe("Right")
      if (config._tag !== "Right") return
      expect(config.right.metricsToken).toStrictEqual(Option.none())
      expect(config.right.metricsPort).toStrictEqual(Option.none())
      expect(config.right.metricsHost).toBe("127.0.0.1")
      expect(config.right.otelEndpoint).toStrictEqual(Option.none())
      expect(config.right.otelServiceName).toBe("pulsebridge")
      expect(config.right.otelMetricExportIntervalMs).toBe(60_000)
    }))

  it.effect("values as set", () =>
    Effect.gen(function*() {
      const config = yield* read({
        METRICS_TOKEN: "0123456789abcdef0123",
        METRICS_PORT: "9464",
        METRICS_HOST: "0.0.0.0",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_SERVICE_NAME: "pulsebridge-api",
        OTEL_METRIC_EXPORT_INTERVAL: "15000"
      })
      expect(config._tag).toBe("Right")
      if (config._tag !== "Right") return
      expect(Option.map(config.right.metricsToken, Redacted.value)).toStrictEqual(Option.some("0123456789abcdef0123"))
      expect(config.right.metricsPort).toStrictEqual(Option.some(9464))
      expect(config.right.metricsHost).toBe("0.0.0.0")
      expect(config.right.otelEndpoint).toStrictEqual(Option.some("http://collector:4318"))
      expect(config.right.otelServiceName).toBe("pulsebridge-api")
      expect(config.right.otelMetricExportIntervalMs).toBe(15_000)
    }))

  it.effect("refusals name the setting", () =>
    Effect.gen(function*() {
      for (
        const [env, name] of [
          [{ METRICS_TOKEN: "short" }, "METRICS_TOKEN"],
          [{ METRICS_PORT: "70000" }, "METRICS_PORT"],
          [{ METRICS_PORT: "x" }, "METRICS_PORT"],
          [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, "OTEL_EXPORTER_OTLP_ENDPOINT"],
          [{ OTEL_METRIC_EXPORT_INTERVAL: "10" }, "OTEL_METRIC_EXPORT_INTERVAL"]
        ] as const
      ) {
        const config = yield* read(env)
        expect(config._tag, JSON.stringify(env)).toBe("Left")
        if (config._tag === "Left") expect(String(config.left)).toContain(name)
      }
    }))
})
