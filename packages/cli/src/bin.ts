/**
 * The entry point of `pulsebridge`: runs the command tree on Node and turns its outcome into the exit code.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { run } from "./Cli.js"
import { describeCause, printError, printJson, Reported, scrub } from "./Output.js"

const json = process.argv.includes("--json")

// Stripping the colour codes of the usage error keeps the JSON error message readable by a script.
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "")

const program = run(process.argv).pipe(
  Effect.tapErrorCause((cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.void
    const error = Cause.failureOption(cause)
    if (error._tag === "Some") {
      // A command's failure was printed by the command; a usage error was printed (as help) by @effect/cli.
      if (error.value instanceof Reported) return Effect.void
      if (ValidationError.isValidationError(error.value)) {
        const message = scrub(plain(HelpDoc.toAnsiText(error.value.error)))
        return json ? printJson({ error: { _tag: error.value._tag, message } }) : Effect.void
      }
    }
    return printError(json, describeCause(cause))
  }),
  Effect.provide(NodeContext.layer)
)

// Errors are reported above, once and on one line; the runtime's own report would add a stack trace. Without the
// runtime's pretty logger, `serve` logs in the format the server's own logging layer chooses.
NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
