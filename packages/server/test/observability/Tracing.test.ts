/**
 * OpenTelemetry export end to end: a sandbox server with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a
 * tiny OTLP/HTTP receiver sends it spans of the requests, of the SQL statements, of the provider
 * calls and of the cluster's messages, and its metrics; nothing sent carries a query string, a
 * credential or the OAuth callback's `code` and `state`.
 */
import { expect, layer } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as http from "node:http"
import type * as net from "node:net"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"

interface ExportedSpan {
  readonly name: string
  readonly kind: number
  readonly attributes: Readonly<Record<string, unknown>>
}

/** What the receiver got: every body as sent, by path. */
class Collector extends Context.Tag("test/Collector")<Collector, {
  readonly port: number
  readonly bodies: Array<{ readonly path: string; readonly contentType: string; readonly text: string }>
}>() {}

/** An OTLP/HTTP receiver on a loopback port: accepts `POST /v1/traces` and `/v1/metrics`, answers `{}`. */
const CollectorLive = Layer.scoped(
  Collector,
  Effect.acquireRelease(
    Effect.async<{ server: http.Server; port: number; bodies: Collector["Type"]["bodies"] }>((resume) => {
      const bodies: Collector["Type"]["bodies"] = []
      const server = http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          bodies.push({
            path: request.url ?? "",
            contentType: request.headers["content-type"] ?? "",
            text: Buffer.concat(chunks).toString("utf8")
          })
          response.writeHead(200, { "content-type": "application/json" })
          response.end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        resume(Effect.succeed({ server, port: (server.address() as net.AddressInfo).port, bodies }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ bodies, port }) => ({ bodies, port })))
)

const ServerLive = Layer.unwrapEffect(
  Effect.map(Collector, ({ port }) =>
    makeTestServer({
      sandbox: true,
      otelEndpoint: Option.some(`http://127.0.0.1:${port}`),
      otelServiceName: "pulsebridge-otel-test",
      otelMetricExportIntervalMs: 1000
    }))
).pipe(Layer.provideMerge(CollectorLive))

const attributeValue = (value: any): unknown =>
  value?.stringValue ?? value?.intValue ?? value?.boolValue ?? value?.doubleValue ?? value

/** Every span the receiver got, from the JSON bodies the exporter sent. */
const receivedSpans = Effect.map(
  Collector,
  ({ bodies }) =>
    bodies.filter((body) => body.path === "/v1/traces").flatMap((body) => {
      expect(body.contentType).toMatch(/^application\/json/)
      const parsed = JSON.parse(body.text)
      return (parsed.resourceSpans ?? []).flatMap((resource: any) => {
        const service = resource.resource?.attributes?.find((a: any) => a.key === "service.name")
        expect(attributeValue(service?.value)).toBe("pulsebridge-otel-test")
        return (resource.scopeSpans ?? []).flatMap((scope: any) =>
          (scope.spans ?? []).map((span: any): ExportedSpan => ({
            name: span.name,
            kind: span.kind,
            attributes: Object.fromEntries((span.attributes ?? []).map((a: any) => [a.key, attributeValue(a.value)]))
          }))
        )
      })
    })
)

/** OTLP's span kinds. */
const SERVER = 2
const CLIENT = 3

layer(ServerLive, { timeout: "300 seconds", excludeTestServices: true })("traces", (it) => {
  it.effect("requests, SQL statements, provider calls and cluster messages are exported, without secrets", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser(`otel-${simulatedUser("u")}`)
      const { callbackPath, connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
      yield* waitForSync(user.id, token, connectionId)
      const probePath = `/api/v1/users/${user.id}/journal-entries`
      const probe = yield* send("GET", `${probePath}?date=2026-01-05&probe=visible-only-in-the-query`, {
        bearer: token
      })
      expect(probe.status).toBe(200)

      const spans = yield* eventually(
        receivedSpans,
        (spans) =>
          spans.some((s) => s.kind === SERVER && s.attributes["http.route"] === "/api/v1/connections/callback") &&
          spans.some((s) => s.name === "sql.execute") &&
          spans.some((s) => s.kind === CLIENT && String(s.attributes["url.full"]).includes("/sandbox/dexcom/")) &&
          spans.some((s) => s.name.startsWith("ConnectionSync(")) &&
          spans.some((s) => s.kind === SERVER && s.attributes["url.path"] === probePath),
        "the spans of requests, a statement, a provider call and a cluster message",
        { every: "500 millis", within: "60 seconds" }
      )

      const request = spans.find((s) =>
        s.kind === SERVER && s.attributes["http.route"] === "/api/v1/connections/callback"
      )!
      expect(request.attributes["http.request.method"]).toBe("GET")
      expect(request.attributes["url.path"]).toBe("/api/v1/connections/callback")
      expect(String(request.attributes["url.full"])).not.toContain("?")
      const statement = spans.find((s) => s.name === "sql.execute")!
      expect(typeof statement.attributes["db.query.text"]).toBe("string")
      const providerCall = spans.find((s) =>
        s.kind === CLIENT && String(s.attributes["url.full"]).includes("/sandbox/dexcom/")
      )!
      expect(providerCall.attributes["http.request.method"]).toMatch(/^(GET|POST)$/)

      // The metrics go out too, with the same names and labels as on /metrics.
      const metrics = yield* eventually(
        Effect.map(Collector, ({ bodies }) => bodies.filter((body) => body.path === "/v1/metrics")),
        (bodies) => bodies.some((body) => body.text.includes("pulsebridge_sync_records_stored_total")),
        "an export of the metrics",
        { every: "500 millis", within: "30 seconds" }
      )
      const exported = metrics.map((body) => body.text).join("\n")
      expect(exported).toContain("pulsebridge_http_requests_total")
      expect(exported).toContain("\"dexcom\"")

      // Nothing secret and no query string left the server.
      const query = new URLSearchParams(callbackPath.split("?")[1] ?? "")
      const code = query.get("code")
      const state = query.get("state")
      expect(code).not.toBeNull()
      expect(state).not.toBeNull()
      const everything = (yield* Collector).bodies.map((body) => body.text).join("\n")
      expect(everything).not.toContain(code!)
      expect(everything).not.toContain(state!)
      expect(everything).not.toContain(token)
      expect(everything).not.toContain("visible-only-in-the-query")
      expect(everything).not.toMatch(/pb_(sk|ut)_/)
      for (const span of spans) {
        expect(Object.keys(span.attributes)).not.toContain("url.query")
        expect(Object.keys(span.attributes)).not.toContain("http.request.header.authorization")
      }
    }))
})
