/**
 * The processes of the growth benchmark and what is read of them from outside: PulseBridge servers (`pulsebridge
 * serve` on compiled JavaScript, `npm run build` first) and provider simulators as child processes, the
 * `pulsebridge` command run to its end, each process's CPU time and peak resident memory from `/proc` (Linux), and
 * the servers' Prometheus metrics from their metrics listener (`METRICS_PORT`).
 */
import { envVarNames } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as cp from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { BenchError } from "./Load.js"
import { cpuSeconds } from "./Proc.js"

export { cpuSeconds }

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))
const compiledCli = path.join("packages", "cli", "bin", "pulsebridge-compiled.mjs")
const compiledEntry = path.join(repoRoot, "packages", "cli", "build", "src", "bin.js")

const childEnv = (env: Readonly<Record<string, string>>): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
  for (const name of envVarNames) delete out[name]
  return Object.assign(out, env)
}

export const requireCompiled = Effect.suspend(() =>
  fs.existsSync(compiledEntry)
    ? Effect.void
    : Effect.fail(new BenchError({ message: "no compiled PulseBridge: run `npm run build` first" }))
)

/** A loopback port nothing listens on right now. */
export const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(address.port)))
  })
})

export interface Child {
  readonly name: string
  readonly process: cp.ChildProcess
  readonly pid: number
  /** The last few kilobytes the child printed. */
  readonly tail: () => string
}

/**
 * Spawns `args` with Node and waits until its output matches `ready` (the match is returned). Everything the child
 * prints goes to `logFile`. The scope ends it: SIGTERM (its graceful shutdown), then SIGKILL after 15 s.
 */
export const spawnChild = (options: {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly logFile: string
  readonly ready: RegExp
  readonly timeoutSeconds?: number
  /** Keep stdin open (simulators exit when it closes). */
  readonly stdin?: boolean
}) =>
  Effect.acquireRelease(
    Effect.async<{ readonly child: Child; readonly match: RegExpExecArray }, BenchError>((resume) => {
      const log = fs.createWriteStream(options.logFile, { flags: "a" })
      const child = cp.spawn(process.execPath, [...options.args], {
        cwd: repoRoot,
        env: childEnv(options.env),
        stdio: [options.stdin === true ? "pipe" : "ignore", "pipe", "pipe"]
      })
      let tail = ""
      let ready = false
      const handle: Child = { name: options.name, process: child, pid: child.pid ?? 0, tail: () => tail }
      const onData = (chunk: Buffer) => {
        log.write(chunk)
        tail = (tail + chunk.toString()).slice(-8000)
        const match = ready ? null : options.ready.exec(tail)
        if (match !== null) {
          ready = true
          child.off("exit", onExit)
          resume(Effect.succeed({ child: handle, match }))
        }
      }
      const onExit = (code: number | null) =>
        resume(
          Effect.fail(new BenchError({ message: `${options.name} exited (${code}) before it was ready:\n${tail}` }))
        )
      child.stdout!.on("data", onData)
      child.stderr!.on("data", onData)
      child.on("exit", onExit)
      child.on("close", () => log.end())
      return Effect.sync(() => child.kill("SIGKILL"))
    }).pipe(
      Effect.timeoutFail({
        duration: `${options.timeoutSeconds ?? 180} seconds`,
        onTimeout: () => new BenchError({ message: `${options.name} was not ready within ${options.timeoutSeconds} s` })
      })
    ),
    ({ child }) => stopChild(child)
  )

/** SIGTERM (stdin closed first, for the simulators), SIGKILL after 15 s; waits for the exit. */
export const stopChild = (child: Child) =>
  Effect.async<void>((resume) => {
    const proc = child.process
    if (proc.exitCode !== null || proc.signalCode !== null) return resume(Effect.void)
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000)
    proc.once("exit", () => {
      clearTimeout(timer)
      resume(Effect.void)
    })
    proc.stdin?.end()
    proc.kill("SIGTERM")
  })

/** `pulsebridge ...` (compiled) run to its end; its output, or a failure with it when the exit code is not 0. */
export const runCommand = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) =>
  Effect.async<string, BenchError>((resume) => {
    const child = cp.spawn(process.execPath, [compiledCli, ...args], {
      cwd: repoRoot,
      env: childEnv(env),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.on("close", (code) =>
      resume(
        code === 0
          ? Effect.succeed(output)
          : Effect.fail(
            new BenchError({ message: `pulsebridge ${args.slice(0, 2).join(" ")} exited ${code}:\n${output}` })
          )
      ))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The arguments of `pulsebridge serve` on compiled JavaScript. */
export const serveArgs: ReadonlyArray<string> = [compiledCli, "serve"]

/** A `/proc/<pid>/status` figure in bytes: `VmHWM` is the peak resident set, `VmRSS` the current one. */
export const statusBytes = (pid: number, field: "VmHWM" | "VmRSS"): number | undefined => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)
    return match === null ? undefined : Number(match[1]) * 1024
  } catch {
    return undefined
  }
}

/** The size of a directory tree in bytes (the embedded database's data dir). */
export const directoryBytes = (dir: string): number => {
  let total = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) total += directoryBytes(full)
    else if (entry.isFile()) total += fs.statSync(full).size
  }
  return total
}

/** A plain-HTTP GET on loopback (metrics listeners, the simulators' answer counts). */
export const getText = (url: string, timeoutSeconds = 10) =>
  Effect.async<string, BenchError>((resume) => {
    const request = http.get(url, { timeout: timeoutSeconds * 1000 }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (body += chunk))
      response.on("end", () =>
        response.statusCode === 200
          ? resume(Effect.succeed(body))
          : resume(Effect.fail(new BenchError({ message: `GET ${url} answered ${response.statusCode}` }))))
    })
    request.on("timeout", () => request.destroy(new Error("timed out")))
    request.on("error", (error) => resume(Effect.fail(new BenchError({ message: `GET ${url} failed: ${error}` }))))
    return Effect.sync(() => request.destroy())
  })

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** The samples of a Prometheus text exposition. */
export const parseMetrics = (text: string): Array<Sample> =>
  text.split("\n").flatMap((line) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line)
    if (match === null || line.startsWith("#")) return []
    const labels: Record<string, string> = {}
    for (const label of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label[1]!] = label[2]!
    }
    return [{ name: match[1]!, labels, value: Number(match[3]) }]
  })

/** The sum of the samples named `name` whose labels include `where`. */
export const sumOf = (samples: ReadonlyArray<Sample>, name: string, where: Readonly<Record<string, string>> = {}) =>
  samples
    .filter((sample) =>
      sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value)
    )
    .reduce((total, sample) => total + sample.value, 0)
