/**
 * Every statement on operators' second factor: the TOTP columns of `operators` (the secret and the pending
 * enrolment's, both sealed; the last time step accepted), `operator_recovery_codes` (hashed, each spent once),
 * `operator_login_challenges` (the pending logins between password and code, by the hash of their token), and the
 * `second_factor_required` row of `portal_settings`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const TotpRow = Schema.Struct({
  totpSecretSealed: Schema.NullOr(Schema.String),
  totpPendingSealed: Schema.NullOr(Schema.String)
})

const ChallengeRow = Schema.Struct({
  id: Schema.String,
  operatorId: Schema.String,
  email: Schema.String,
  failures: Schema.Int,
  expiresAt: Schema.DateFromSelf
})
export type ChallengeRow = typeof ChallengeRow.Type

export class SecondFactorRepo extends Effect.Service<SecondFactorRepo>()("@pulsebridge/server/SecondFactorRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const totpOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: TotpRow,
      execute: (id) => sql`select totp_secret_sealed, totp_pending_sealed from operators where id = ${id}`
    })

    const findChallenge = SqlSchema.findOne({
      Request: Schema.String,
      Result: ChallengeRow,
      execute: (tokenHash) =>
        sql`
          select c.id, c.operator_id, o.email, c.failures, c.expires_at
          from operator_login_challenges c join operators o on o.id = c.operator_id
          where c.token_hash = ${tokenHash}
        `
    })

    return {
      /** The operator's sealed TOTP secret and pending enrolment's secret. */
      totpOf: (operatorId: string) => totpOf(operatorId).pipe(Effect.orDie),

      setPending: (operatorId: string, sealed: string) =>
        sql`update operators set totp_pending_sealed = ${sealed} where id = ${operatorId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** The pending secret takes effect, with the step of the code that confirmed it. */
      enable: (operatorId: string, sealed: string, step: number, at: Date) =>
        sql`
          update operators set totp_secret_sealed = ${sealed}, totp_pending_sealed = null, totp_enabled_at = ${at},
            totp_last_step = ${step}
          where id = ${operatorId}
        `.pipe(Effect.asVoid, Effect.orDie),

      disable: (operatorId: string) =>
        sql`
          update operators set totp_secret_sealed = null, totp_pending_sealed = null, totp_enabled_at = null,
            totp_last_step = null
          where id = ${operatorId}
        `.pipe(Effect.asVoid, Effect.orDie),

      /**
       * Records `step` as the last one used, if it is later than the last: false when a code of this step (or a
       * later one) was accepted already, so that no code is accepted twice, even by two requests at once.
       */
      claimStep: (operatorId: string, step: number) =>
        sql<{ id: string }>`
          update operators set totp_last_step = ${step}
          where id = ${operatorId} and totp_secret_sealed is not null
            and (totp_last_step is null or totp_last_step < ${step})
          returning id
        `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      replaceRecoveryCodes: (operatorId: string, hashes: ReadonlyArray<string>) =>
        Effect.zipRight(
          sql`delete from operator_recovery_codes where operator_id = ${operatorId}`,
          hashes.length === 0 ?
            Effect.void :
            sql`insert into operator_recovery_codes ${
              sql.insert(hashes.map((codeHash) => ({ operatorId, codeHash, usedAt: null })))
            }`
        ).pipe(Effect.asVoid, Effect.orDie),

      /** Spends an unused recovery code of the operator; whether there was one. */
      spendRecoveryCode: (operatorId: string, codeHash: string, at: Date) =>
        sql<{ codeHash: string }>`
          update operator_recovery_codes set used_at = ${at}
          where operator_id = ${operatorId} and code_hash = ${codeHash} and used_at is null
          returning code_hash
        `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      insertChallenge: (row: {
        readonly id: string
        readonly tokenHash: string
        readonly operatorId: string
        readonly expiresAt: Date
      }) =>
        sql`
          insert into operator_login_challenges (id, token_hash, operator_id, failures, expires_at)
          values (${row.id}, ${row.tokenHash}, ${row.operatorId}, 0, ${row.expiresAt})
        `.pipe(Effect.asVoid, Effect.orDie),

      findChallenge: (tokenHash: string) => findChallenge(tokenHash).pipe(Effect.orDie),

      /** One more wrong code for the challenge; how many it has now. */
      failChallenge: (id: string) =>
        sql<{ failures: number }>`
          update operator_login_challenges set failures = failures + 1 where id = ${id} returning failures
        `.pipe(Effect.map((rows) => rows[0]?.failures ?? Number.MAX_SAFE_INTEGER), Effect.orDie),

      /** Removes the challenge; whether it was still there (only one request completes a login). */
      deleteChallenge: (id: string) =>
        sql<{ id: string }>`delete from operator_login_challenges where id = ${id} returning id`.pipe(
          Effect.map((rows) => rows.length === 1),
          Effect.orDie
        ),

      deleteExpiredChallenges: (now: Date) =>
        sql`delete from operator_login_challenges where expires_at <= ${now}`.pipe(Effect.asVoid, Effect.orDie),

      secondFactorRequired: sql<{ required: boolean }>`
        select (value)::text = 'true' as required from portal_settings where name = 'second_factor_required'
      `.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.required).pipe(Option.getOrElse(() => false))),
        Effect.orDie
      ),

      setSecondFactorRequired: (required: boolean, at: Date) =>
        sql`
          insert into portal_settings (name, value, updated_at)
          values ('second_factor_required', ${JSON.stringify(required)}::jsonb, ${at})
          on conflict (name) do update set value = excluded.value, updated_at = excluded.updated_at
        `.pipe(Effect.asVoid, Effect.orDie)
    } as const
  })
}) {}
