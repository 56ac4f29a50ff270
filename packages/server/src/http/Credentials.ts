/**
 * Reading a presented credential: `Authorization: Bearer` first, the legacy header second, and
 * one check per request however many declared schemes ask for it (a failed bearer attempt does
 * not look the credential up twice).
 */
import { HttpServerRequest } from "@effect/platform"
import type { Unauthorized } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
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
