/**
 * Every statement on the `operators` and `operator_sessions` tables. Emails are matched in any case
 * (a unique index on `lower(email)`); sessions are found by the hash of their token, together with
 * their operator, in one statement per request.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { OperatorId, OperatorRole, OperatorStatus } from "@pulsebridge/portal/api"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export const OperatorRow = Schema.Struct({
  id: OperatorId,
  email: Schema.String,
  status: OperatorStatus,
  role: OperatorRole,
  secondFactor: Schema.Boolean,
  createdAt: Schema.DateFromSelf,
  lastLoginAt: Schema.NullOr(Schema.DateFromSelf)
})
export type OperatorRow = typeof OperatorRow.Type

const OperatorWithHash = Schema.Struct({ ...OperatorRow.fields, passwordHash: Schema.NullOr(Schema.String) })

/** A live-looking session and its operator, as the middleware checks it. */
export const SessionRow = Schema.Struct({
  id: Schema.String,
  operatorId: OperatorId,
  email: Schema.String,
  status: OperatorStatus,
  role: OperatorRole,
  secondFactor: Schema.Boolean,
  secondFactorRequired: Schema.Boolean,
  csrfTokenSealed: Schema.String,
  lastSeenAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf
})
export type SessionRow = typeof SessionRow.Type

export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", { email: Schema.String }) {
  override get message() {
    return `an operator with the email ${this.email} exists already`
  }
}

export interface NewOperator {
  readonly id: string
  readonly email: string
  readonly passwordHash: string | null
  readonly setupTokenHash: string | null
  readonly setupExpiresAt: Date | null
  readonly role: OperatorRole
  readonly createdAt: Date
}

const operatorColumns =
  "id, email, status, role, totp_enabled_at is not null as second_factor, created_at, last_login_at"

/** Whether the operator-wide setting requires a second factor, as a boolean expression. */
export const secondFactorRequiredSql =
  "coalesce((select (value)::text = 'true' from portal_settings where name = 'second_factor_required'), false)"

export class OperatorsRepo extends Effect.Service<OperatorsRepo>()("@pulsebridge/server/OperatorsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(operatorColumns)

    const insert = SqlSchema.single({
      Request: Schema.Struct({
        id: Schema.String,
        email: Schema.String,
        passwordHash: Schema.NullOr(Schema.String),
        setupTokenHash: Schema.NullOr(Schema.String),
        setupExpiresAt: Schema.NullOr(Schema.DateFromSelf),
        role: OperatorRole,
        createdAt: Schema.DateFromSelf
      }),
      Result: OperatorRow,
      execute: (row) =>
        sql`
          insert into operators (id, email, password_hash, setup_token_hash, setup_expires_at, role, created_at)
          values (${row.id}, ${row.email}, ${row.passwordHash}, ${row.setupTokenHash}, ${row.setupExpiresAt},
            ${row.role}, ${row.createdAt})
          returning ${columns}
        `
    })

    const findByEmail = SqlSchema.findOne({
      Request: Schema.String,
      Result: OperatorWithHash,
      execute: (email) => sql`select ${columns}, password_hash from operators where lower(email) = lower(${email})`
    })

    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: OperatorRow,
      execute: (id) => sql`select ${columns} from operators where id = ${id}`
    })

    const findByIdWithHash = SqlSchema.findOne({
      Request: Schema.String,
      Result: OperatorWithHash,
      execute: (id) => sql`select ${columns}, password_hash from operators where id = ${id}`
    })

    const update = (id: string, set: ReturnType<typeof sql.update>) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: OperatorRow,
        execute: () => sql`update operators set ${set} where id = ${id} returning ${columns}`
      })(undefined).pipe(Effect.orDie)

    const csrfOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ csrfTokenSealed: Schema.String }),
      execute: (id) => sql`select csrf_token_sealed from operator_sessions where id = ${id}`
    })

    const list = SqlSchema.findAll({
      Request: Schema.Void,
      Result: OperatorRow,
      execute: () => sql`select ${columns} from operators order by created_at, id`
    })

    const findBySetupToken = SqlSchema.findOne({
      Request: Schema.Struct({ tokenHash: Schema.String, now: Schema.DateFromSelf }),
      Result: OperatorRow,
      execute: ({ now, tokenHash }) =>
        sql`
          select ${columns} from operators
          where setup_token_hash = ${tokenHash} and setup_expires_at > ${now} and status = 'Active'
        `
    })

    const completeSetup = SqlSchema.findOne({
      Request: Schema.Struct({ tokenHash: Schema.String, passwordHash: Schema.String, now: Schema.DateFromSelf }),
      Result: OperatorRow,
      execute: ({ now, passwordHash, tokenHash }) =>
        sql`
          update operators set password_hash = ${passwordHash}, setup_token_hash = null, setup_expires_at = null
          where setup_token_hash = ${tokenHash} and setup_expires_at > ${now} and status = 'Active'
          returning ${columns}
        `
    })

    const findSession = SqlSchema.findOne({
      Request: Schema.String,
      Result: SessionRow,
      execute: (tokenHash) =>
        sql`
          select s.id, s.operator_id, o.email, o.status, o.role, o.totp_enabled_at is not null as second_factor,
            ${sql.literal(secondFactorRequiredSql)} as second_factor_required, s.csrf_token_sealed, s.last_seen_at,
            s.expires_at
          from operator_sessions s join operators o on o.id = s.operator_id
          where s.token_hash = ${tokenHash}
        `
    })

    return {
      /** A new operator; `EmailTaken` when the email exists in any case. */
      insert: (row: NewOperator) =>
        insert(row).pipe(
          Effect.catchIf(
            (error) => (error as { cause?: { code?: unknown } }).cause?.code === "23505",
            () => Effect.fail(new EmailTaken({ email: row.email }))
          ),
          Effect.catchTag("ParseError", Effect.die),
          Effect.catchTag("NoSuchElementException", Effect.die),
          Effect.catchTag("SqlError", Effect.die)
        ),

      findByEmail: (email: string) => findByEmail(email).pipe(Effect.orDie),

      findById: (id: string) => findById(id).pipe(Effect.orDie),

      findByIdWithHash: (id: string) => findByIdWithHash(id).pipe(Effect.orDie),

      /** Writes some of an operator's columns; the operator as it is then, if it exists. */
      update: (id: string, set: Record<string, unknown>) => update(id, sql.update(set)),

      /**
       * The active admins' ids, their rows locked until the transaction ends: two concurrent demotions are
       * counted one after the other, so they cannot leave no admin.
       */
      lockActiveAdmins: sql<{ id: string }>`
        select id from operators where role = 'admin' and status = 'Active' order by id for update
      `.pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie),

      list: list(undefined).pipe(Effect.orDie),

      /** The sealed CSRF token of a session. */
      csrfOf: (sessionId: string) =>
        csrfOf(sessionId).pipe(Effect.map(Option.map((row) => row.csrfTokenSealed)), Effect.orDie),

      /** The operator whose setup token this is, while the token is still valid. */
      findBySetupToken: (tokenHash: string, now: Date) => findBySetupToken({ tokenHash, now }).pipe(Effect.orDie),

      /** Sets the password of the operator whose setup token this is, if the token is still valid; the token is spent. */
      completeSetup: (tokenHash: string, passwordHash: string, now: Date) =>
        completeSetup({ tokenHash, passwordHash, now }).pipe(Effect.orDie),

      recordLogin: (id: string, at: Date) =>
        sql`update operators set last_login_at = ${at} where id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      insertSession: (session: {
        readonly id: string
        readonly tokenHash: string
        readonly operatorId: string
        readonly csrfTokenSealed: string
        readonly now: Date
        readonly expiresAt: Date
      }) =>
        sql`
          insert into operator_sessions (id, token_hash, operator_id, csrf_token_sealed, created_at, last_seen_at,
            expires_at)
          values (${session.id}, ${session.tokenHash}, ${session.operatorId}, ${session.csrfTokenSealed},
            ${session.now}, ${session.now}, ${session.expiresAt})
        `.pipe(Effect.asVoid, Effect.orDie),

      findSession: (tokenHash: string) => findSession(tokenHash).pipe(Effect.orDie),

      touchSession: (id: string, at: Date) =>
        sql`update operator_sessions set last_seen_at = ${at} where id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      deleteSession: (id: string) =>
        sql`delete from operator_sessions where id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      /** Ends every session of the operator; how many there were. */
      deleteSessionsOf: (operatorId: string) =>
        sql<{ id: string }>`delete from operator_sessions where operator_id = ${operatorId} returning id`.pipe(
          Effect.map((rows) => rows.length),
          Effect.orDie
        ),

      deleteRecoveryCodes: (operatorId: string) =>
        sql`delete from operator_recovery_codes where operator_id = ${operatorId}`.pipe(Effect.asVoid, Effect.orDie),

      /** Ends every session of the operator but `keep`; how many there were. */
      deleteOtherSessionsOf: (operatorId: string, keep: string) =>
        sql<{ id: string }>`
          delete from operator_sessions where operator_id = ${operatorId} and id <> ${keep} returning id
        `.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      /** Sessions past either limit, removed now and then so the table does not grow. */
      deleteExpiredSessions: (now: Date, idleSince: Date) =>
        sql`delete from operator_sessions where expires_at <= ${now} or last_seen_at <= ${idleSince}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    } as const
  })
}) {}
