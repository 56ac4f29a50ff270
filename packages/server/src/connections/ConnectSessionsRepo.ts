/**
 * Every statement on the `connect_sessions` table. A session's state is stored only as a hash;
 * a session is claimed with one conditional update, so a replayed or racing callback finds it used.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AppId, Provider, UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const SessionRow = Schema.Struct({
  id: Schema.String,
  appId: AppId,
  userId: UserId,
  provider: Provider,
  redirectUrl: Schema.String,
  scopes: Schema.String,
  codeVerifierSealed: Schema.NullOr(Schema.String),
  requestToken: Schema.NullOr(Schema.String),
  requestTokenSecretSealed: Schema.NullOr(Schema.String),
  expiresAt: Schema.DateFromSelf,
  usedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type SessionRow = typeof SessionRow.Type

export interface NewSession {
  readonly id: string
  readonly appId: AppId
  readonly userId: UserId
  readonly provider: Provider
  readonly stateHash: string
  readonly requestToken: string | null
  readonly redirectUrl: string
  readonly scopes: string
  readonly codeVerifierSealed: string | null
  readonly requestTokenSecretSealed: string | null
  readonly expiresAt: Date
}

export class ConnectSessionsRepo extends Effect.Service<ConnectSessionsRepo>()(
  "@pulsebridge/server/ConnectSessionsRepo",
  {
    effect: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const columns = sql.literal(
        "id, app_id, user_id, provider, redirect_url, scopes, code_verifier_sealed, request_token, " +
          "request_token_secret_sealed, expires_at, used_at"
      )

      const findBy = SqlSchema.findOne({
        Request: Schema.Struct({ column: Schema.Literal("state_hash", "request_token"), value: Schema.String }),
        Result: SessionRow,
        execute: ({ column, value }) => sql`select ${columns} from connect_sessions where ${sql(column)} = ${value}`
      })

      const claim = SqlSchema.findAll({
        Request: Schema.Struct({ id: Schema.String, outcome: Schema.String }),
        Result: Schema.Struct({ id: Schema.String }),
        execute: ({ id, outcome }) =>
          sql`
            update connect_sessions set used_at = now(), outcome = ${outcome}
            where id = ${id} and used_at is null
            returning id
          `
      })

      return {
        insert: (session: NewSession) =>
          sql`
            insert into connect_sessions (
              id, app_id, user_id, provider, state_hash, request_token, redirect_url, scopes,
              code_verifier_sealed, request_token_secret_sealed, expires_at
            ) values (
              ${session.id}, ${session.appId}, ${session.userId}, ${session.provider}, ${session.stateHash},
              ${session.requestToken}, ${session.redirectUrl}, ${session.scopes}, ${session.codeVerifierSealed},
              ${session.requestTokenSecretSealed}, ${session.expiresAt}
            )
          `.pipe(Effect.asVoid, Effect.orDie),

        byStateHash: (stateHash: string) => findBy({ column: "state_hash", value: stateHash }).pipe(Effect.orDie),

        byRequestToken: (requestToken: string) =>
          findBy({ column: "request_token", value: requestToken }).pipe(Effect.orDie),

        /** Claims the session once; false when it was already used (a replay or a race). */
        claim: (id: string, outcome: string) =>
          claim({ id, outcome }).pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

        setOutcome: (id: string, outcome: string) =>
          sql`update connect_sessions set outcome = ${outcome} where id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
      } as const
    })
  }
) {}
