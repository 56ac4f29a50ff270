/**
 * Runs the command of the process's arguments on Node (`Main.ts`) and turns its outcome into the exit code; then
 * closes an embedded database started ahead that the command did not take over (`Prestart.ts`).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { closeUnclaimed } from "@pulsebridge/server/platform/EmbeddedThread"
import * as Effect from "effect/Effect"
import { main } from "./Main.js"

// Errors are reported by `main`, once and on one line; the runtime's own report would add a stack trace. Without the
// runtime's pretty logger, `serve` logs in the format the server's own logging layer chooses.
NodeRuntime.runMain(
  main(process.argv).pipe(
    Effect.ensuring(Effect.promise(closeUnclaimed)),
    Effect.provide(NodeContext.layer)
  ),
  { disableErrorReporting: true, disablePrettyLogger: true }
)
