/**
 * Where the benchmarked server's logs go. The server keeps the logger it runs with in production (the one
 * `NodeRuntime.runMain` installs, at the default Info level, request logs included), which writes through Effect's
 * default `Console`, that is the global `console`; while the server runs, that object's writing methods write to a
 * file instead of the terminal, so the terminal stays readable and the logging work is still done and written.
 * The methods are swapped, not the `Console` service: a service set on the server's fibers would be one more fiber
 * reference that every request's fiber carries and copies, which a server in production does not have.
 */
import * as Effect from "effect/Effect"
import * as nodeConsole from "node:console"
import * as fs from "node:fs"
import { Writable } from "node:stream"

const redirected = ["log", "info", "warn", "error", "debug", "trace", "dir", "table"] as const

/**
 * While the scope is open, the global `console` writes to `file` (truncated first), each line written out before the
 * call returns, as Node writes a server's stdout to a file or a pipe on Linux (a file stream would instead queue the
 * lines for the thread pool, holding them in memory meanwhile: work and garbage a server in production does not
 * have). The methods are restored and the file closed with the scope.
 */
export const fileConsole = (file: string) =>
  Effect.asVoid(Effect.acquireRelease(
    Effect.sync(() => {
      const fd = fs.openSync(file, "w")
      const stream = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          fs.writeSync(fd, chunk)
          callback()
        }
      })
      const sink = new nodeConsole.Console({ stdout: stream, stderr: stream })
      const target = console as unknown as Record<string, unknown>
      const saved = redirected.map((name) => [name, target[name]] as const)
      for (const name of redirected) target[name] = (sink[name] as (...args: Array<unknown>) => void).bind(sink)
      return { fd, saved, target }
    }),
    ({ fd, saved, target }) =>
      Effect.sync(() => {
        for (const [name, method] of saved) target[name] = method
        fs.closeSync(fd)
      })
  ))
