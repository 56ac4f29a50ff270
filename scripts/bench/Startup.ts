/**
 * Start-up and CLI timings, as a user meets them: `npm start` (the compiled command's `serve --sandbox`, with the
 * portal's staleness check) from the spawn to the first 200 of `GET /health/ready` over HTTPS, on a new data dir
 * (certificate, secret key and, on the embedded database, a new database and its migrations; on PostgreSQL a new
 * database each run) and again on the data dir (and database) of the run before; then single CLI commands on a
 * migrated data dir with no server running, so that a command on the embedded database opens it itself. Each is
 * run `BENCH_STARTUP_RUNS` times (default 5); the median and the slowest are reported.
 */
import { envVarNames } from "@pulsebridge/server"
import { freshDatabase } from "@pulsebridge/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as cp from "node:child_process"
import * as fs from "node:fs"
import * as https from "node:https"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { BenchError } from "./Load.js"

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))
const bin = path.join(repoRoot, "packages", "cli", "bin", "pulsebridge.mjs")
const npm = process.platform === "win32" ? "npm.cmd" : "npm"

/** Targets of the start-up goals, in seconds. */
export const startupTargets = { warm: 3, fresh: 6, cli: 1 } as const

export interface Timings {
  /** Seconds of each run, in the order run. */
  readonly seconds: ReadonlyArray<number>
  readonly median: number
  readonly max: number
}

export interface StartupResult {
  readonly runs: number
  readonly fresh: Timings
  readonly warm: Timings
  readonly cli: ReadonlyArray<{ readonly command: string; readonly timings: Timings }>
}

const timings = (seconds: ReadonlyArray<number>): Timings => {
  const sorted = [...seconds].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
  return { seconds, median, max: sorted[sorted.length - 1]! }
}

const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as net.AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

// None of the server's variables that the shell running the benchmark may carry.
const environment = (dataDir: string, databaseUrl: string | undefined, extra: Record<string, string> = {}) => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of envVarNames) delete env[name]
  Object.assign(env, { NO_COLOR: "1", DATA_DIR: dataDir }, extra)
  if (databaseUrl !== undefined) env["DATABASE_URL"] = databaseUrl
  return env
}

/** One `GET /health/ready`: its status, or 0 when the port does not answer yet. */
const readyStatus = (port: number) =>
  new Promise<number>((resolve) => {
    const request = https.get(
      { host: "127.0.0.1", port, path: "/health/ready", rejectUnauthorized: false, timeout: 2000 },
      (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      }
    )
    request.on("timeout", () => request.destroy())
    request.on("error", () => resolve(0))
  })

/** Whether a process of the process group `pgid` is still there. */
const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Seconds from spawning `npm start` to the first 200 of `/health/ready` (polled every 20 ms); the server is then
 * stopped (SIGTERM to its process group) and its whole group waited for, so the data dir is free for the next run.
 */
const timeStart = (dataDir: string, databaseUrl: string | undefined, timeoutSeconds = 120) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const env = environment(dataDir, databaseUrl, { PORT: String(port), HOST: "127.0.0.1" })
    const started = performance.now()
    const child = cp.spawn(npm, ["start", "--silent"], {
      cwd: repoRoot,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    const stop = Effect.promise(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, "SIGTERM")
        } catch {
          // Gone already.
        }
      }
      const killer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL")
        } catch {
          // Gone already.
        }
      }, 20_000)
      await exited
      // npm exits at the signal while the server it started may still be shutting down (a slow machine takes
      // seconds): the next command would find the embedded database held and attach to a server going away. So the
      // whole group is waited for (bounded: a process left a zombie by an init that does not reap still counts).
      for (const until = performance.now() + 30_000; groupAlive(child.pid!) && performance.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      clearTimeout(killer)
    })
    return yield* Effect.promise(async () => {
      for (;;) {
        if (child.exitCode !== null) return undefined
        if (await readyStatus(port) === 200) return (performance.now() - started) / 1000
        if (performance.now() - started > timeoutSeconds * 1000) return undefined
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }).pipe(
      Effect.ensuring(stop),
      Effect.flatMap((seconds) =>
        seconds === undefined
          ? new BenchError({ message: `npm start was not ready within ${timeoutSeconds} s:\n${output.slice(-3000)}` })
          : Effect.succeed(seconds)
      )
    )
  })

/** Seconds of one CLI command run to its end; it must exit 0. */
const timeCli = (args: ReadonlyArray<string>, dataDir: string, databaseUrl: string | undefined) =>
  Effect.async<{ readonly seconds: number; readonly stdout: string }, BenchError>((resume) => {
    const started = performance.now()
    const child = cp.spawn(process.execPath, [bin, ...args], {
      cwd: repoRoot,
      env: environment(dataDir, databaseUrl),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("close", (code) => {
      const seconds = (performance.now() - started) / 1000
      resume(
        code === 0
          ? Effect.succeed({ seconds, stdout })
          : Effect.fail(new BenchError({ message: `pulsebridge ${args.join(" ")} exited with ${code}:\n${stderr}` }))
      )
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-bench-start-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const say = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

const runsFromEnv = Effect.suspend(() => {
  const raw = process.env["BENCH_STARTUP_RUNS"]
  const runs = raw === undefined || raw === "" ? 5 : Number(raw)
  return Number.isInteger(runs) && runs >= 1
    ? Effect.succeed(runs)
    : Effect.fail(new BenchError({ message: `BENCH_STARTUP_RUNS must be a whole number >= 1, not "${raw}"` }))
})

/**
 * Measures start-up and CLI commands on the embedded database, or with `adminUrl` on a fresh database of that
 * PostgreSQL server for every fresh start (dropped after the measurement).
 */
export const measureStartup = (adminUrl: string | undefined) =>
  Effect.gen(function*() {
    const runs = yield* runsFromEnv
    // A build left stale by an edit would be timed in the first start: build first, as `npm install` does.
    yield* Effect.promise(() =>
      new Promise<void>((resolve) =>
        cp.execFile(
          process.execPath,
          [path.join(repoRoot, "packages", "cli", "scripts", "build.mjs"), "--if-stale"],
          () => resolve()
        )
      )
    )
    const fresh: Array<number> = []
    const warm: Array<number> = []
    let dataDir = ""
    let databaseUrl: string | undefined = undefined
    for (let run = 0; run < runs; run++) {
      dataDir = yield* tempDir
      databaseUrl = adminUrl === undefined ? undefined : yield* freshDatabase(adminUrl)
      fresh.push(yield* timeStart(dataDir, databaseUrl))
      warm.push(yield* timeStart(dataDir, databaseUrl))
      yield* say(`  start-up run ${run + 1}: fresh ${fresh[run]!.toFixed(2)} s, warm ${warm[run]!.toFixed(2)} s`)
    }
    // The last run's data dir (and database) is migrated; the server was stopped as soon as it was ready, which may
    // be before its banner made the demo app, so the commands get an app of their own.
    const created = yield* timeCli(["apps", "create", "--name", "Start-up benchmark", "--json"], dataDir, databaseUrl)
    const appId = (JSON.parse(created.stdout) as { app: { id: string } }).app.id
    const commands: ReadonlyArray<ReadonlyArray<string>> = [
      ["--help"],
      ["operators", "list", "--json"],
      ["users", "list", "--app", appId, "--json"]
    ]
    const cli: Array<{ command: string; timings: Timings }> = []
    for (const args of commands) {
      const seconds: Array<number> = []
      for (let run = 0; run < runs; run++) seconds.push((yield* timeCli(args, dataDir, databaseUrl)).seconds)
      const command = `pulsebridge ${args.map((arg) => arg === appId ? "<app>" : arg).join(" ")}`
      cli.push({ command, timings: timings(seconds) })
      yield* say(`  ${command}: median ${timings(seconds).median.toFixed(2)} s`)
    }
    return { runs, fresh: timings(fresh), warm: timings(warm), cli } satisfies StartupResult
  }).pipe(Effect.scoped)

// `npm run bench:startup`: these measurements alone, printed (docs/benchmarks.md is written by `npm run bench`).
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const adminUrl = process.env["DATABASE_URL"]
  Effect.runPromise(measureStartup(adminUrl === undefined || adminUrl === "" ? undefined : adminUrl)).then(
    (result) => {
      const line = (what: string, t: Timings, target: number) =>
        `${what}: median ${t.median.toFixed(2)} s, max ${t.max.toFixed(2)} s (target <= ${target} s)`
      console.log([
        `load average ${os.loadavg().map((n) => n.toFixed(1)).join(" ")}`,
        line("npm start, new data dir", result.fresh, startupTargets.fresh),
        line("npm start, existing data dir", result.warm, startupTargets.warm),
        ...result.cli.map(({ command, timings }) => line(command, timings, startupTargets.cli))
      ].join("\n"))
    },
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
}
