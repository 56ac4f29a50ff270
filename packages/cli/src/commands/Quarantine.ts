/**
 * `pulsebridge quarantine list`: the provider records that could not be read, newest first, with
 * the reason and the provider's raw JSON, for all connections, one app's or one connection's.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { BadRequest } from "@pulsebridge/domain"
import type { QuarantinedRow } from "@pulsebridge/server"
import { isUuid, Quarantine } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { printResult } from "../Output.js"
import { json } from "./Options.js"
import { withServices } from "./Runtime.js"

const uuidOption = (name: string, value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) =>
      isUuid(text)
        ? Effect.succeed(text.toLowerCase())
        : Effect.fail(new BadRequest({ message: `--${name} must be a UUID` }))
  })

const rowJson = (row: QuarantinedRow) => ({
  connectionId: row.connectionId,
  appId: row.appId,
  provider: row.provider,
  kind: row.kind,
  providerRecordId: row.providerRecordId,
  reason: row.reason,
  firstSeenAt: row.firstSeenAt.toISOString(),
  lastSeenAt: row.lastSeenAt.toISOString(),
  raw: row.rawJson
})

const rowText = (row: QuarantinedRow) =>
  [
    `${row.provider} ${row.kind} ${row.providerRecordId ?? "(no id)"} on connection ${row.connectionId}`,
    `  reason:   ${row.reason}`,
    `  seen:     ${row.firstSeenAt.toISOString()} .. ${row.lastSeenAt.toISOString()}`,
    `  raw JSON: ${row.rawJson.length > 500 ? `${row.rawJson.slice(0, 500)}...` : row.rawJson}`
  ].join("\n")

const quarantineList = Command.make(
  "list",
  {
    app: Options.text("app").pipe(Options.optional, Options.withDescription("Only this app's connections")),
    connection: Options.text("connection").pipe(Options.optional, Options.withDescription("Only this connection")),
    limit: Options.integer("limit").pipe(Options.withDefault(100), Options.withDescription("At most this many")),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const appId = yield* uuidOption("app", args.app)
      const connectionId = yield* uuidOption("connection", args.connection)
      if (args.limit < 1 || args.limit > 10_000) {
        return yield* new BadRequest({ message: "--limit must be between 1 and 10000" })
      }
      const rows = yield* Effect.flatMap(Quarantine, (q) => q.list({ appId, connectionId, limit: args.limit }))
      yield* printResult(
        args.json,
        rows.map(rowJson),
        () => rows.length === 0 ? "No quarantined records." : rows.map(rowText).join("\n")
      )
    }).pipe(withServices(args.json))
).pipe(Command.withDescription("List provider records that could not be read, with the reason and raw JSON"))

export const quarantine = Command.make("quarantine").pipe(
  Command.withDescription("Provider records held aside because they could not be read"),
  Command.withSubcommands([quarantineList])
)
