#!/usr/bin/env node
/**
 * Starts `pulsebridge serve` again and again and sends each start's first HTTPS request the moment the port
 * accepts a connection, to show that a request arriving while the server starts is answered (200 once ready,
 * 503 `ServiceUnavailable` before) and never hangs.
 *
 *   node scripts/startup-loop.mjs [--starts 200] [--mode fresh|reuse] [--path /health] [--timeout 5000]
 *
 * `fresh` (the default) gives every start a new data directory (new certificate, database and migrations);
 * `reuse` keeps one across starts. Exits 1 when any first request was not answered with 200 or 503 in time.
 */
import * as cp from "node:child_process"
import * as fs from "node:fs"
import * as https from "node:https"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { tsImport } from "tsx/esm/api"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`)
  return index >= 0 && index + 1 < process.argv.length ? process.argv[index + 1] : fallback
}

const starts = Number(option("starts", "200"))
const mode = option("mode", "fresh")
const requestPath = option("path", "/health")
const timeoutMs = Number(option("timeout", "5000"))
const startTimeoutMs = 60_000

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const tryConnect = (port) =>
  new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const firstRequest = (port) =>
  new Promise((resolve) => {
    const started = performance.now()
    const request = https.get({
      host: "127.0.0.1",
      port,
      path: requestPath,
      rejectUnauthorized: false,
      agent: false,
      timeout: timeoutMs
    }, (response) => {
      const chunks = []
      response.on("data", (chunk) => chunks.push(chunk))
      response.on("end", () =>
        resolve({
          status: response.statusCode,
          body: Buffer.concat(chunks).toString(),
          ms: performance.now() - started
        }))
      response.on("error", (error) => resolve({ status: 0, body: String(error), ms: performance.now() - started }))
    })
    request.on("timeout", () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    request.on("error", (error) => resolve({ status: 0, body: String(error), ms: performance.now() - started }))
  })

const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

// The names from the server's own module (TypeScript, loaded through tsx), so that this list cannot fall behind it.
const { envVarNames } = await tsImport("@pulsebridge/server/platform/EnvVars", import.meta.url)

/** This environment without any of the server's variables. */
const cleanEnv = () => {
  const env = { ...process.env, NO_COLOR: "1" }
  for (const name of envVarNames) delete env[name]
  return env
}

const oneStart = async (dataDir) => {
  const port = await freePort()
  const child = cp.spawn(process.execPath, ["packages/cli/bin/pulsebridge.mjs", "serve"], {
    cwd: repoRoot,
    env: { ...cleanEnv(), DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "Error" },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr.on("data", (chunk) => (stderr += chunk.toString()))
  try {
    const deadline = Date.now() + startTimeoutMs
    while (!(await tryConnect(port))) {
      if (child.exitCode !== null) return { status: 0, body: `serve exited with ${child.exitCode}: ${stderr}`, ms: 0 }
      if (Date.now() > deadline) return { status: 0, body: "the port never accepted a connection", ms: 0 }
      await sleep(5)
    }
    return await firstRequest(port)
  } finally {
    await stop(child)
  }
}

const results = []
const reused = mode === "reuse" ? fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-startup-")) : undefined
for (let i = 0; i < starts; i++) {
  const dataDir = reused ?? fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-startup-"))
  const result = await oneStart(dataDir)
  if (reused === undefined) fs.rmSync(dataDir, { recursive: true, force: true })
  results.push(result)
  const ok = result.status === 200 || result.status === 503
  process.stderr.write(`${i + 1}/${starts} ${result.status} ${result.ms.toFixed(1)} ms${ok ? "" : ` ${result.body}`}\n`)
}
if (reused !== undefined) fs.rmSync(reused, { recursive: true, force: true })

const answered = results.filter((r) => (r.status === 200 || r.status === 503) && r.ms <= timeoutMs)
const latencies = answered.map((r) => r.ms).sort((a, b) => a - b)
const median = latencies.length === 0 ? 0 : latencies[Math.floor(latencies.length / 2)]
const summary = {
  mode,
  path: requestPath,
  starts: results.length,
  answered: answered.length,
  status200: results.filter((r) => r.status === 200).length,
  status503: results.filter((r) => r.status === 503).length,
  failed: results.length - answered.length,
  maxMs: Number((latencies.at(-1) ?? 0).toFixed(1)),
  medianMs: Number(median.toFixed(1))
}
console.log(JSON.stringify(summary))
process.exit(summary.failed === 0 ? 0 : 1)
