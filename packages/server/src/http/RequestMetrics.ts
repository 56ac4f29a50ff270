/**
 * The request metrics: a counter by route, method and status and a duration histogram by route and
 * method. The route is the router's template (`/api/v1/users/:userId`), never the raw path, so the
 * number of series stays bounded whatever clients send: the router names the matched route on the
 * request's server span (`http.route`), which is read back here; paths no route matched collapse to
 * `unmatched`, and the simulators mounted under `/sandbox/` to `/sandbox/*`.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Api } from "@pulsebridge/domain"
import * as Context from "effect/Context"
import type * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"

export const requestsTotal = Metric.counter("pulsebridge_http_requests_total", {
  description: "HTTP requests answered, by route template, method and status",
  incremental: true
})

export const requestDuration = Metric.histogram(
  "pulsebridge_http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  "Time from a request's arrival to its answer, by route template and method"
)

/** The label of a request that no route matched (unknown paths, and requests refused before routing). */
export const unmatchedRoute = "unmatched"

const knownMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** The method as a label: any method outside the usual ones is `OTHER`. */
export const methodLabel = (method: string): string => knownMethods.has(method) ? method : "OTHER"

interface Template {
  readonly method: string
  readonly path: string
  readonly pattern: RegExp
}

/**
 * The contract's routes, for requests answered before the router saw them (a 429, a 413): literal
 * segments before parameters, so `/callback` wins over `/:id`.
 */
const apiTemplates: ReadonlyArray<Template> = (() => {
  const templates: Array<Template & { readonly params: number }> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const segments = endpoint.path.split("/")
      const pattern = segments.map((segment) =>
        segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      ).join("/")
      templates.push({
        method: endpoint.method,
        path: endpoint.path,
        pattern: new RegExp(`^${pattern}/?$`),
        params: segments.filter((segment) => segment.startsWith(":")).length
      })
    }
  })
  return templates.sort((a, b) => a.params - b.params)
})()

/** The contract's route template of a path, if one matches (`method`'s first). */
export const templateOf = (method: string, url: string): string | undefined => {
  const path = url.split("?")[0]!
  const matching = apiTemplates.filter((template) => template.pattern.test(path))
  return (matching.find((template) => template.method === method) ?? matching[0])?.path
}

/**
 * A stand-in for the server span of a request when spans are not exported (no server span is made then): the
 * router names the matched route on the request's parent span, and this records that and nothing else.
 */
export const routeCapture = (): Tracer.Span => {
  const attributes = new Map<string, unknown>()
  return {
    _tag: "Span",
    name: "http.server",
    spanId: "",
    traceId: "",
    parent: Option.none(),
    context: Context.empty(),
    status: { _tag: "Started", startTime: BigInt(0) },
    attributes,
    links: [],
    sampled: false,
    kind: "server",
    end() {},
    attribute(key, value) {
      if (key === "http.route") attributes.set(key, value)
    },
    event() {},
    addLinks() {}
  }
}

/**
 * The route template of the request `fiber` serves: what the router wrote on the request's span (or on the
 * stand-in of `routeCapture`), else, for the API, the template its path matches.
 */
export const currentRoute = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  request: HttpServerRequest.HttpServerRequest
): string => {
  // A mounted simulator's own router names routes relative to its mount; they are one label.
  if (request.url.startsWith("/sandbox/")) return "/sandbox/*"
  const span = fiber.currentSpan
  const route = span?._tag === "Span" ? span.attributes.get("http.route") : undefined
  if (typeof route === "string" && route.startsWith("/")) return route
  return request.url.startsWith("/api/") ? templateOf(request.method, request.url) ?? unmatchedRoute : unmatchedRoute
}

const series = new Map<string, {
  readonly total: Metric.Metric.Counter<number>
  readonly duration: Metric.Metric.Histogram<number>
}>()

const seriesOf = (route: string, method: string, status: number) => {
  const key = `${route} ${method} ${status}`
  let found = series.get(key)
  if (found === undefined) {
    const labels = [MetricLabel.make("route", route), MetricLabel.make("method", method)]
    found = {
      total: Metric.taggedWithLabels(requestsTotal, [...labels, MetricLabel.make("status", String(status))]),
      duration: Metric.taggedWithLabels(requestDuration, labels)
    }
    series.set(key, found)
  }
  return found
}

/** Counts one answered request and observes its duration. */
export const recordRequest = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  request: HttpServerRequest.HttpServerRequest,
  status: number,
  durationMs: number
): void => {
  const { duration, total } = seriesOf(currentRoute(fiber, request), methodLabel(request.method), status)
  total.unsafeUpdate(1, [])
  duration.unsafeUpdate(durationMs / 1000, [])
}

export const rateLimited = Metric.counter("pulsebridge_http_rate_limited_total", {
  description: "Requests refused with 429, by the kind of credential whose bucket was empty",
  incremental: true
})

const credentialKinds: Readonly<Record<string, string>> = {
  key: "api_key",
  token: "user_token",
  session: "portal_session",
  provider: "provider_token",
  address: "address"
}

/** Counts a request refused by the rate limits; `bucketKey` is the bucket's key (`<kind>:<hash>`). */
export const countRateLimited = (bucketKey: string) =>
  Metric.increment(Metric.tagged(rateLimited, "credential", credentialKinds[bucketKey.split(":")[0]!] ?? "address"))

/**
 * Requests let through without a rate-limit decision because the database did not answer (the limiter fails open),
 * and failed authentications that could not be charged to their address for the same reason.
 */
export const rateLimitsNotApplied = Metric.counter("pulsebridge_http_rate_limits_not_applied_total", {
  description:
    "Rate-limit statements that failed (the database did not answer): the request was let through, or its failed authentication was not charged",
  incremental: true
})
