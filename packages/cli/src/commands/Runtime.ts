/**
 * How a command body runs: over the server's own services and database (attached to a running server's embedded
 * database when one holds DATA_DIR), with quiet logs and failures printed once; what a command reads as piped input;
 * the app of `--app`, checked before the users service trusts it; the server's certificate, for commands that call
 * providers (its own sandbox simulators included); and who the audit log names as the author of a command's changes.
 */
import { NotFound } from "@pulsebridge/domain"
import { ProviderRegistry } from "@pulsebridge/providers"
import type { ProviderCredentials, Quarantine, Users } from "@pulsebridge/server"
import { Apps, cliActor, DatabaseLive, DataLive, ServerConfig } from "@pulsebridge/server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as os from "node:os"
import { withContractErrors } from "../ContractErrors.js"
import { quietLogs, reportFailure } from "../Output.js"

/** The database a command opens: the configured one, or the embedded one of DATA_DIR (attached to its holder). */
const openedDatabase = DatabaseLive({ attach: true })

type DatabaseLayer = Layer.Layer<Layer.Layer.Success<typeof openedDatabase>, unknown, ServerConfig>

/**
 * Where a command's database comes from: by default each command opens it (`openedDatabase`). A caller that runs
 * many commands in one process (the CLI's tests) may hand them one it holds open instead.
 */
export class CommandDatabase extends Context.Reference<CommandDatabase>()("@pulsebridge/cli/CommandDatabase", {
  defaultValue: (): DatabaseLayer => openedDatabase
}) {}

/** Everything piped to the process's stdin (nothing when stdin is a terminal), without the line end `echo` adds. */
const processStdin = Effect.async<string>((resume) => {
  if (process.stdin.isTTY === true) return resume(Effect.succeed(""))
  const chunks: Array<Buffer> = []
  const onData = (chunk: Buffer) => chunks.push(chunk)
  const onEnd = () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "")))
  process.stdin.on("data", onData)
  process.stdin.once("end", onEnd)
  process.stdin.once("error", () => resume(Effect.succeed("")))
  return Effect.sync(() => {
    process.stdin.off("data", onData)
    process.stdin.off("end", onEnd)
  })
})

/**
 * What a command reads as piped input (the password of `operators create`): by default the process's stdin. A
 * caller that runs commands in its own process (the CLI's tests) hands them the text instead, as a pipe would.
 */
export class CommandStdin extends Context.Reference<CommandStdin>()("@pulsebridge/cli/CommandStdin", {
  defaultValue: (): Effect.Effect<string> => processStdin
}) {}

const servicesOver = (database: DatabaseLayer) =>
  DataLive.pipe(
    Layer.provideMerge(ProviderRegistry.Default),
    Layer.provideMerge(database),
    Layer.provideMerge(ServerConfig.Default)
  )

/** Runs a command body over the services, with its output rules: quiet logs, and failures printed once. */
export const withServices = (json: boolean) =>
<A, E>(
  effect: Effect.Effect<
    A,
    E,
    Apps | Users | ProviderCredentials | Quarantine | Layer.Layer.Success<ReturnType<typeof servicesOver>>
  >
) =>
  Effect.flatMap(CommandDatabase, (database) => effect.pipe(withContractErrors, Effect.provide(servicesOver(database))))
    .pipe(quietLogs, reportFailure(json))

/** The account running the command, when the system names one (a container's user may have no name). */
const osUser = (): string | null => {
  try {
    return os.userInfo().username
  } catch {
    return null
  }
}

/** The author of the command's changes in the audit log: the CLI, with the OS user that ran it. */
export const cli = cliActor(osUser())

/** The app of `--app`; the users service trusts its app id, so an unknown one is refused here. */
export const requireApp = (id: string) =>
  Effect.flatMap(Apps, (apps) => apps.get(id)).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(new NotFound({ message: `no app with id ${id}` })),
      onSome: (app) => Effect.succeed(app.id)
    }))
  )
