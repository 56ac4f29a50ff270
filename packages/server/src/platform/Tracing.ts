/**
 * OpenTelemetry export: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, Effect's spans and metrics go to an
 * OTLP/HTTP collector (`<endpoint>/v1/traces`, and `<endpoint>/v1/metrics` every `OTEL_METRIC_EXPORT_INTERVAL`) through `@effect/opentelemetry`,
 * under `service.name` = `OTEL_SERVICE_NAME`. The spans are those the libraries already make: one
 * per request (the platform's HTTP server tracer), per SQL statement (`@effect/sql`), per outgoing
 * HTTP call (the platform's client: provider calls, webhook deliveries), per cluster message (the
 * entities' RPC server), and the server's own `withSpan`s. Unset, nothing is loaded or exported.
 *
 * Attributes are scrubbed before they reach the exporter: query strings never leave (OAuth callbacks
 * carry `code` and `state` there, consent pages `state`), `url.full` loses its query and fragment, and
 * of the request and response headers only a few harmless ones are kept (credentials travel in
 * `Authorization` and the legacy `X-App-Api-Key`/`X-User-Token` headers). Bodies are never recorded.
 */
import type * as OtelApi from "@opentelemetry/api"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { ServerConfig } from "./ServerConfig.js"

/** The headers whose values may be recorded on spans. */
const keptHeaders: ReadonlySet<string> = new Set([
  "content-type",
  "content-length",
  "accept",
  "user-agent",
  "x-request-id",
  "retry-after"
])

const headerAttribute = /^http\.(?:request|response)\.header\.(.+)$/

/** `url` without credentials, query or fragment. */
export const withoutQuery = (url: string): string => {
  try {
    const parsed = new URL(url)
    parsed.username = ""
    parsed.password = ""
    parsed.search = ""
    parsed.hash = ""
    return parsed.toString()
  } catch {
    return url.split(/[?#]/)[0]!
  }
}

/** The value an attribute is exported with, or `undefined` when it is not exported at all. */
export const scrubAttribute = (key: string, value: OtelApi.AttributeValue): OtelApi.AttributeValue | undefined => {
  if (key === "url.query") return undefined
  if (key === "url.full" && typeof value === "string") return withoutQuery(value)
  const header = headerAttribute.exec(key)
  if (header !== null) return keptHeaders.has(header[1]!.toLowerCase()) ? value : undefined
  return value
}

const scrubAttributes = (attributes: OtelApi.Attributes | undefined): OtelApi.Attributes | undefined => {
  if (attributes === undefined) return undefined
  const kept: OtelApi.Attributes = {}
  for (const [key, value] of Object.entries(attributes)) {
    const scrubbed = value === undefined ? undefined : scrubAttribute(key, value)
    if (scrubbed !== undefined) kept[key] = scrubbed
  }
  return kept
}

/** A span whose attributes pass `scrubAttribute` on their way in. */
const scrubbingSpan = (span: OtelApi.Span): OtelApi.Span => {
  const proxy: OtelApi.Span = new Proxy(span, {
    get(target, property) {
      if (property === "setAttribute") {
        return (key: string, value: OtelApi.AttributeValue) => {
          const scrubbed = scrubAttribute(key, value)
          if (scrubbed !== undefined) target.setAttribute(key, scrubbed)
          return proxy
        }
      }
      if (property === "setAttributes") {
        return (attributes: OtelApi.Attributes) => {
          target.setAttributes(scrubAttributes(attributes) ?? {})
          return proxy
        }
      }
      const value = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })
  return proxy
}

/** The OpenTelemetry tracer Effect's spans are made with, scrubbing every span's attributes. */
export const scrubbingTracer = (tracer: OtelApi.Tracer): OtelApi.Tracer => ({
  startSpan: (name, options, context) =>
    scrubbingSpan(
      tracer.startSpan(
        name,
        options?.attributes === undefined ? options : { ...options, attributes: scrubAttributes(options.attributes)! },
        context
      )
    ),
  startActiveSpan:
    ((...args: Array<any>) => (tracer.startActiveSpan as any)(...args)) as OtelApi.Tracer["startActiveSpan"]
})

/**
 * Without an export, Effect's logger that copies every log line onto the current span as an event: a request's span
 * is then a stand-in nobody reads (`http/RequestMetrics.ts`), and the copy (its annotations, the fiber's name) would
 * cost each log line as much as the line itself.
 */
const NoSpanEventsLive = Logger.remove(Logger.tracerLogger)

/** The export, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; otherwise nothing at all. */
export const TracingLive = Layer.unwrapScoped(Effect.gen(function*() {
  const config = yield* ServerConfig
  if (Option.isNone(config.otelEndpoint)) return NoSpanEventsLive
  const base = config.otelEndpoint.value.replace(/\/+$/, "")
  const serviceName = config.otelServiceName
  // Loaded only when used: a server without a collector loads none of the SDK.
  const [Resource, OtelTracer, OtelMetrics, NodeSdk, TraceExporter, MetricExporter, TraceBase, SdkMetrics] =
    yield* Effect
      .promise(() =>
        Promise.all([
          import("@effect/opentelemetry/Resource"),
          import("@effect/opentelemetry/Tracer"),
          import("@effect/opentelemetry/Metrics"),
          import("@effect/opentelemetry/NodeSdk"),
          import("@opentelemetry/exporter-trace-otlp-http"),
          import("@opentelemetry/exporter-metrics-otlp-http"),
          import("@opentelemetry/sdk-trace-base"),
          import("@opentelemetry/sdk-metrics")
        ])
      )
  const ResourceLive = Resource.layerFromEnv({ "service.name": serviceName })
  const ProviderLive = NodeSdk.layerTracerProvider(
    new TraceBase.BatchSpanProcessor(new TraceExporter.OTLPTraceExporter({ url: `${base}/v1/traces` }))
  )
  const ScrubbingTracerLive = Layer.effect(
    OtelTracer.OtelTracer,
    Effect.map(OtelTracer.OtelTracerProvider, (provider) => scrubbingTracer(provider.getTracer(serviceName)))
  )
  const TracesLive = OtelTracer.layerWithoutOtelTracer.pipe(
    Layer.provide(ScrubbingTracerLive),
    Layer.provide(ProviderLive)
  )
  const MetricsLive = OtelMetrics.layer(() =>
    new SdkMetrics.PeriodicExportingMetricReader({
      exporter: new MetricExporter.OTLPMetricExporter({ url: `${base}/v1/metrics` }),
      exportIntervalMillis: config.otelMetricExportIntervalMs
    })
  )
  yield* Effect.logInfo("Exporting traces and metrics over OTLP/HTTP").pipe(
    Effect.annotateLogs({ endpoint: withoutQuery(base), serviceName })
  )
  return Layer.mergeAll(TracesLive, MetricsLive).pipe(Layer.provide(ResourceLive))
}))
