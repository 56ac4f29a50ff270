/**
 * The `PortalAuth` middleware: the session cookie must name a live session of an active operator
 * (401), and every request but GET and HEAD must carry the session's CSRF token in `X-CSRF-Token`
 * and, when it sends an `Origin`, this server's own origin (403). The cookie is SameSite=Strict
 * already; the token and the origin are the second and third lines of defence.
 */
import { HttpServerRequest } from "@effect/platform"
import { Forbidden, Unauthorized } from "@pulsebridge/domain"
import { csrfHeaderName, CurrentOperator, PortalAuth } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { ServerBases } from "../../platform/ServerBases.js"
import { Sessions } from "./Sessions.js"

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
    return PortalAuth.of({
      portalSession: (token) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const session = yield* sessions.authenticate(Redacted.value(token)).pipe(
            Effect.mapError((error) => new Unauthorized({ message: error.message }))
          )
          if (request.method !== "GET" && request.method !== "HEAD") {
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
          return CurrentOperator.of({ operatorId: session.operatorId, email: session.email, sessionId: session.id })
        })
    })
  })
)
