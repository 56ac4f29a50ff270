/**
 * Token freshness: the one way to get a usable access token for a connection. A token close to
 * expiry is refreshed while the connection row is locked (`select ... for update`), and the
 * rotated pair is stored in that same transaction before anyone uses it, so two callers — in
 * this process or another — never present the same (single-use) refresh token twice. A refresh
 * the provider refuses (`invalid_grant`) moves the connection to `Reauthorize`.
 */
import { HttpClient } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import type { AppId, ConnectionId, Provider } from "@pulsebridge/domain"
import type { TokenSet } from "@pulsebridge/providers"
import { isInvalidGrant, ProviderError } from "@pulsebridge/providers"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { SecretBox } from "../platform/SecretBox.js"
import { ProviderAccess } from "./ProviderAccess.js"

/** Refresh when less than this is left of the access token's life. */
export const RefreshMarginMs = 5 * 60 * 1000

export class ConnectionUnusable extends Data.TaggedError("ConnectionUnusable")<{
  readonly connectionId: string
  readonly status: string
  readonly message: string
}> {}

interface TokenRow {
  readonly id: ConnectionId
  readonly appId: AppId
  readonly provider: Provider
  readonly status: string
  readonly accessTokenSealed: string | null
  readonly refreshTokenSealed: string | null
  readonly tokenSecretSealed: string | null
  readonly tokenExpiresAt: Date | null
  readonly scopes: string
  readonly updatedAt: Date
}

export class ConnectionTokens extends Effect.Service<ConnectionTokens>()("@pulsebridge/server/ConnectionTokens", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
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

    const tokenColumns = sql.literal(
      "id, app_id, provider, status, access_token_sealed, refresh_token_sealed, token_secret_sealed, " +
        "token_expires_at, scopes, updated_at"
    )

    const lockRow = (connectionId: string) =>
      sql<TokenRow>`select ${tokenColumns} from connections where id = ${connectionId} for update`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows[0])
      )

    /** The stored tokens as they are, without refreshing (e.g. to revoke a grant that no longer refreshes). */
    const stored = (connectionId: string) =>
      sql<TokenRow>`select ${tokenColumns} from connections where id = ${connectionId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => openTokens(rows[0]!))
      )

    const needsRefresh = (row: TokenRow, now: number) =>
      row.tokenExpiresAt !== null && row.refreshTokenSealed !== null &&
      row.tokenExpiresAt.getTime() - now < RefreshMarginMs

    /** Stores a token set on the connection (sealed). */
    const storeTokens = (connectionId: string, tokens: TokenSet) =>
      sql`
        update connections set
          access_token_sealed = ${box.seal(tokens.accessToken)},
          refresh_token_sealed = ${tokens.refreshToken === null ? null : box.seal(tokens.refreshToken)},
          token_secret_sealed = ${tokens.tokenSecret === null ? null : box.seal(tokens.tokenSecret)},
          token_expires_at = ${tokens.expiresAt},
          scopes = ${tokens.scopes},
          updated_at = clock_timestamp()
        where id = ${connectionId}
      `.pipe(Effect.orDie)

    /**
     * A usable token set for the connection, refreshed first when needed. `force` refreshes
     * even a token that looks fresh (after the provider said it expired early).
     */
    const fresh = (connectionId: string, options: { readonly force?: boolean } = {}) =>
      Effect.suspend(() => refreshIfNeeded(connectionId, options, Date.now()))

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
        if (!forced && !needsRefresh(row, Date.now())) {
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
            yield* sql`update connections set status = 'Reauthorize', updated_at = now() where id = ${connectionId}`
              .pipe(Effect.orDie)
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
  })
}) {}

export { ProviderError }
