/**
 * `pulsebridge` over an argument list: the command tree run, and a failure reported once, as one line of text on
 * stderr or, with `--json`, one JSON object on stdout. The executable (`bin.ts`) runs it on the process's arguments
 * and turns its outcome into the exit code: 0 when it succeeds, 1 when it fails.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { run } from "./Cli.js"
import { describeCause, printError, printJson, Reported, scrub } from "./Output.js"

// Stripping the colour codes of the usage error keeps the JSON error message readable by a script.
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "")

/** Runs the command `argv` names (`argv` as `process.argv`: the runtime and the script first). */
export const main = (argv: ReadonlyArray<string>) => {
  const json = argv.includes("--json")
  return run(argv).pipe(
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
    })
  )
}
