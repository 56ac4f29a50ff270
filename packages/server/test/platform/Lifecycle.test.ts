/**
 * Starting `pulsebridge serve` as an operator would, in child processes: production mode refuses an unsafe
 * configuration (from the environment, or `--sandbox`) with one line and exit code 1 before the database is touched
 * (which refusal says what is checked on the configuration, in ServerConfig.test.ts), and starts without a demo app
 * when safe; a busy port is one line naming it, before any migration; and the first request of a start, sent
 * the moment the port accepts, is answered (scripts/startup-loop.mjs, a few starts).
 */
import { describe, expect, it } from "@effect/vitest"
import { freePort, runCli, startChildServer, stopChild, tempDir } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as cp from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { loadOrCreateCertificate } from "../../src/platform/Tls.js"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..")

const strongKey = crypto.randomBytes(32).toString("base64")

/** `serve` with `env`, which must refuse to start: its output and exit code, and whether it touched the data. */
const refusedStart = (env: Record<string, string>, args: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const dataDir = yield* tempDir("pulsebridge-refusal-")
    const port = yield* freePort
    const result = yield* runCli(["serve", ...args], {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_ENV: "production",
      ...env
    })
    return { ...result, databaseTouched: fs.existsSync(path.join(dataDir, "pg")) }
  })

const expectRefusal = (result: { code: number | null; output: string; databaseTouched: boolean }, text: string) => {
  expect(result.code, result.output).toBe(1)
  const lines = result.output.trim().split("\n")
  expect(lines, result.output).toHaveLength(1)
  expect(lines[0]).toMatch(/^error: /)
  expect(lines[0]).toContain(text)
  expect(result.databaseTouched, "refused before the database").toBe(false)
}

describe("production mode", () => {
  it.live("refuses to start without SECRET_KEY", () =>
    Effect.gen(function*() {
      expectRefusal(yield* refusedStart({ TRUST_PROXY: "true" }), "needs SECRET_KEY")
    }).pipe(Effect.scoped), { timeout: 60_000 })

  // The other refusals (a weak key, SANDBOX=true, no TLS files) are the same path with another message: their
  // messages are checked on the configuration (`productionRefusal` in ServerConfig.test.ts). `--sandbox` is here
  // as the refusal that comes through the command's arguments rather than the environment.
  it.live("refuses sandbox mode given as --sandbox", () =>
    Effect.gen(function*() {
      expectRefusal(
        yield* refusedStart({ TRUST_PROXY: "true", SECRET_KEY: strongKey }, ["--sandbox"]),
        "refuses sandbox mode"
      )
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live(
    "starts with a strong key and TLS files, creates no demo app, and stops on SIGTERM with 0",
    () =>
      Effect.gen(function*() {
        const tlsDir = yield* tempDir("pulsebridge-prod-tls-")
        yield* Effect.orDie(loadOrCreateCertificate({ dataDir: tlsDir }))
        const dataDir = yield* tempDir("pulsebridge-prod-")
        const port = yield* freePort
        const server = yield* startChildServer({
          dataDir,
          port,
          env: {
            NODE_ENV: "production",
            SECRET_KEY: strongKey,
            TLS_CERT_FILE: path.join(tlsDir, "tls", "cert.pem"),
            TLS_KEY_FILE: path.join(tlsDir, "tls", "key.pem")
          }
        })
        expect(server.apiKey, server.output()).toBeUndefined()
        expect(server.output()).not.toContain("demo app")
        const stopped = yield* stopChild(server)
        expect(stopped, server.output()).toMatchObject({ code: 0, signal: null })
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})

describe("start", () => {
  it.live("a busy port is one line naming it, exit code 1, before any migration", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const holder = yield* Effect.acquireRelease(
        Effect.async<net.Server>((resume) => {
          const server = net.createServer()
          server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.async<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      expect(holder.listening).toBe(true)
      const dataDir = yield* tempDir("pulsebridge-busy-")
      const result = yield* runCli(["serve"], { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" })
      expect(result.code, result.output).toBe(1)
      expect(result.output.trim()).toBe(`error: port ${port} is already in use (EADDRINUSE)`)
      expect(fs.existsSync(path.join(dataDir, "pg")), "no database was opened").toBe(false)
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live(
    "the first request of each start, sent the moment the port accepts, is answered (3 fresh starts)",
    () =>
      Effect.async<{ code: number | null; stdout: string; stderr: string }>((resume) => {
        const child = cp.spawn(process.execPath, ["scripts/startup-loop.mjs", "--starts", "3"], {
          cwd: repoRoot,
          stdio: ["ignore", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
        child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
        return Effect.sync(() => child.kill("SIGKILL"))
      }).pipe(Effect.map(({ code, stderr, stdout }) => {
        expect(code, `${stdout}\n${stderr}`).toBe(0)
        const summary = JSON.parse(stdout.trim().split("\n").at(-1)!) as { starts: number; answered: number }
        expect(summary).toMatchObject({ starts: 3, answered: 3 })
      })),
    { timeout: 180_000 }
  )
})
