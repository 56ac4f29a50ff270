/**
 * `pulsebridge mcp`: the MCP server over stdio for one user, the one whose token is in
 * `PULSEBRIDGE_USER_TOKEN` (or `--user-token`, which other users of the machine can see in its process
 * list). It reads the server's own database, as every command does, and offers the same read-only tools as
 * the server's `/mcp`.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Unauthorized } from "@pulsebridge/domain"
import { Authentication, isWellFormed, UserTokenPrefix } from "@pulsebridge/server"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { withServices } from "./Runtime.js"

export const mcp = Command.make(
  "mcp",
  {
    userToken: Options.redacted("user-token").pipe(
      Options.withFallbackConfig(Config.redacted("PULSEBRIDGE_USER_TOKEN")),
      Options.withDescription("The user's token (pb_ut_...); default: the PULSEBRIDGE_USER_TOKEN environment variable")
    )
  },
  (input) =>
    Effect.gen(function*() {
      const token = Redacted.value(input.userToken)
      const authentication = yield* Authentication
      const user = isWellFormed(token, UserTokenPrefix) ? authentication.userToken(token) : Effect.succeedNone
      if (Option.isNone(yield* user)) {
        return yield* new Unauthorized({ message: "Invalid or revoked user token, or the user was deleted" })
      }
      // Loaded here, so that the other commands do not load the SDK.
      const { serveStdio } = yield* Effect.promise(() => import("@pulsebridge/server/mcp/Stdio"))
      yield* serveStdio(user.pipe(Effect.orDie))
    }).pipe(withServices(false))
).pipe(
  Command.withDescription(
    "Serve one user's data to an AI assistant over MCP (stdio): read-only tools for connections, activity, " +
      "load, glucose summaries, the journal, meal responses, scores and coverage"
  )
)
