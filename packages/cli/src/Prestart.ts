/**
 * The embedded database, started before the command's modules load: loading them takes most of a second, and
 * opening PGlite about as long again, so a command that works on the database starts it first (on a thread of its
 * own) and the database layer takes it over once it is built (`claimPrestarted` in the server's `Database.ts`).
 * Only for the operator commands that open the database (not `serve`), on the embedded database of `DATA_DIR` (no
 * `DATABASE_URL`), when no other process holds it (a command then attaches to that process's database, as it does
 * otherwise), and not for a command's help. Whatever is started and not taken over is closed when the command ends
 * (`closeUnclaimed`). Imports nothing but Node's own modules (through `EmbeddedThread` and `EnvVars`).
 */
import { prestartEmbedded } from "@pulsebridge/server/platform/EmbeddedThread"
import { EnvVars } from "@pulsebridge/server/platform/EnvVars"

/**
 * The commands whose every run opens the database. Not `serve`: it refuses a busy port, a production start without
 * its secret key and the like before it opens any database.
 */
const databaseCommands = new Set([
  "apps",
  "api-keys",
  "provider-credentials",
  "users",
  "webhook-endpoints",
  "operators",
  "audit",
  "quarantine",
  "migrate"
])

/** The default of `DATA_DIR`, as the server's configuration has it (`ServerConfig`). */
const defaultDataDir = "./.pulsebridge"

/** Starts the embedded database ahead when the command `args` (the process's arguments after the script) needs it. */
export const prestartFor = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): void => {
  if ((env[EnvVars.databaseUrl] ?? "") !== "") return
  if (!databaseCommands.has(args[0] ?? "")) return
  if (args.some((arg) => arg === "--help" || arg === "-h" || arg === "--wizard")) return
  const dataDir = env[EnvVars.dataDir] ?? defaultDataDir
  if (dataDir === "") return
  prestartEmbedded(dataDir)
}
