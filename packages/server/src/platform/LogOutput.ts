/**
 * Where the server's log lines go: standard output (through the global `console`, as Effect's own loggers write),
 * one line per record, formatted exactly as `Logger.logFmt` or `Logger.json` format it, but written in batches.
 *
 * A server under load ends several requests in one turn of the event loop, and each writes its request line: one
 * write to standard output per line costs a system call each (about as much as formatting the line). Here the lines
 * of one turn are written together when the turn ends (`setImmediate`), in one call. A line therefore waits at most
 * for the rest of the turn that logged it, never for more work or a timer; a turn that logs a great deal writes
 * whenever its lines reach `flushAtChars`; and the lines still waiting when the process exits (a fatal error
 * included) are written by its `exit` handler. Only a process killed outright (`SIGKILL`) can lose the lines of its
 * last turn.
 */
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"

/** The size at which a turn's lines are written at once, without waiting for the turn to end. */
export const flushAtChars = 64 * 1024

let pending: Array<string> = []
let pendingChars = 0
let scheduled = false
let exitHooked = false

/** Writes the lines waiting, if any, in one call. */
export const flushLogLines = (): void => {
  if (pending.length === 0) return
  const text = pending.length === 1 ? pending[0]! : pending.join("\n")
  pending = []
  pendingChars = 0
  // The global console of the moment (not one captured earlier), as Effect's default `Console` service does.
  globalThis.console.log(text)
}

const flushScheduled = () => {
  scheduled = false
  flushLogLines()
}

/** Queues `line` for the end of the current turn. */
export const writeLogLine = (line: string): void => {
  pending.push(line)
  pendingChars += line.length
  if (pendingChars >= flushAtChars) {
    flushLogLines()
    return
  }
  if (!scheduled) {
    scheduled = true
    setImmediate(flushScheduled)
  }
  if (!exitHooked) {
    exitHooked = true
    process.once("exit", flushLogLines)
  }
}

/** A logger that formats each record with `format` and writes it with `writeLogLine`. */
export const batchedLogger = (format: Logger.Logger<unknown, string>): Logger.Logger<unknown, void> =>
  Logger.make((options) => writeLogLine(format.log(options)))

/** The server's logger in place of Effect's default one: logfmt (`Logger.logFmt`'s lines) or JSON (`Logger.json`'s). */
export const logOutput = (format: "logfmt" | "json"): Layer.Layer<never> =>
  Logger.replace(Logger.defaultLogger, batchedLogger(format === "json" ? Logger.jsonLogger : Logger.logfmtLogger))
