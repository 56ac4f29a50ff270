/**
 * The server's log lines are Effect's logfmt and JSON lines, written a turn of the event loop at a time: one write
 * for the lines of a turn, none lost at exit, and a large turn written before it ends.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as cp from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { flushAtChars, flushLogLines, logOutput } from "../../src/platform/LogOutput.js"

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

const logThree = Effect.gen(function*() {
  yield* Effect.log("first")
  yield* Effect.logWarning("second", { detail: "with spaces" }).pipe(Effect.annotateLogs("requestId", "r-1"))
  yield* Effect.logError("third")
})

afterEach(() => {
  flushLogLines()
  vi.restoreAllMocks()
})

describe("logOutput", () => {
  it("writes a turn's lines in one call, in order, formatted as Logger.logFmt formats them", async () => {
    const log = vi.spyOn(globalThis.console, "log").mockImplementation(() => {})
    await Effect.runPromise(logThree.pipe(Effect.provide(logOutput("logfmt"))))
    // Still within the turn that logged them.
    expect(log).not.toHaveBeenCalled()
    await nextTurn()
    expect(log).toHaveBeenCalledTimes(1)
    const ours = String(log.mock.calls[0]![0]).split("\n")

    // The same program through Effect's own logfmt logger, one call per line.
    log.mockClear()
    await Effect.runPromise(logThree.pipe(Effect.provide(Logger.logFmt)))
    const effects = log.mock.calls.map((call) => String(call[0]))
    expect(effects).toHaveLength(3)
    // Equal but for the time and the fiber's number.
    const stable = (line: string) => line.replace(/^timestamp=\S+ /, "").replace(/ fiber=#\d+ /, " ")
    expect(ours.map(stable)).toEqual(effects.map(stable))
    expect(ours[0]).toMatch(/^timestamp=\S+ level=INFO fiber=#\d+ message=first$/)
    expect(ours[1]).toContain("requestId=r-1")
  })

  it("writes JSON lines as Logger.json does", async () => {
    const log = vi.spyOn(globalThis.console, "log").mockImplementation(() => {})
    await Effect.runPromise(logThree.pipe(Effect.provide(logOutput("json"))))
    await nextTurn()
    expect(log).toHaveBeenCalledTimes(1)
    const lines = String(log.mock.calls[0]![0]).split("\n").map((line) => JSON.parse(line))
    expect(lines.map((line) => [line.logLevel, line.message])).toEqual([
      ["INFO", "first"],
      ["WARN", ["second", { detail: "with spaces" }]],
      ["ERROR", "third"]
    ])
    expect(lines[1].annotations).toEqual({ requestId: "r-1" })
  })

  it("writes a turn's lines as soon as they reach flushAtChars, without waiting for the turn to end", async () => {
    const log = vi.spyOn(globalThis.console, "log").mockImplementation(() => {})
    const line = "x".repeat(1000)
    const count = Math.ceil(flushAtChars / 1000) + 5
    await Effect.runPromise(
      Effect.forEach(Array.from({ length: count }), () => Effect.log(line), { discard: true }).pipe(
        Effect.provide(logOutput("logfmt"))
      )
    )
    expect(log).toHaveBeenCalledTimes(1)
    await nextTurn()
    expect(log).toHaveBeenCalledTimes(2)
    const written = log.mock.calls.flatMap((call) => String(call[0]).split("\n"))
    expect(written).toHaveLength(count)
  })

  it("writes the lines of the last turn when the process exits at once", () => {
    const here = path.dirname(fileURLToPath(import.meta.url))
    const script = `
      import * as Effect from "effect/Effect"
      import { logOutput } from ${JSON.stringify(path.join(here, "../../src/platform/LogOutput.ts"))}
      Effect.runSync(Effect.all([Effect.log("one"), Effect.logError("two")]).pipe(Effect.provide(logOutput("logfmt"))))
      process.exit(3)
    `
    const child = cp.spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: path.join(here, "../.."),
      encoding: "utf8",
      timeout: 60_000
    })
    expect(child.status).toBe(3)
    const lines = child.stdout.trim().split("\n")
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/level=INFO .*message=one$/)
    expect(lines[1]).toMatch(/level=ERROR .*message=two$/)
  })
})
