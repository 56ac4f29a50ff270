/**
 * `pulsebridge operators` as an operator runs it: `packages/cli/bin/pulsebridge.mjs operators ...` in a child
 * process over a data dir of its own (the embedded database), with the password piped to stdin or a
 * one-time setup link printed instead, checked by exit code, stdout and stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { envVarNames } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as cp from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
// The `pulsebridge` executable on compiled JavaScript, built first if a source is newer than the build.
const entry = path.join(repoRoot, "packages", "cli", "bin", "pulsebridge.mjs")

// None of the server's variables that a developer's shell may carry, which would change what is tested.
const childEnv = (dataDir: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of envVarNames) delete env[name]
  return { ...env, DATA_DIR: dataDir, NO_COLOR: "1" }
}

interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI to its end, with `stdin` piped in (or nothing: an empty, closed stdin). */
const cli = (dataDir: string, args: ReadonlyArray<string>, stdin = "") =>
  Effect.async<Result>((resume) => {
    const child = cp.spawn(process.execPath, [entry, ...args], { cwd: repoRoot, env: childEnv(dataDir), stdio: "pipe" })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    child.stdin.end(stdin)
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const cliJson = (dataDir: string, args: ReadonlyArray<string>, stdin = "") =>
  Effect.map(cli(dataDir, [...args, "--json"], stdin), (result) => {
    if (result.code !== 0) throw new Error(`${args.join(" ")} exited with ${result.code}:\n${result.stderr}`)
    return JSON.parse(result.stdout) as Record<string, any>
  })

let dataDir = ""

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-cli-operators-"))
})

afterAll(() => {
  if (dataDir !== "") fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("pulsebridge operators", { sequential: true }, () => {
  it.effect("create with a piped password, create with a setup link, list, disable", () =>
    Effect.gen(function*() {
      const password = "a long enough password"
      const piped = yield* cliJson(dataDir, ["operators", "create", "--email", "Ada@Example.com"], `${password}\n`)
      expect(piped.setupUrl).toBeNull()
      expect(piped.operator).toMatchObject({ email: "Ada@Example.com", status: "Active", lastLoginAt: null })
      expect(JSON.stringify(piped)).not.toContain(password)

      const linked = yield* cliJson(dataDir, ["operators", "create", "--email", "grace@example.com"])
      expect(linked.setupUrl).toMatch(/^https:\/\/localhost:8443\/portal\/setup#[A-Za-z0-9_-]{43}$/)
      expect(new Date(linked.setupExpiresAt).getTime() - new Date(linked.operator.createdAt).getTime()).toBe(
        24 * 3600 * 1000
      )
      const text = yield* cli(dataDir, ["operators", "create", "--email", "text@example.com"])
      expect(text.code).toBe(0)
      expect(text.stdout).toMatch(/setup link/)
      expect(text.stdout).toMatch(/\/portal\/setup#/)

      const taken = yield* cli(dataDir, ["operators", "create", "--email", "ADA@example.com"], `${password}\n`)
      expect(taken.code).not.toBe(0)
      expect(taken.stderr).toMatch(/exists already/)

      const listed = yield* cliJson(dataDir, ["operators", "list"])
      expect(listed.operators.map((operator: { email: string }) => operator.email)).toEqual([
        "Ada@Example.com",
        "grace@example.com",
        "text@example.com"
      ])

      const disabled = yield* cliJson(dataDir, ["operators", "disable", "--email", "ada@example.com"])
      expect(disabled).toMatchObject({ operator: { email: "Ada@Example.com", status: "Disabled" }, sessionsEnded: 0 })
      const after = yield* cliJson(dataDir, ["operators", "list"])
      expect(after.operators[0].status).toBe("Disabled")
      const unknown = yield* cli(dataDir, ["operators", "disable", "--email", "nobody@example.com"])
      expect(unknown.code).not.toBe(0)
      expect(unknown.stderr).toMatch(/no operator with the email nobody@example.com/)
    }), 180_000)

  it.effect(
    "roles: create --role viewer, set-role, enable, reset-password prints a new link, reset-2fa; never no admin",
    () =>
      Effect.gen(function*() {
        const password = "a long enough password"
        const viewer = yield* cliJson(
          dataDir,
          ["operators", "create", "--email", "viewer@example.com", "--role", "viewer"],
          `${password}\n`
        )
        expect(viewer.operator).toMatchObject({ role: "viewer", secondFactor: false })
        // Ada was disabled above: grace and text are the active admins. Demote both, and the last is refused.
        expect(
          (yield* cliJson(dataDir, ["operators", "set-role", "--email", "grace@example.com", "--role", "viewer"]))
            .operator.role
        ).toBe("viewer")
        const last = yield* cli(dataDir, ["operators", "set-role", "--email", "text@example.com", "--role", "viewer"])
        expect(last.code).not.toBe(0)
        expect(last.stderr).toMatch(/last active admin/)
        expect((yield* cli(dataDir, ["operators", "disable", "--email", "text@example.com"])).code).not.toBe(0)

        const enabled = yield* cliJson(dataDir, ["operators", "enable", "--email", "ada@example.com"])
        expect(enabled.operator).toMatchObject({ email: "Ada@Example.com", status: "Active", role: "admin" })
        expect((yield* cliJson(dataDir, ["operators", "disable", "--email", "text@example.com"])).operator.status)
          .toBe("Disabled")

        const reset = yield* cliJson(dataDir, ["operators", "reset-password", "--email", "viewer@example.com"])
        expect(reset.setupUrl).toMatch(/^https:\/\/localhost:8443\/portal\/setup#[A-Za-z0-9_-]{43}$/)
        const resetText = yield* cli(dataDir, ["operators", "reset-password", "--email", "viewer@example.com"])
        expect(resetText.code).toBe(0)
        expect(resetText.stdout).toMatch(/\/portal\/setup#/)
        expect(resetText.stdout).not.toContain(reset.setupUrl)

        const twoFactor = yield* cliJson(dataDir, ["operators", "reset-2fa", "--email", "viewer@example.com"])
        expect(twoFactor.operator.secondFactor).toBe(false)
        const listed = yield* cli(dataDir, ["operators", "list"])
        expect(listed.stdout).toMatch(/viewer@example\.com\s+Active\s+viewer\s+second factor off/)
      }),
    180_000
  )

  it.effect(
    "a malformed email or a short piped password is refused with the option named",
    () =>
      Effect.gen(function*() {
        const badEmail = yield* cli(dataDir, ["operators", "create", "--email", "not an email", "--json"])
        expect(badEmail.code).not.toBe(0)
        expect(JSON.parse(badEmail.stdout).error).toMatchObject({ _tag: "BadRequest" })
        expect(badEmail.stderr).toMatch(/--email/)
        const short = yield* cli(dataDir, ["operators", "create", "--email", "short@example.com"], "short\n")
        expect(short.code).not.toBe(0)
        expect(short.stderr).toMatch(/password/)
        expect(short.stderr).not.toContain("short\n")
      }),
    120_000
  )
})
