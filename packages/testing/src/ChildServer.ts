/**
 * A PulseBridge server in a child process (`pulsebridge serve`), for tests that kill it, restart
 * it, or run two of them over one database. The child gets a clean environment (no config
 * variables of the developer's shell) plus what the test passes.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { envVarNames } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as cp from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { TestServer, trusting } from "./TestServer.js"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
// The `pulsebridge` executable, as `npm start` runs it: compiled JavaScript, built first if a source is newer.
const entry = path.join("packages", "cli", "bin", "pulsebridge.mjs")

/** A loopback port nothing listens on right now. */
export const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(address.port)))
  })
})

export interface ChildServer {
  readonly process: cp.ChildProcess
  readonly port: number
  /** Everything the child printed so far. */
  readonly output: () => string
  /** The demo app's API key, when this start created it. */
  readonly apiKey: string | undefined
}

export interface ChildServerOptions {
  readonly dataDir: string
  readonly port: number
  readonly args?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  /** Printed once the server listens (default: the banner). */
  readonly readyLine?: string
  /** Whether the child answers `heapAfterGc` (a full collection, then its memory figures). */
  readonly heapProbe?: boolean
}

/** Node's options for a child that answers `heapAfterGc`: `gc()` exposed, and the probe loaded before the server. */
const heapProbeArgs = [
  "--expose-gc",
  "--require",
  path.join(repoRoot, "packages", "testing", "preload", "heap-probe.cjs")
]

/** The environment of a child: the parent's without any of the server's variables, then `extra`. */
const childEnv = (extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
  for (const name of envVarNames) delete env[name]
  return Object.assign(env, extra)
}

/**
 * Starts `pulsebridge serve ...` and waits for it to listen. The scope kills it (SIGKILL) if the
 * test has not already.
 */
export const startChildServer = (options: ChildServerOptions) =>
  Effect.acquireRelease(
    Effect.async<ChildServer>((resume) => {
      // Rate limits are off unless the test turns them on: the suite sends many requests quickly.
      const env = childEnv({
        DATA_DIR: options.dataDir,
        PORT: String(options.port),
        HOST: "127.0.0.1",
        RATE_LIMIT: "off",
        ...options.env
      })
      // Node itself on the compiled command: one process, so SIGKILL kills the server and nothing survives it.
      const probe = options.heapProbe === true
      const child = cp.spawn(
        process.execPath,
        [...(probe ? heapProbeArgs : []), entry, "serve", ...(options.args ?? [])],
        { cwd: repoRoot, env, stdio: probe ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"] }
      )
      let output = ""
      let ready = false
      const readyLine = options.readyLine ?? "PulseBridge is running"
      const onExit = (code: number | null) =>
        resume(Effect.dieMessage(`serve exited with ${code} before it was ready:\n${output}`))
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        if (!ready && output.includes(readyLine)) {
          ready = true
          child.off("exit", onExit)
          const apiKey = /pb_sk_[A-Za-z0-9_-]+/.exec(output)?.[0]
          resume(Effect.succeed({ process: child, port: options.port, output: () => output, apiKey }))
        }
      }
      // Both are pipes, whichever `stdio` was chosen above.
      child.stdout!.on("data", onData)
      child.stderr!.on("data", onData)
      child.on("exit", onExit)
      return Effect.sync(() => child.kill("SIGKILL"))
    }),
    (server) => killChild(server)
  )

/**
 * The memory of a child started with `heapProbe`, right after a full garbage collection in its main thread: what the
 * server still holds, not what it has yet to collect (`heapUsed`, `external`, `arrayBuffers`; `rss` is the whole
 * process's, the embedded database's thread included).
 */
export const heapAfterGc = (server: ChildServer) =>
  Effect.async<NodeJS.MemoryUsage>((resume) => {
    const onMessage = (message: { readonly heap?: NodeJS.MemoryUsage }) => {
      if (message.heap === undefined) return
      server.process.off("message", onMessage)
      resume(Effect.succeed(message.heap))
    }
    server.process.on("message", onMessage)
    server.process.send("heap")
    return Effect.sync(() => server.process.off("message", onMessage))
  })

/** SIGKILL, and wait for the process to be gone. */
export const killChild = (server: ChildServer) =>
  Effect.async<void>((resume) => {
    const child = server.process
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.on("exit", () => resume(Effect.void))
    child.kill("SIGKILL")
  })

/** Sends `signal` (SIGTERM by default) and waits for the process to exit on its own; how it ended and when. */
export const stopChild = (server: ChildServer, signal: NodeJS.Signals = "SIGTERM") =>
  Effect.async<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly ms: number }>(
    (resume) => {
      const child = server.process
      const started = Date.now()
      if (child.exitCode !== null || child.signalCode !== null) {
        return resume(Effect.succeed({ code: child.exitCode, signal: child.signalCode, ms: 0 }))
      }
      child.once(
        "exit",
        (code, exitSignal) => resume(Effect.succeed({ code, signal: exitSignal, ms: Date.now() - started }))
      )
      child.kill(signal)
    }
  )

/**
 * `TestServer` and an `HttpClient` trusting the certificate for a server on `port` whose TLS
 * files are in `dataDir`, so the end-to-end fixtures can talk to a child server.
 */
export const childServerClient = (dataDir: string, port: number) => {
  const ca = fs.readFileSync(path.join(dataDir, "tls", "cert.pem"), "utf8")
  return NodeHttpClient.layerWithoutAgent.pipe(
    Layer.provide(NodeHttpClient.makeAgentLayer({ secureContext: trusting(ca) })),
    Layer.merge(Layer.succeed(TestServer, { baseUrl: `https://127.0.0.1:${port}`, port, dataDir, ca }))
  )
}

/**
 * Runs a `pulsebridge` command to its end in a child process with a clean environment plus `env`, with `input` on
 * its stdin.
 */
export const runCli = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, input = "") =>
  Effect.async<{ readonly code: number | null; readonly output: string }>((resume) => {
    const child = cp.spawn(process.execPath, [entry, ...args], {
      cwd: repoRoot,
      env: childEnv(env),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.on("close", (code) => resume(Effect.succeed({ code, output })))
    child.stdin.end(input)
    return Effect.sync(() => child.kill("SIGKILL"))
  })
