/**
 * `pulsebridge audit list`: the audit log, newest first and a page at a time, as the portal's audit page
 * reads it (`GET /portal/api/audit`): every change made in the portal or with the CLI, and every failed
 * login or setup attempt.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { BadRequest } from "@pulsebridge/domain"
import { AuditFilters, AuditPage } from "@pulsebridge/portal/api/Operators"
import { Audit } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { printResult } from "../Output.js"
import { decodeInput, json } from "./Options.js"
import { withServices } from "./Runtime.js"

/** The limit, as the portal's audit route takes it. */
const PageSize = Schema.Int.pipe(
  Schema.between(1, 200, { message: () => "--limit must be an integer from 1 to 200" })
)

const auditList = Command.make(
  "list",
  {
    limit: Options.integer("limit").pipe(
      Options.optional,
      Options.withDescription("Events per page, 1 to 200 (default 50)")
    ),
    cursor: Options.text("cursor").pipe(
      Options.optional,
      Options.withDescription("The next cursor a previous page printed")
    ),
    actorType: Options.choice("actor-type", ["operator", "cli", "apiKey", "anonymous"]).pipe(
      Options.optional,
      Options.withDescription("Only the events of this kind of actor")
    ),
    operator: Options.text("operator").pipe(
      Options.optional,
      Options.withDescription("Only the events of the operator of this id")
    ),
    action: Options.text("action").pipe(Options.optional, Options.withDescription("Only this action, e.g. app.create")),
    app: Options.text("app").pipe(Options.optional, Options.withDescription("Only the events of the app of this id")),
    from: Options.text("from").pipe(
      Options.optional,
      Options.withDescription("Only events at or after this ISO 8601 instant (with its zone)")
    ),
    to: Options.text("to").pipe(
      Options.optional,
      Options.withDescription("Only events before this ISO 8601 instant (with its zone)")
    ),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const limit = yield* decodeInput(PageSize, Option.getOrElse(args.limit, () => 50))
      const filters = yield* decodeInput(AuditFilters, {
        ...Option.match(args.actorType, { onNone: () => ({}), onSome: (actorType) => ({ actorType }) }),
        ...Option.match(args.operator, { onNone: () => ({}), onSome: (operatorId) => ({ operatorId }) }),
        ...Option.match(args.action, { onNone: () => ({}), onSome: (action) => ({ action }) }),
        ...Option.match(args.app, { onNone: () => ({}), onSome: (appId) => ({ appId }) }),
        ...Option.match(args.from, { onNone: () => ({}), onSome: (from) => ({ from }) }),
        ...Option.match(args.to, { onNone: () => ({}), onSome: (to) => ({ to }) })
      })
      const page = yield* Effect.flatMap(
        Audit,
        (audit) => audit.page(Option.getOrUndefined(args.cursor), limit, filters)
      ).pipe(
        Effect.catchTags({
          BadCursor: (error) => Effect.fail(new BadRequest({ message: `--${error.message}` })),
          BadRange: (error) => Effect.fail(new BadRequest({ message: `--${error.message}` }))
        })
      )
      const encoded = yield* Schema.encode(AuditPage)(new AuditPage(page)).pipe(Effect.orDie)
      yield* printResult(args.json, encoded, () =>
        [
          ...(encoded.data.length === 0 ? ["No events."] : encoded.data.map((event) =>
            [
              event.at,
              event.actor.label,
              event.action,
              event.subject === null ? "" : event.subject.label,
              event.app === null ? "" : `app ${event.app.label}`,
              event.summary
            ].filter((cell) => cell !== "").join("  ")
          )),
          ...(encoded.nextCursor === null ? [] : ["", `Next page: --cursor ${encoded.nextCursor}`])
        ].join("\n"))
    }).pipe(withServices(args.json))
).pipe(
  Command.withDescription("List the audit log, newest first: changes in the portal and with the CLI, failed logins")
)

export const audit = Command.make("audit").pipe(
  Command.withDescription("Read the audit log"),
  Command.withSubcommands([auditList])
)
