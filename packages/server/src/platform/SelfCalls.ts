/**
 * Calls this process makes to itself. In sandbox mode the connect flow's token exchanges, Garmin's request
 * token, the sync, the revocations of an erasure, the meal analyser and the portal's sandbox page reach the
 * simulators mounted on this server at its internal base URL, from this machine's address: the address a
 * newcomer's browser uses too. Each such call carries a header whose value is a random secret made when the
 * process starts and never sent anywhere else, so that the rate limiter can tell them from an outsider's
 * requests from the same address; an outsider cannot forge it, and it is compared in constant time.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as crypto from "node:crypto"
import { ServerBases } from "./ServerBases.js"

/** The header that marks a call of this process to itself. */
export const selfCallHeader = "x-pulsebridge-self-call"

export class SelfCalls extends Context.Tag("@pulsebridge/server/SelfCalls")<SelfCalls, {
  /** The headers this process's own calls to itself carry. */
  readonly headers: Readonly<Record<string, string>>
  /** Whether a request carries this process's secret. */
  readonly isSelfCall: (headers: Readonly<Record<string, string | undefined>>) => boolean
}>() {
  /** A secret of this process's own, made once. */
  static readonly Default = Layer.sync(SelfCalls, () => {
    const secret = Buffer.from(crypto.randomBytes(32).toString("base64url"))
    return {
      headers: { [selfCallHeader]: secret.toString() },
      isSelfCall: (headers) => {
        const value = headers[selfCallHeader]
        if (value === undefined) return false
        const given = Buffer.from(value)
        return given.length === secret.length && crypto.timingSafeEqual(given, secret)
      }
    }
  })
}

/**
 * The `HttpClient` in context with the calls to this server's internal base URL marked as its own (and as https,
 * as a TLS proxy would mark them); calls to
 * any other host (the real providers, the analyser's API) go as they are, so the secret never leaves the process.
 */
export const SelfCallMarkingLive = Layer.effect(
  HttpClient.HttpClient,
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const { internalBase } = yield* ServerBases
    const { headers } = yield* SelfCalls
    const prefix = `${internalBase}/`
    return HttpClient.mapRequest(
      client,
      (request) =>
        request.url.startsWith(prefix)
          // Behind a TLS proxy (`TRUST_PROXY`) the listener serves only what the proxy marks as https; these
          // calls reach it directly, so they carry the mark the proxy would have set.
          ? HttpClientRequest.setHeaders(request, { ...headers, "x-forwarded-proto": "https" })
          : request
    )
  })
)
