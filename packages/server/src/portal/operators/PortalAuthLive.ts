/**
 * The `PortalAuth` middleware: the session cookie must name a live session of an active operator
 * (401), and every request but GET and HEAD must carry the session's CSRF token in `X-CSRF-Token`
 * and, when it sends an `Origin`, this server's own origin (403). The cookie is SameSite=Strict
 * already; the token and the origin are the second and third lines of defence.
 *
 * It is also the one place where roles are enforced, whatever the pages show: a viewer's every request but
 * GET and HEAD is refused (403) unless its endpoint is marked `OwnAccount` (logging out, its own password and
 * second factor). While the second factor is required, an operator without one may call only the endpoints
 * marked `BeforeSecondFactor` (the session, logging out, setting it up). The marks are read from the served
 * API's definition, so an endpoint added later is refused to viewers until it is marked.
 */
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Forbidden, Unauthorized } from "@pulsebridge/domain"
import { BeforeSecondFactor, csrfHeaderName, CurrentOperator, OwnAccount, PortalAuth } from "@pulsebridge/portal/api"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { bearsMcpToken, mcpTokenRefused } from "../../access/CredentialHash.js"
import { ServerBases } from "../../platform/ServerBases.js"
import { ServedApi } from "../ServedApi.js"
import { Sessions } from "./Sessions.js"

/** `METHOD path` of every endpoint of the served API that carries `mark`. */
const routesMarked = (mark: Context.Tag<any, true>) => {
  const routes = new Set<string>()
  for (const group of Object.values(ServedApi.groups)) {
    for (const endpoint of Object.values(group.endpoints) as Array<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>) {
      if (Context.getOption(endpoint.annotations, mark)._tag === "Some") {
        routes.add(`${endpoint.method} ${endpoint.path}`)
      }
    }
  }
  return routes
}

export const viewerRefused = "A viewer can look but not change anything; ask an admin"
export const secondFactorFirst = "The second factor is required: set it up on your account page first"

const originOf = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

export const PortalAuthLive = Layer.effect(
  PortalAuth,
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const bases = yield* ServerBases
    const ownOrigin = originOf(bases.publicBase)
    const ownAccount = routesMarked(OwnAccount)
    const beforeSecondFactor = routesMarked(BeforeSecondFactor)
    return PortalAuth.of({
      portalSession: (token) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (bearsMcpToken(request.headers["authorization"])) {
            return yield* new Unauthorized({ message: mcpTokenRefused })
          }
          const session = yield* sessions.authenticate(Redacted.value(token)).pipe(
            Effect.mapError((error) => new Unauthorized({ message: error.message }))
          )
          const { route } = yield* HttpRouter.RouteContext
          const changes = request.method !== "GET" && request.method !== "HEAD"
          if (changes) {
            const origin = request.headers["origin"]
            if (origin !== undefined) {
              const scheme = ownOrigin?.startsWith("http:") === true ? "http" : "https"
              const hostOrigin = request.headers["host"] === undefined
                ? undefined
                : originOf(`${scheme}://${request.headers["host"]}`)
              if (origin !== ownOrigin && origin !== hostOrigin) {
                return yield* new Forbidden({ message: "The request's Origin is not this server's" })
              }
            }
            const presented = request.headers[csrfHeaderName]
            if (presented === undefined || presented === "") {
              return yield* new Forbidden({ message: "Missing X-CSRF-Token header: send the session's CSRF token" })
            }
            if (!(yield* sessions.checkCsrf(session.csrfTokenSealed, presented))) {
              return yield* new Forbidden({ message: "The X-CSRF-Token header does not match the session" })
            }
          }
          const endpoint = `${route.method} ${route.path}`
          if (session.secondFactorRequired && !session.secondFactor && !beforeSecondFactor.has(endpoint)) {
            return yield* new Forbidden({ message: secondFactorFirst })
          }
          if (changes && session.role !== "admin" && !ownAccount.has(endpoint)) {
            return yield* new Forbidden({ message: viewerRefused })
          }
          return CurrentOperator.of({
            operatorId: session.operatorId,
            email: session.email,
            sessionId: session.id,
            role: session.role
          })
        })
    })
  })
)
