/**
 * The entry point of `pulsebridge`: starts the embedded database ahead when the command needs it (`Prestart.ts`),
 * then loads the command's modules and runs it (`Run.ts`), so that the two overlap.
 */
import { prestartFor } from "./Prestart.js"

prestartFor(process.argv.slice(2), process.env)
await import("./Run.js")
