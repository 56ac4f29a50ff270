/**
 * Token freshness: the one way to get a usable access token for a connection. A token close to
 * expiry is refreshed while the connection row is locked (`select ... for update`), and the
 * rotated pair is stored in that same transaction before anyone uses it, so two callers — in
 * this process or another — never present the same (single-use) refresh token twice. A refresh
 * the provider refuses (`invalid_grant`) moves the connection to `Reauthorize`, its
 * `connection.updated` written in the same transaction.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { TokenSet } from "@pulsebridge/providers"
import { isInvalidGrant, ProviderError } from "@pulsebridge/providers"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { SecretBox } from "../platform/SecretBox.js"
import { ConnectionEvents } from "./ConnectionEvents.js"
import type { TokenRow } from "./ConnectionsRepo.js"
import { ConnectionsRepo } from "./ConnectionsRepo.js"
import { ProviderAccess } from "./ProviderAccess.js"

/** Refresh when less than this is left of the access token's life. */
export const RefreshMarginMs = 5 * 60 * 1000

export class ConnectionUnusable extends Data.TaggedError("ConnectionUnusable")<{
  readonly connectionId: string
  readonly status: string
  readonly message: string
}> {}

export class ConnectionTokens extends Effect.Service<ConnectionTokens>()("@pulsebridge/server/ConnectionTokens", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ConnectionsRepo
    const events = yield* ConnectionEvents
    const box = yield* SecretBox
    const access = yield* ProviderAccess
    const httpClient = yield* HttpClient.HttpClient

    const openTokens = (row: TokenRow) =>
      Effect.gen(function*() {
        const open = (sealed: string | null) => sealed === null ? Effect.succeed(null) : box.open(sealed)
        return {
          accessToken: (yield* open(row.accessTokenSealed)) ?? Redacted.make(""),
          refreshToken: yield* open(row.refreshTokenSealed),
          tokenSecret: yield* open(row.tokenSecretSealed),
          expiresAt: row.tokenExpiresAt,
          scopes: row.scopes
        } satisfies TokenSet
      }).pipe(Effect.orDie)

    const lockRow = (connectionId: string) => Effect.map(repo.lockTokens(connectionId), Option.getOrUndefined)

    /** The stored tokens as they are, without refreshing (e.g. to revoke a grant that no longer refreshes). */
    const stored = (connectionId: string) =>
      repo.tokens(connectionId).pipe(
        Effect.flatMap(Option.match({
          onNone: () =>
            Effect.fail(new ConnectionUnusable({ connectionId, status: "Missing", message: "no such connection" })),
          onSome: openTokens
        }))
      )

    const needsRefresh = (row: TokenRow, now: number) =>
      row.tokenExpiresAt !== null && row.refreshTokenSealed !== null &&
      row.tokenExpiresAt.getTime() - now < RefreshMarginMs

    /** Stores a token set on the connection (sealed). */
    const storeTokens = (connectionId: string, tokens: TokenSet) =>
      repo.storeTokens(connectionId, {
        accessTokenSealed: box.seal(tokens.accessToken),
        refreshTokenSealed: tokens.refreshToken === null ? null : box.seal(tokens.refreshToken),
        tokenSecretSealed: tokens.tokenSecret === null ? null : box.seal(tokens.tokenSecret),
        tokenExpiresAt: tokens.expiresAt,
        scopes: tokens.scopes
      })

    /**
     * A usable token set for the connection, refreshed first when needed. `force` refreshes
     * even a token that looks fresh (after the provider said it expired early).
     */
    const fresh = (connectionId: string, options: { readonly force?: boolean } = {}) =>
      Effect.flatMap(Clock.currentTimeMillis, (requestedAt) => refreshIfNeeded(connectionId, options, requestedAt))

    // `requestedAt` is taken before waiting for a connection or the row lock.
    const refreshIfNeeded = (connectionId: string, options: { readonly force?: boolean }, requestedAt: number) =>
      Effect.gen(function*() {
        const row = yield* lockRow(connectionId)
        if (row === undefined) {
          return yield* new ConnectionUnusable({ connectionId, status: "Missing", message: "no such connection" })
        }
        if (row.status !== "Active") {
          return yield* new ConnectionUnusable({
            connectionId,
            status: row.status,
            message: `the connection is ${row.status}`
          })
        }
        const tokens = yield* openTokens(row)
        // A forced refresh is skipped when another caller refreshed while this one waited for the lock.
        const forced = options.force === true && row.refreshTokenSealed !== null &&
          row.updatedAt.getTime() < requestedAt
        if (!forced && !needsRefresh(row, yield* Clock.currentTimeMillis)) {
          return tokens
        }
        const resolved = yield* access.resolve(row.appId, row.provider).pipe(
          Effect.mapError((e) => new ConnectionUnusable({ connectionId, status: row.status, message: e.message }))
        )
        const refreshed = yield* resolved.adapter.refresh({
          credentials: resolved.credentials,
          endpoints: resolved.endpoints,
          tokens
        }).pipe(Effect.provideService(HttpClient.HttpClient, httpClient), Effect.either)
        if (refreshed._tag === "Left") {
          if (isInvalidGrant(refreshed.left)) {
            yield* events.markReauthorize(
              connectionId,
              "The provider refused the refresh token (invalid_grant): the user must connect again"
            )
            yield* Effect.logWarning("Provider refused the refresh token; the connection needs reauthorization").pipe(
              Effect.annotateLogs({ connectionId, provider: row.provider })
            )
            // Returned, not failed: the status change must commit with the transaction.
            return { reauthorize: true } as const
          }
          return yield* refreshed.left
        }
        yield* storeTokens(connectionId, refreshed.right)
        return refreshed.right
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die),
        Effect.flatMap((result) =>
          "reauthorize" in result
            ? Effect.fail(
              new ConnectionUnusable({
                connectionId,
                status: "Reauthorize",
                message: "the provider refused the refresh token; the user must connect again"
              })
            )
            : Effect.succeed(result)
        ),
        // A failed refresh other than invalid_grant rolls back: the old tokens stay, nothing is lost.
        Effect.withSpan("ConnectionTokens.fresh")
      )

    return { fresh, stored, storeTokens, openTokens } as const
  }),
  dependencies: [ConnectionsRepo.Default, ConnectionEvents.Default]
}) {}

export { ProviderError }
