/**
 * `pulsebridge migrate`: apply the database migrations (what the server also does when it starts).
 */
import * as Command from "@effect/cli/Command"
import { DatabaseLive, ServerConfig } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { printResult, quietLogs, reportFailure } from "../Output.js"
import { json } from "./Options.js"

export const migrate = Command.make(
  "migrate",
  { json },
  ({ json }) =>
    printResult(json, { migrated: true }, () => "The database is migrated.").pipe(
      Effect.provide(DatabaseLive({ attach: true }).pipe(Layer.provide(ServerConfig.Default))),
      quietLogs,
      reportFailure(json)
    )
).pipe(Command.withDescription("Apply the database migrations"))
