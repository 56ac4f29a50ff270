/**
 * `GET /metrics`, the Prometheus scrape, in one of two places. On the public port it is served only
 * with `METRICS_TOKEN` set, and then only to `Authorization: Bearer <token>` (compared in constant
 * time); without the token the route does not exist there (404). With `METRICS_PORT` set it is also
 * served without a token on a separate plain-HTTP listener bound to `METRICS_HOST` (loopback by
 * default), for a scraper on the same host or network.
 *
 * The gauges that are queries (the database pool, the analysis queue) are read at scrape time.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import * as http from "node:http"
import { observePendingAnalyses } from "../journal/AnalysisMetrics.js"
import { observePools } from "../platform/DatabasePool.js"
import { contentType, scrape } from "../platform/Prometheus.js"
import { ServerConfig } from "../platform/ServerConfig.js"

/** Where the separate metrics listener (`METRICS_PORT`) listens, if this process runs one. */
export class MetricsListener extends Context.Tag("@pulsebridge/server/MetricsListener")<MetricsListener, {
  readonly address: Option.Option<{ readonly host: string; readonly port: number }>
}>() {}

/** The scrape: the query gauges refreshed, then the whole registry as text. */
const metricsResponse = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* observePools
    // A database that does not answer leaves the queue gauge at its last value; the scrape still answers.
    yield* observePendingAnalyses.pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.timeout("2 seconds"),
      Effect.catchAllCause((cause) => Effect.logDebug("Could not read the analysis queue for /metrics", cause))
    )
    const text = yield* scrape
    return HttpServerResponse.text(text, { contentType, headers: { "cache-control": "no-store" } })
  })

const digest = (value: string) => crypto.createHash("sha256").update(value, "utf8").digest()

/** Whether `header` is `Bearer <expected>`; hashes are compared, so the time taken says nothing of the token. */
export const bearerMatches = (header: string | undefined, expected: Redacted.Redacted): boolean => {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "")
  const presented = match?.[1] ?? ""
  const equal = crypto.timingSafeEqual(digest(presented), digest(Redacted.value(expected)))
  return equal && match !== null
}

const unauthorized = HttpServerResponse.unsafeJson(
  { _tag: "Unauthorized", message: "/metrics requires Authorization: Bearer <METRICS_TOKEN>" },
  { status: 401, headers: { "www-authenticate": "Bearer realm=\"metrics\"" } }
)

/** `/metrics` on the public router, when `METRICS_TOKEN` is set. */
export const MetricsRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    if (Option.isNone(config.metricsToken)) return
    const token = config.metricsToken.value
    const sql = yield* SqlClient.SqlClient
    yield* router.get(
      "/metrics",
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        bearerMatches(request.headers["authorization"], token) ? metricsResponse(sql) : Effect.succeed(unauthorized))
    )
  })
)

const notFound = HttpServerResponse.unsafeJson(
  { _tag: "NotFound", message: "This listener serves only GET /metrics" },
  { status: 404 }
)

/** The separate metrics listener of `METRICS_PORT`, plain HTTP, without a token. */
export const MetricsListenerLive = Layer.scoped(
  MetricsListener,
  Effect.gen(function*() {
    const config = yield* ServerConfig
    if (Option.isNone(config.metricsPort)) return { address: Option.none() }
    const host = config.metricsHost
    const wanted = config.metricsPort.value
    const sql = yield* SqlClient.SqlClient
    const server = yield* NodeHttpServer.make(() => http.createServer(), { port: wanted, host })
    const app = HttpRouter.empty.pipe(
      HttpRouter.get("/metrics", metricsResponse(sql)),
      Effect.catchTag("RouteNotFound", () => Effect.succeed(notFound))
    )
    // Scrapes are not traced: a span every few seconds would say nothing.
    yield* server.serve(app).pipe(HttpMiddleware.withTracerDisabledWhenEffect(() => true))
    const port = server.address._tag === "TcpAddress" ? server.address.port : wanted
    yield* Effect.logInfo("Serving /metrics on the metrics listener").pipe(Effect.annotateLogs({ host, port }))
    return { address: Option.some({ host, port }) }
  })
)
