/**
 * The entry point of `pulsebridge`: starts the embedded database ahead when the command needs it (`Prestart.ts`),
 * then loads the command's modules and runs it (`Run.ts`), so that the two overlap.
 */
import { prestartFor } from "./Prestart.js"

// A reader that stops early (`pulsebridge openapi --json | head`) closes the pipe: the rest of the output has
// nowhere to go, which is no failure of the command. Without a listener Node ends the process with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0)
    throw error
  })
}

prestartFor(process.argv.slice(2), process.env)
await import("./Run.js")
