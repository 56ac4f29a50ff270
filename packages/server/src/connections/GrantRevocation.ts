/**
 * Revoking a connection's grant at its provider, through the provider's adapter (Garmin's is a
 * deregistration; a provider without a revocation endpoint answers at once). The one way both a
 * disconnect (endpoint 9) and a user's erasure end a grant; each decides what a failure means.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { traced } from "../platform/Traced.js"
import type { ConnectionRef } from "./ConnectionsRepo.js"
import { ConnectionTokens } from "./ConnectionTokens.js"
import { ProviderAccess } from "./ProviderAccess.js"

/** The provider did not take the revocation (or could not be reached); never carries a token. */
export class RevocationFailed extends Data.TaggedError("RevocationFailed")<{
  readonly connectionId: string
  readonly provider: string
  readonly reason: string
}> {
  override get message() {
    return `${this.provider} did not revoke the grant of connection ${this.connectionId}: ${this.reason}`
  }
}

const reasonOf = (error: unknown) => String((error as { message?: unknown } | null)?.message ?? error)

export class GrantRevocation extends Effect.Service<GrantRevocation>()("@pulsebridge/server/GrantRevocation", {
  effect: Effect.gen(function*() {
    const access = yield* ProviderAccess
    const tokens = yield* ConnectionTokens
    const httpClient = yield* HttpClient.HttpClient

    return {
      /** Revokes the connection's grant with its freshest tokens (the stored ones when a refresh fails). */
      revoke: traced("GrantRevocation.revoke")(function*(connection: ConnectionRef) {
        yield* Effect.gen(function*() {
          const resolved = yield* access.resolve(connection.appId, connection.provider)
          const current = yield* tokens.fresh(connection.id).pipe(
            Effect.catchAll(() => tokens.stored(connection.id))
          )
          yield* resolved.adapter.revoke({
            credentials: resolved.credentials,
            endpoints: resolved.endpoints,
            tokens: current
          }).pipe(Effect.provideService(HttpClient.HttpClient, httpClient))
        }).pipe(
          Effect.mapError((error) =>
            new RevocationFailed({
              connectionId: connection.id,
              provider: connection.provider,
              reason: reasonOf(error)
            })
          )
        )
      })
    } as const
  })
}) {}
