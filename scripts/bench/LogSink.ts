/**
 * Where the benchmarked server's logs go. The server keeps the logger it runs with in production (the one
 * `NodeRuntime.runMain` installs, at the default Info level, request logs included); only the `Console` service
 * that every Effect logger writes through is swapped for one backed by a file stream, so the terminal stays
 * readable and the logging work is still done and written.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as nodeConsole from "node:console"
import * as fs from "node:fs"

/** An Effect `Console` whose every method writes to `unsafe`. */
const fromUnsafe = (unsafe: Console.UnsafeConsole): Console.Console => ({
  [Console.TypeId]: Console.TypeId,
  assert: (condition, ...args) => Effect.sync(() => unsafe.assert(condition, ...args)),
  clear: Effect.sync(() => unsafe.clear()),
  count: (label) => Effect.sync(() => unsafe.count(label)),
  countReset: (label) => Effect.sync(() => unsafe.countReset(label)),
  debug: (...args) => Effect.sync(() => unsafe.debug(...args)),
  dir: (item, options) => Effect.sync(() => unsafe.dir(item, options)),
  dirxml: (...args) => Effect.sync(() => unsafe.dirxml(...args)),
  error: (...args) => Effect.sync(() => unsafe.error(...args)),
  group: (options) =>
    Effect.sync(() =>
      options?.collapsed === true ? unsafe.groupCollapsed(options.label) : unsafe.group(options?.label)
    ),
  groupEnd: Effect.sync(() => unsafe.groupEnd()),
  info: (...args) => Effect.sync(() => unsafe.info(...args)),
  log: (...args) => Effect.sync(() => unsafe.log(...args)),
  table: (data, properties) => Effect.sync(() => unsafe.table(data, properties)),
  time: (label) => Effect.sync(() => unsafe.time(label)),
  timeEnd: (label) => Effect.sync(() => unsafe.timeEnd(label)),
  timeLog: (label, ...args) => Effect.sync(() => unsafe.timeLog(label, ...args)),
  trace: (...args) => Effect.sync(() => unsafe.trace(...args)),
  warn: (...args) => Effect.sync(() => unsafe.warn(...args)),
  unsafe
})

/** A `Console` writing to `file` (truncated first); the stream is flushed and closed with the scope. */
export const fileConsole = (file: string) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => fs.createWriteStream(file)),
      (stream) =>
        Effect.async<void>((resume) => {
          stream.end(() => resume(Effect.void))
        })
    ),
    (stream) => fromUnsafe(new nodeConsole.Console({ stdout: stream, stderr: stream }))
  )
