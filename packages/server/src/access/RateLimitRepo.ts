/**
 * Every statement on `rate_limit_buckets`: taking tokens (one atomic statement, on the database's
 * clock, so that every API process sharing the database draws from the same buckets), charging a
 * failed authentication to its address, and pruning idle buckets. The take also looks the presented
 * credential up in the same statement when asked to (`lookup`), so that a request's bucket and its
 * credential cost one round trip together, both read at the same moment.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { RateLimit } from "../platform/ServerConfig.js"
import { liveKeyJson } from "./ApiKeysRepo.js"
import { activeUserJson } from "./UserTokensRepo.js"

/** The outcome of one attempt to take tokens. */
export const TakeResult = Schema.Struct({
  /** The tokens left after taking them; null when none was taken. */
  remaining: Schema.NullOr(Schema.Number),
  /** The bucket's level before the attempt (refilled to now); null for a bucket never used. */
  level: Schema.NullOr(Schema.Number),
  /** The level of the failure bucket that gates this request, when there is one and it exists. */
  gate: Schema.NullOr(Schema.Number),
  /**
   * What the lookup found, when one was asked for and the gate let it run: the credential's row as JSON
   * (see `liveKeyJson` and `activeUserJson`), or null for an unknown, revoked or otherwise dead credential.
   */
  credential: Schema.optional(Schema.NullOr(Schema.Unknown))
})
export type TakeResult = typeof TakeResult.Type

/** A credential to look up with the bucket: an API key or a user token, by the hash of its secret. */
export interface CredentialLookup {
  readonly kind: "key" | "token"
  readonly hash: string
}

export interface TakeRequest {
  readonly key: string
  readonly limit: RateLimit
  /** A bucket that must hold at least one token for this request to be let through (not drawn). */
  readonly gate?: { readonly key: string; readonly limit: RateLimit } | undefined
  /** How many tokens to take, all or none (default 1): the requests of a batch (see `RateLimiter`). */
  readonly count?: number | undefined
  readonly lookup?: CredentialLookup | undefined
}

export class RateLimitRepo extends Effect.Service<RateLimitRepo>()("@pulsebridge/server/RateLimitRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** A bucket's level now: its stored tokens plus the refill since `updated_at`, capped at the burst. */
    const level = (table: string, limit: RateLimit) =>
      sql`least(${limit.burst}::float8, ${sql.literal(table)}.tokens + greatest(0, extract(epoch from (now() - ${
        sql.literal(table)
      }.updated_at)))::float8 * ${limit.perSecond}::float8)`

    const lookupOf = (lookup: CredentialLookup | undefined): Statement.Fragment =>
      lookup === undefined
        ? sql`null::json`
        : sql`(${lookup.kind === "key" ? liveKeyJson(sql, lookup.hash) : activeUserJson(sql, lookup.hash)})`

    const take = SqlSchema.single({
      Request: Schema.Any as Schema.Schema<TakeRequest>,
      Result: TakeResult,
      execute: ({ count, gate, key, limit, lookup }) => {
        const gateLimit = gate?.limit ?? limit
        const n = Math.max(1, Math.floor(count ?? 1))
        // The CTEs `bucket` and `gate` read the snapshot before the insert: the level the bucket had.
        // The upsert itself re-reads the row it locks, so concurrent takes never overdraw a bucket.
        // The credential is looked up only when the address's failure bucket lets the request through.
        return sql`
          with bucket as (
            select ${level("g", limit)} as tokens from rate_limit_buckets g where g.key = ${key}
          ), gate as (
            select ${level("g", gateLimit)} as tokens from rate_limit_buckets g where g.key = ${gate?.key ?? null}
          ), taken as (
            insert into rate_limit_buckets as b (key, tokens, updated_at)
            select ${key}, ${limit.burst}::float8 - ${n}, now()
            where not exists (select 1 from gate where gate.tokens < 1) and ${n} <= ${limit.burst}::float8
            on conflict (key) do update
              set tokens = ${level("b", limit)} - ${n}, updated_at = greatest(b.updated_at, now())
              where ${level("b", limit)} >= ${n}
            returning b.tokens
          )
          select
            (select tokens from taken) as remaining,
            (select tokens from bucket) as level,
            (select tokens from gate) as gate,
            case when exists (select 1 from gate where gate.tokens < 1) then null else ${
          lookupOf(lookup)
        } end as credential
        `
      }
    })

    /** Takes a token if there is one, or leaves the bucket at zero. */
    const charge = (key: string, limit: RateLimit) =>
      sql`
        insert into rate_limit_buckets as b (key, tokens, updated_at)
        values (${key}, ${limit.burst}::float8 - 1, now())
        on conflict (key) do update
          set tokens = greatest(0, ${level("b", limit)} - 1), updated_at = greatest(b.updated_at, now())
      `.pipe(Effect.asVoid)

    /** Deletes buckets idle for `seconds`: by then they are full, the same as absent. */
    const prune = (seconds: number) =>
      sql`delete from rate_limit_buckets where updated_at < now() - make_interval(secs => ${seconds}::float8)`.pipe(
        Effect.asVoid
      )

    return { take, charge, prune } as const
  })
}) {}
