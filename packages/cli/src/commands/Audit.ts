/**
 * `pulsebridge audit list`: the audit log, newest first and a page at a time, as the portal's audit page
 * reads it (`GET /portal/api/audit`): every change made in the portal or with the CLI, and every failed
 * login or setup attempt.
 */
import { Command, Options } from "@effect/cli"
import { BadRequest } from "@pulsebridge/domain"
import { AuditPage } from "@pulsebridge/portal/api"
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

/** Who made the change, in a word: the operator, the CLI (and its OS user), or nobody known. */
const author = (event: typeof AuditPage.Encoded["data"][number]) => {
  if (event.operatorEmail !== null) return event.operatorEmail
  if (event.detail.via !== "cli") return "anonymous"
  return typeof event.detail.osUser === "string" ? `cli (${event.detail.osUser})` : "cli"
}

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
    json
  },
  (args) =>
    Effect.gen(function*() {
      const limit = yield* decodeInput(PageSize, Option.getOrElse(args.limit, () => 50))
      const page = yield* Effect.flatMap(Audit, (audit) => audit.page(Option.getOrUndefined(args.cursor), limit)).pipe(
        Effect.catchTag("BadCursor", (error) => Effect.fail(new BadRequest({ message: `--${error.message}` })))
      )
      const encoded = yield* Schema.encode(AuditPage)(new AuditPage(page)).pipe(Effect.orDie)
      yield* printResult(args.json, encoded, () =>
        [
          ...(encoded.data.length === 0 ? ["No events."] : encoded.data.map((event) =>
            [
              event.at,
              author(event),
              event.action,
              event.targetType === null ? "" : `${event.targetType} ${event.targetId ?? ""}`,
              event.appId === null ? "" : `app ${event.appId}`
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
