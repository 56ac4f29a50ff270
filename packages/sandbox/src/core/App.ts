/**
 * The simulator as an `HttpApp`: the `/_sim/...` control routes (faults, call log, reset, token
 * expiry, revocation, users), and around the provider's own routes the fault knobs, the
 * `SimRequest` context, provider-worded 404/500 and the call log; `assemble` puts a provider's
 * pieces together into a `Simulator`.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { describeParams } from "./CallLog.js"
import type { FaultSpec, Simulator, SimulatorControl } from "./Options.js"
import type { ProviderStyle, SimRequestShape } from "./Request.js"
import { SimRequest } from "./Request.js"
import { json } from "./Responses.js"
import type { SimulatorCore } from "./SimulatorCore.js"

/** A fault knob as `POST /_sim/faults` takes it (the schema of `FaultSpec`). */
export const FaultSpecSchema = Schema.Struct({
  path: Schema.String,
  kind: Schema.Literal("rateLimit", "serverError", "slow", "expiredToken", "malformedJson", "gone"),
  method: Schema.optional(Schema.String),
  count: Schema.optional(Schema.Int.pipe(Schema.between(1, 1_000_000))),
  retryAfterSeconds: Schema.optional(Schema.Int.pipe(Schema.between(0, 86_400))),
  delayMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 120_000)))
})
const decodeFaults = Schema.decodeUnknownEither(Schema.Union(FaultSpecSchema, Schema.Array(FaultSpecSchema)))

/** A timer-based delay: the app may run under a test clock that never advances on its own. */
const realDelay = (ms: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

const truncated = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  const bytes = body._tag === "Uint8Array" && body.body.length > 1
    ? body.body
    : new TextEncoder().encode("{\"records\":[{\"id\":1}]}")
  return HttpServerResponse.uint8Array(bytes.slice(0, Math.floor(bytes.length / 2)), {
    status: 200,
    contentType: "application/json",
    headers: response.headers
  })
}

/** The JSON body of a control request (already read into the `SimRequest`). */
const readJson = Effect.map(SimRequest, (req): unknown => {
  if (req.body.trim() === "") return {}
  try {
    return JSON.parse(req.body)
  } catch {
    return undefined
  }
})

const simRoutes = (provider: string, control: SimulatorControl): HttpRouter.HttpRouter<never, SimRequest> =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/_sim",
      Effect.succeed(json({
        provider,
        routes: [
          "GET|POST|DELETE /_sim/faults",
          "GET|DELETE /_sim/calls",
          "POST /_sim/reset",
          "POST /_sim/expire-tokens",
          "POST /_sim/revoke",
          "GET /_sim/users"
        ]
      }))
    ),
    HttpRouter.get("/_sim/faults", Effect.sync(() => json({ faults: control.faults() }))),
    HttpRouter.post(
      "/_sim/faults",
      Effect.map(readJson, (body) => {
        const decoded = decodeFaults(body)
        if (decoded._tag === "Left") return json({ error: "invalid fault", detail: String(decoded.left) }, 400)
        const specs: ReadonlyArray<FaultSpec> = Array.isArray(decoded.right) ? decoded.right : [decoded.right]
        specs.forEach((spec) => control.injectFault(spec))
        return json({ faults: control.faults() })
      })
    ),
    HttpRouter.del("/_sim/faults", Effect.sync(() => (control.clearFaults(), HttpServerResponse.empty()))),
    HttpRouter.get(
      "/_sim/calls",
      Effect.map(SimRequest, (req) => {
        const q = req.query
        const opt = (key: string) => q.get(key) ?? undefined
        const status = q.get("status")
        return json({
          calls: control.calls({
            method: opt("method"),
            path: opt("path"),
            presented: opt("presented"),
            userId: opt("userId"),
            status: status === null ? undefined : Number(status)
          })
        })
      })
    ),
    HttpRouter.del("/_sim/calls", Effect.sync(() => (control.clearCalls(), HttpServerResponse.empty()))),
    HttpRouter.post(
      "/_sim/reset",
      Effect.map(readJson, (body) => {
        const keepGrants = typeof body === "object" && body !== null && (body as any).keepGrants === true
        control.reset({ keepGrants })
        return HttpServerResponse.empty()
      })
    ),
    HttpRouter.post(
      "/_sim/expire-tokens",
      Effect.sync(() => (control.expireAccessTokens(), HttpServerResponse.empty()))
    ),
    HttpRouter.post(
      "/_sim/revoke",
      Effect.map(readJson, (body) => {
        const userId = typeof body === "object" && body !== null ? (body as any).userId : undefined
        if (typeof userId !== "string" && typeof userId !== "number") {
          return json({ error: "body must be {\"userId\": ...}" }, 400)
        }
        control.revokeUser(String(userId))
        return HttpServerResponse.empty()
      })
    ),
    HttpRouter.get("/_sim/users", Effect.sync(() => json({ users: control.users() })))
  )

/**
 * The simulator as an app: `/_sim/*` control routes, then for provider routes the fault
 * knobs, the provider's router with a `SimRequest`, provider-style 404/500, and the call log.
 */
export const makeApp = <S>(
  core: SimulatorCore<S>,
  style: ProviderStyle,
  routes: HttpRouter.HttpRouter<never, SimRequest>,
  control: SimulatorControl,
  /** A provider's own `/_sim/...` control routes (its fault knobs), beside the common ones. */
  controlRoutes: HttpRouter.HttpRouter<never, SimRequest> = HttpRouter.empty
): HttpApp.Default => {
  const sim = HttpRouter.concat(simRoutes(core.provider, control), controlRoutes).pipe(
    Effect.catchAll(() => Effect.succeed(json({ error: "no such control route" }, 404))),
    Effect.catchAllCause(() => Effect.succeed(json({ error: "control route failed" }, 500)))
  )
  return Effect.gen(function*() {
    const original = yield* HttpServerRequest.HttpServerRequest
    const q = original.url.indexOf("?")
    const fullPath = (q === -1 ? original.url : original.url.slice(0, q)) || "/"
    const rawQuery = q === -1 ? "" : original.url.slice(q + 1)
    // mounted with `includePrefix: true` the prefix is still there
    const prefix = core.basePath
    const stripped = prefix !== "" && (fullPath === prefix || fullPath.startsWith(`${prefix}/`))
    const path = stripped ? fullPath.slice(prefix.length) || "/" : fullPath
    const method = original.method.toUpperCase()
    if (method !== "GET" && method !== "HEAD" && bodyReadUpstream(original)) {
      return style.error(
        500,
        "server_error",
        "The request body was read before it reached the simulator; mount it with includePrefix: true"
      )
    }
    // read before any re-addressing: a body an outer middleware already read is cached only on this request
    const body = method === "GET" || method === "HEAD"
      ? ""
      : yield* Effect.orElseSucceed(original.text, () => "")
    const request = stripped ? original.modify({ url: `${path}${q === -1 ? "" : `?${rawQuery}`}` }) : original
    const contentType = request.headers["content-type"] ?? ""
    const form = contentType.toLowerCase().includes("application/x-www-form-urlencoded")
      ? new URLSearchParams(body)
      : new URLSearchParams()
    const query = new URLSearchParams(rawQuery)
    let who: { clientId?: string | undefined; userId?: string | undefined } = {}
    const req: SimRequestShape = {
      method,
      path,
      rawQuery,
      query,
      headers: request.headers,
      body,
      form,
      identify: (w) => {
        who = { ...who, ...w }
      }
    }
    const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.provideService(SimRequest, req),
        Effect.provideService(HttpServerRequest.HttpServerRequest, request)
      )
    if (path === "/_sim" || path.startsWith("/_sim/")) return yield* provide(sim)
    const fault = core.takeFault(method, path)
    let response: HttpServerResponse.HttpServerResponse
    switch (fault?.kind) {
      case "rateLimit":
        response = style.rateLimited(fault.retryAfterSeconds ?? 60)
        break
      case "serverError":
        response = style.error(500, "server_error", "Internal Server Error")
        break
      case "expiredToken":
        response = style.expiredToken(req)
        break
      case "gone":
        response = style.error(410, "gone", "Gone")
        break
      default: {
        if (fault?.kind === "slow") yield* realDelay(fault.delayMs ?? 1000)
        response = yield* provide(routes).pipe(
          Effect.catchAll(() => Effect.succeed(style.error(404, "not_found", `No such resource: ${method} ${path}`))),
          Effect.catchAllCause(() => Effect.succeed(style.error(500, "server_error", "Internal Server Error")))
        )
        if (fault?.kind === "malformedJson") response = truncated(response)
      }
    }
    core.record({
      time: core.now().toISOString(),
      method,
      path,
      status: response.status,
      params: describeParams(query, form, request.headers["authorization"]),
      ...(who.clientId === undefined ? {} : { clientId: who.clientId }),
      ...(who.userId === undefined ? {} : { userId: who.userId }),
      ...(fault === undefined ? {} : { fault: fault.kind })
    })
    return response
  })
}

/**
 * Whether an outer handler consumed the body of a request the router then re-addressed (mounting
 * without `includePrefix` makes a new request object without the first one's cached body):
 * reading it again would wait forever.
 */
const bodyReadUpstream = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const source = request.source as { readonly readableEnded?: unknown; readonly url?: unknown } | null
  return typeof source === "object" && source !== null && source.readableEnded === true &&
    typeof source.url === "string" && source.url !== request.url
}

/** A router holding only `app`, for `HttpRouter.mount(prefix, sim.router)`. */
export const routerOf = (app: HttpApp.Default): HttpRouter.HttpRouter =>
  HttpRouter.empty.pipe(HttpRouter.all("/", app), HttpRouter.all("/*", app))

/** Puts the pieces together; `baseUrl` reads the core's current base. */
export const assemble = <S, C extends SimulatorControl>(
  core: SimulatorCore<S>,
  style: ProviderStyle,
  routes: HttpRouter.HttpRouter<never, SimRequest>,
  control: C,
  controlRoutes?: HttpRouter.HttpRouter<never, SimRequest>
): Simulator<C> => {
  const app = makeApp(core, style, routes, control, controlRoutes)
  const router = routerOf(app)
  return {
    provider: core.provider,
    slug: core.slug,
    app,
    router,
    get baseUrl() {
      return core.baseUrl
    },
    control
  }
}
