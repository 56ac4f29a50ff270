/**
 * Where the benchmarked server's logs go. The server keeps the logger it runs with in production (the one
 * `NodeRuntime.runMain` installs, at the default Info level, request logs included); only the `Console` service
 * that every Effect logger writes through is swapped for one writing to a file, so the terminal stays
 * readable and the logging work is still done and written.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as nodeConsole from "node:console"
import * as fs from "node:fs"
import { Writable } from "node:stream"

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

/**
 * A `Console` writing to `file` (truncated first), each line written out before the call returns, as Node writes
 * a server's stdout to a file or a pipe on Linux (a file stream would instead queue the lines for the thread pool,
 * holding them in memory meanwhile: work and garbage a server in production does not have). Closed with the scope.
 */
export const fileConsole = (file: string) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => {
        const fd = fs.openSync(file, "w")
        const stream = new Writable({
          write(chunk: Buffer, _encoding, callback) {
            fs.writeSync(fd, chunk)
            callback()
          }
        })
        return { fd, stream }
      }),
      ({ fd }) => Effect.sync(() => fs.closeSync(fd))
    ),
    ({ stream }) => fromUnsafe(new nodeConsole.Console({ stdout: stream, stderr: stream }))
  )
