/**
 * Reading a presented credential: `Authorization: Bearer` first, the legacy header second, and
 * one check per request however many declared schemes ask for it (a failed bearer attempt does
 * not look the credential up twice). A credential the rate limiter already looked up with the
 * request's bucket (one statement for both, see `RateLimit.ts`) is handed to the check here.
 */
import { HttpServerRequest } from "@effect/platform"
import type { Unauthorized } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { hashSecret } from "../platform/CredentialHash.js"
/** The presented credential: the bearer token, else the legacy header's value. */
export const presentedCredential = (
  headers: Readonly<Record<string, string | undefined>>,
  legacyHeader: string
): string | undefined => {
  const authorization = headers["authorization"]
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (match !== null) return match[1]
  }
  const legacy = headers[legacyHeader]?.trim()
  return legacy === undefined || legacy === "" ? undefined : legacy
}

export const memoised = <A>(check: Effect.Effect<A, Unauthorized, HttpServerRequest.HttpServerRequest>) => {
  const results = new WeakMap<object, Exit.Exit<A, Unauthorized>>()
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const key = request.source as object
    const hit = results.get(key)
    if (hit !== undefined) return hit
    return Effect.exit(check).pipe(
      Effect.tap((exit) => Effect.sync(() => results.set(key, exit))),
      Effect.flatten
    )
  })
}

interface Prefetched {
  readonly kind: "key" | "token"
  /** The hash of the secret looked up (`hashSecret`). */
  readonly hash: string
  readonly row: unknown
}

/** What the rate limiter's statement found for a request's credential, by request. */
const prefetched = new WeakMap<object, Prefetched>()

/**
 * Records what the rate limiter's statement found for the request's credential: its row as JSON, or null when
 * the credential is unknown, revoked or dead.
 */
export const setPrefetched = (request: HttpServerRequest.HttpServerRequest, found: Prefetched): void => {
  prefetched.set(request.source as object, found)
}

/** The row the rate limiter found for this secret of the request, if it looked that one up. */
export const prefetchedCredential = (
  request: HttpServerRequest.HttpServerRequest,
  kind: "key" | "token",
  secret: string
): Option.Option<unknown> => {
  const found = prefetched.get(request.source as object)
  return found !== undefined && found.kind === kind && found.hash === hashSecret(secret)
    ? Option.some(found.row)
    : Option.none()
}
