/**
 * `pulsebridge operators`: the people who may log in to the admin portal. `create` (an admin unless `--role
 * viewer`) takes the password from stdin when one is piped in (`echo "$PW" | pulsebridge operators create
 * --email a@b.c`), and otherwise prints a one-time setup link (valid 24 hours) on which the operator chooses
 * one; `list`; `disable`, which ends the operator's sessions at once, and `enable`; `set-role`;
 * `reset-password`, which prints a new setup link and ends the operator's sessions; `reset-2fa`, which turns
 * its second factor off. The last active admin is never demoted or disabled. Changes are audited as made by
 * the CLI.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { BadRequest } from "@pulsebridge/domain"
import { OperatorEmail, OperatorPassword } from "@pulsebridge/portal/api/Session"
import type { OperatorRow } from "@pulsebridge/server"
import { Operators, ServerBases, setupLinkValidity } from "@pulsebridge/server"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { printResult } from "../Output.js"
import { json } from "./Options.js"
import { cli, CommandStdin, withServices } from "./Runtime.js"

const email = Options.text("email").pipe(Options.withDescription("The operator's email address"))
const role = Options.choice("role", ["admin", "viewer"]).pipe(
  Options.withDescription("admin: changes anything; viewer: reads everything, changes nothing")
)

const operatorJson = (operator: OperatorRow) => ({
  id: operator.id,
  email: operator.email,
  status: operator.status,
  role: operator.role,
  secondFactor: operator.secondFactor,
  createdAt: operator.createdAt.toISOString(),
  lastLoginAt: operator.lastLoginAt === null ? null : operator.lastLoginAt.toISOString()
})

const decode = <A>(schema: Schema.Schema<A, string>, option: string, value: string, secret = false) =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError((error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      const message = issue?.message ?? "is invalid"
      // A refused password is still a secret (or a mistyped one): the message says what is wrong, not what was given.
      return new BadRequest({ message: `${option}: ${secret ? message.replace(/,\s*actual[\s\S]*$/, "") : message}` })
    })
  )

const setupLinkOf = (token: string, at: Date) =>
  Effect.gen(function*() {
    const bases = yield* Effect.provide(ServerBases, ServerBases.FromConfig)
    return {
      setupUrl: `${bases.publicBase}/portal/setup#${token}`,
      setupExpiresAt: new Date(at.getTime() + Duration.toMillis(setupLinkValidity)).toISOString()
    }
  })

const operatorsCreate = Command.make("create", {
  email,
  role: role.pipe(Options.withDefault("admin" as const)),
  json
}, ({ email, json, role }) =>
  Effect.gen(function*() {
    const address = yield* decode(OperatorEmail, "--email", email)
    const piped = yield* Effect.flatMap(CommandStdin, (stdin) => stdin)
    const password = piped === ""
      ? undefined
      : Redacted.make(yield* decode(OperatorPassword, "password (stdin)", piped, true))
    const created = yield* Effect.flatMap(Operators, (operators) => operators.create(address, password, cli, role))
    const bases = yield* Effect.provide(ServerBases, ServerBases.FromConfig)
    const setupUrl = created.setupToken === null ? null : `${bases.publicBase}/portal/setup#${created.setupToken}`
    const expiresAt = created.setupToken === null
      ? null
      : new Date(created.operator.createdAt.getTime() + Duration.toMillis(setupLinkValidity)).toISOString()
    yield* printResult(
      json,
      { operator: operatorJson(created.operator), setupUrl, setupExpiresAt: expiresAt },
      () =>
        setupUrl === null
          ? `Created operator ${created.operator.email} (${created.operator.id}) with the password given.`
          : [
            `Created operator ${created.operator.email} (${created.operator.id}) without a password.`,
            `Send this one-time setup link (valid until ${expiresAt}); it is shown only this once:`,
            `  ${setupUrl}`
          ].join("\n")
    )
  }).pipe(withServices(json))).pipe(
    Command.withDescription(
      "Create a portal operator: the password is read from stdin when piped, else a one-time setup link is printed"
    )
  )

const operatorsList = Command.make("list", { json }, ({ json }) =>
  Effect.gen(function*() {
    const operators = yield* Effect.flatMap(Operators, (operators) => operators.list)
    yield* printResult(
      json,
      { operators: operators.map(operatorJson) },
      () =>
        operators.length === 0
          ? "No operators."
          : operators.map((operator) =>
            [
              operator.id,
              operator.email,
              operator.status,
              operator.role,
              operator.secondFactor ? "second factor on" : "second factor off",
              `created ${operator.createdAt.toISOString()}`,
              operator.lastLoginAt === null ? "never logged in" : `last login ${operator.lastLoginAt.toISOString()}`
            ].join("  ")
          ).join("\n")
    )
  }).pipe(withServices(json))).pipe(Command.withDescription("List the portal's operators"))

const operatorsDisable = Command.make("disable", { email, json }, ({ email, json }) =>
  Effect.gen(function*() {
    const disabled = yield* Effect.flatMap(Operators, (operators) => operators.disable({ email }, cli))
    yield* printResult(
      json,
      { operator: operatorJson(disabled.operator), sessionsEnded: disabled.sessionsEnded },
      () => `Disabled operator ${disabled.operator.email}; ended ${disabled.sessionsEnded} session(s).`
    )
  }).pipe(withServices(json))).pipe(
    Command.withDescription("Disable a portal operator and end its sessions")
  )

const operatorsEnable = Command.make("enable", { email, json }, ({ email, json }) =>
  Effect.gen(function*() {
    const enabled = yield* Effect.flatMap(Operators, (operators) => operators.enable({ email }, cli))
    yield* printResult(
      json,
      { operator: operatorJson(enabled.operator) },
      () => `Enabled operator ${enabled.operator.email}: it logs in with the password it had.`
    )
  }).pipe(withServices(json))).pipe(Command.withDescription("Let a disabled portal operator log in again"))

const operatorsSetRole = Command.make(
  "set-role",
  { email, role, json },
  ({ email, json, role }) =>
    Effect.gen(function*() {
      const done = yield* Effect.flatMap(Operators, (operators) => operators.setRole({ email }, role, cli))
      yield* printResult(
        json,
        { operator: operatorJson(done.operator) },
        () => `Operator ${done.operator.email} is now ${role === "admin" ? "an admin" : "a viewer"}.`
      )
    }).pipe(withServices(json))
).pipe(
  Command.withDescription("Make a portal operator an admin or a viewer (never the last active admin a viewer)")
)

const operatorsResetPassword = Command.make(
  "reset-password",
  { email, json },
  ({ email, json }) =>
    Effect.gen(function*() {
      const done = yield* Effect.flatMap(Operators, (operators) => operators.resetPassword({ email }, cli))
      const link = yield* setupLinkOf(done.setupToken, new Date())
      yield* printResult(
        json,
        { operator: operatorJson(done.operator), ...link, sessionsEnded: done.sessionsEnded },
        () =>
          [
            `Reset the password of ${done.operator.email}; ended ${done.sessionsEnded} session(s).`,
            `Send this one-time setup link (valid until ${link.setupExpiresAt}); it is shown only this once:`,
            `  ${link.setupUrl}`
          ].join("\n")
      )
    }).pipe(withServices(json))
).pipe(
  Command.withDescription(
    "Forget a portal operator's password, end its sessions, and print a one-time setup link to choose another"
  )
)

const operatorsResetSecondFactor = Command.make(
  "reset-2fa",
  { email, json },
  ({ email, json }) =>
    Effect.gen(function*() {
      const done = yield* Effect.flatMap(Operators, (operators) => operators.resetSecondFactor({ email }, cli))
      yield* printResult(
        json,
        { operator: operatorJson(done.operator) },
        () => `Turned off the second factor of ${done.operator.email}; its recovery codes no longer work.`
      )
    }).pipe(withServices(json))
).pipe(
  Command.withDescription("Turn off a portal operator's second factor (TOTP) and its recovery codes")
)

export const operators = Command.make("operators").pipe(
  Command.withDescription("Manage the admin portal's operators"),
  Command.withSubcommands([
    operatorsCreate,
    operatorsList,
    operatorsDisable,
    operatorsEnable,
    operatorsSetRole,
    operatorsResetPassword,
    operatorsResetSecondFactor
  ])
)
