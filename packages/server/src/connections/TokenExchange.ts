/**
 * The move of OAuth 1.0a connections to OAuth 2.0 without the user: once an app's credentials at
 * a provider are OAuth 2.0 ones whose adapter can exchange tokens (Garmin), every Active connection
 * of that app still holding OAuth 1.0a tokens (a token secret) has them exchanged for an OAuth 2.0
 * pair, stored in place; the connection then syncs and refreshes with the new tokens.
 *
 * Durable by construction: what is left to do is in the database (connections with a token secret),
 * so the job is a due check, run when the server starts and every hour (`TokenExchangeLive`, a
 * `ClusterCron`: one run per tick across the deployment) and on demand by the operator
 * (`pulsebridge token-exchange`). Each connection is exchanged inside a transaction holding its row
 * lock and checked again under it, so two runs never exchange one connection twice, and a crash
 * before the commit leaves the OAuth 1.0a tokens, still valid, for the next run.
 *
 * A provider answer that the grant is gone (`isAccessLost`) marks the connection `Reauthorize` with
 * the reason (and its `connection.updated`, in the same transaction); any other failure leaves it
 * as it was for the next run. Tokens are never logged.
 */
import * as ClusterCron from "@effect/cluster/ClusterCron"
import * as HttpClient from "@effect/platform/HttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { AppId, Provider } from "@pulsebridge/domain"
import { isAccessLost } from "@pulsebridge/providers"
import * as Cron from "effect/Cron"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { traced } from "../platform/Traced.js"
import { ConnectionEvents } from "./ConnectionEvents.js"
import { ConnectionsRepo } from "./ConnectionsRepo.js"
import { ConnectionTokens } from "./ConnectionTokens.js"
import type { ResolvedProvider } from "./ProviderAccess.js"
import { ProviderAccess } from "./ProviderAccess.js"

/** What became of one connection. */
export interface ExchangeResult {
  readonly connectionId: string
  readonly appId: string
  readonly provider: string
  readonly providerUserId: string
  readonly outcome: "migrated" | "failed" | "skipped"
  /** Why it failed or was skipped; null when migrated. */
  readonly reason: string | null
}

export class TokenExchange extends Effect.Service<TokenExchange>()("@pulsebridge/server/TokenExchange", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ConnectionsRepo
    const tokens = yield* ConnectionTokens
    const events = yield* ConnectionEvents
    const access = yield* ProviderAccess
    const httpClient = yield* HttpClient.HttpClient

    /** One connection, under its row lock: exchanged, or why not. */
    const exchangeOne = (connectionId: string, resolved: ResolvedProvider) =>
      Effect.gen(function*() {
        const row = yield* repo.lockTokens(connectionId)
        if (row._tag === "None" || row.value.status !== "Active") {
          return { outcome: "skipped", reason: "the connection is no longer active" } as const
        }
        if (row.value.tokenSecretSealed === null) {
          return { outcome: "skipped", reason: "the connection already holds OAuth 2.0 tokens" } as const
        }
        const migrate = resolved.adapter.migrateTokens
        if (migrate === undefined) {
          return { outcome: "skipped", reason: "the provider offers no token exchange" } as const
        }
        const current = yield* tokens.openTokens(row.value)
        const exchanged = yield* migrate({
          credentials: resolved.credentials,
          endpoints: resolved.endpoints,
          tokens: current
        }).pipe(Effect.provideService(HttpClient.HttpClient, httpClient), Effect.either)
        if (exchanged._tag === "Left") {
          const error = exchanged.left
          if (isAccessLost(error)) {
            // Committed with the transaction: the grant is gone, the user must connect again.
            yield* events.markReauthorize(connectionId, error.message)
          }
          return { outcome: "failed", reason: error.message } as const
        }
        yield* tokens.storeTokens(connectionId, exchanged.right)
        return { outcome: "migrated", reason: null } as const
      }).pipe(sql.withTransaction, Effect.orDie)

    /**
     * Exchanges the tokens of every Active connection still holding OAuth 1.0a tokens (of one app,
     * or of all) whose app's credentials allow it, one connection at a time, and says what became
     * of each. Connections of apps whose credentials are still OAuth 1.0a ones are reported skipped.
     */
    const run = traced("TokenExchange.run")(function*(options: { readonly appId?: AppId | undefined } = {}) {
      const candidates = yield* repo.holdingOAuth1Tokens(options.appId)
      const resolvedBy = new Map<string, ResolvedProvider | string>()
      const results: Array<ExchangeResult> = []
      for (const candidate of candidates) {
        const key = `${candidate.appId} ${candidate.provider}`
        let resolved = resolvedBy.get(key)
        if (resolved === undefined) {
          resolved = yield* access.resolve(candidate.appId, candidate.provider as Provider).pipe(
            Effect.map((found): ResolvedProvider | string =>
              found.adapter.authType !== "OAuth2" || found.adapter.migrateTokens === undefined
                ? `the app's ${candidate.provider} credentials are not OAuth 2.0 ones that can exchange tokens`
                : found
            ),
            Effect.catchAll((error) => Effect.succeed(error.message))
          )
          resolvedBy.set(key, resolved)
        }
        const base = {
          connectionId: candidate.id,
          appId: candidate.appId,
          provider: candidate.provider,
          providerUserId: candidate.providerUserId
        }
        if (typeof resolved === "string") {
          results.push({ ...base, outcome: "skipped", reason: resolved })
          continue
        }
        const result = yield* exchangeOne(candidate.id, resolved)
        results.push({ ...base, ...result })
        yield* (result.outcome === "failed" ? Effect.logWarning : Effect.logInfo)("Token exchange").pipe(
          Effect.annotateLogs({
            connectionId: candidate.id,
            provider: candidate.provider,
            outcome: result.outcome,
            ...(result.reason === null ? {} : { reason: result.reason })
          })
        )
      }
      return results
    })

    /** The due check of the periodic job: like `run`, logging only a summary. */
    const runDue = run().pipe(
      Effect.tap((results) => {
        const migrated = results.filter((r) => r.outcome === "migrated").length
        const failed = results.filter((r) => r.outcome === "failed").length
        return migrated + failed === 0
          ? Effect.void
          : Effect.logInfo("Token exchange run").pipe(Effect.annotateLogs({ migrated, failed }))
      }),
      Effect.asVoid,
      Effect.catchAllCause((cause) => Effect.logWarning("Token exchange run failed", cause))
    )

    return { run, runDue } as const
  }),
  dependencies: [ConnectionEvents.Default]
}) {}

/**
 * The exchange as a job of the workers: at start (forked, so start-up does not wait on providers)
 * and every hour at minute 20, one run across the deployment.
 */
export const TokenExchangeLive = Layer.mergeAll(
  ClusterCron.make({
    name: "TokenExchange",
    cron: Cron.unsafeParse("20 * * * *"),
    execute: Effect.flatMap(TokenExchange, (exchange) => exchange.runDue)
  }),
  Layer.scopedDiscard(Effect.flatMap(TokenExchange, (exchange) => Effect.forkScoped(exchange.runDue)))
)

/** The operator's report of a run: one line per connection, then the counts. */
export const describeExchange = (results: ReadonlyArray<ExchangeResult>): string => {
  if (results.length === 0) return "No connection holds OAuth 1.0a tokens: nothing to exchange."
  const lines = results.map((r) =>
    `${r.connectionId}  ${r.provider}  user ${r.providerUserId}  ${r.outcome}${
      r.reason === null ? "" : `: ${r.reason}`
    }`
  )
  const count = (outcome: ExchangeResult["outcome"]) => results.filter((r) => r.outcome === outcome).length
  lines.push(`${count("migrated")} migrated, ${count("failed")} failed, ${count("skipped")} skipped.`)
  return lines.join("\n")
}
