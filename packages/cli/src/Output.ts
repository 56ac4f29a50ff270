/**
 * What the CLI prints. A result goes to stdout as text, or as exactly one JSON object with `--json`; a failure
 * goes to stderr as one line (and, with `--json`, also to stdout as `{"error": {"_tag", "message"}}`), never
 * with a stack trace or a credential in it.
 */
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"

/** A failure whose message has been printed already; all that is left is the exit code. */
export class Reported extends Data.TaggedError("Reported")<{}> {}

export interface ErrorReport {
  readonly _tag: string
  readonly message: string
}

// Messages can quote driver errors and user input; a secret that slipped into one must not reach a terminal or
// a CI log, and a multi-line driver message must not break the one-line contract.
export const scrub = (text: string): string =>
  text
    .replace(/(pb_(?:sk|ut)_)[A-Za-z0-9_-]+/g, "$1***")
    .replace(/(\/\/[^:/@\s]*:)[^@\s]*@/g, "$1***@")
    .replace(/\s*\n\s*/g, " ")
    .trim()

const messageOf = (u: unknown): string | undefined =>
  typeof u === "object" && u !== null && typeof (u as { message?: unknown }).message === "string"
    ? (u as { message: string }).message
    : undefined

const tagOf = (u: unknown): string | undefined =>
  typeof u === "object" && u !== null && typeof (u as { _tag?: unknown })._tag === "string"
    ? (u as { _tag: string })._tag
    : undefined

/** The tag and message shown for an error of any kind. */
export const describe = (error: unknown): ErrorReport => {
  if (ConfigError.isConfigError(error)) {
    return { _tag: "ConfigError", message: `invalid configuration: ${String(error)}` }
  }
  const tag = tagOf(error)
  const message = messageOf(error)
  if (tag === "SqlError") {
    // The SqlError message is generic ("Failed to connect"); the driver's cause says what actually went wrong.
    const detail = messageOf((error as { cause?: unknown }).cause)
    return {
      _tag: tag,
      message: `database error: ${message ?? "unknown"}${detail === undefined || detail === "" ? "" : ` (${detail})`}`
    }
  }
  if (tag !== undefined && message !== undefined) return { _tag: tag, message }
  if (error instanceof Error) return { _tag: "InternalError", message: error.message }
  return { _tag: "InternalError", message: String(error) }
}

export const describeCause = (cause: Cause.Cause<unknown>): ErrorReport => {
  const report = Option.match(Cause.failureOption(cause), {
    onSome: describe,
    onNone: () =>
      Option.match(Cause.dieOption(cause), {
        onSome: describe,
        onNone: () => ({ _tag: "InternalError", message: Cause.pretty(cause).split("\n")[0] ?? "unknown failure" })
      })
  })
  return { _tag: report._tag, message: scrub(report.message) }
}

export const printJson = (value: unknown) => Console.log(JSON.stringify(value))

/** The result of a command: `value` as JSON with `--json`, else the text. */
export const printResult = (json: boolean, value: unknown, text: () => string) =>
  json ? printJson(value) : Console.log(text())

export const printError = (json: boolean, report: ErrorReport) =>
  Effect.zipRight(
    Console.error(`error: ${report.message}`),
    json ? printJson({ error: report }) : Effect.void
  )

/** Prints any failure or defect of `effect` and replaces it with `Reported`; interruption stays interruption. */
export const reportFailure = (json: boolean) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchAllCause(effect, (cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.interrupt
      : Effect.zipRight(printError(json, describeCause(cause)), Effect.fail(new Reported())))

const stderrLogger = Logger.prettyLogger({ stderr: true, colors: process.stderr.isTTY === true })

/**
 * stdout belongs to the result, so logs (of migrations, the pool, ...) go to stderr, and only warnings and worse
 * unless `--log-level` asked for another level: an operator running a one-shot command wants its answer, not the
 * start-up chatter.
 */
export const quietLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(FiberRef.get(FiberRef.currentMinimumLogLevel), (level) =>
    effect.pipe(
      Effect.locally(FiberRef.currentLoggers, HashSet.make(stderrLogger)),
      Logger.withMinimumLogLevel(LogLevel.Info === level ? LogLevel.Warning : level)
    ))

/**
 * Sends what `effect` writes through the Effect `Console` (`Console.log`, and the loggers, which write through it)
 * to stderr, for code whose text is not the command's result.
 */
export const consoleToStderr = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.consoleWith((console) =>
    Effect.withConsole(effect, {
      ...console,
      log: console.error,
      info: console.error,
      unsafe: { ...console.unsafe, log: console.unsafe.error, info: console.unsafe.error }
    })
  )
