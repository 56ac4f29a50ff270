/**
 * `pulsebridge operators` as an operator runs it, checked by exit code, stdout and stderr over one data dir (the
 * embedded database) that the tests share in order: the commands run in this process through the executable's own
 * runner (`cli`, see `fixtures/Cli.ts`), with the password given as piped input or a one-time setup link printed
 * instead. The executable itself runs where only a process shows the behaviour: the password read from a real pipe
 * on stdin, and never printed, whether it is taken or refused.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { binary, cli, cliJson, useTemplate } from "./fixtures/Cli.js"

const template = useTemplate()

// The tests build on one another's operators (Ada, disabled by the first, is enabled by the second).
let shared = ""
const dataDir = Effect.sync(() => shared === "" ? (shared = template.copy()) : shared)

afterAll(() => {
  if (shared !== "") fs.rmSync(shared, { recursive: true, force: true })
})

const password = "a long enough password"

describe("pulsebridge operators", { sequential: true }, () => {
  it.scopedLive("create with a piped password, create with a setup link, list, disable", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const piped = yield* cliJson(dir, ["operators", "create", "--email", "Ada@Example.com"], {
        stdin: `${password}\n`
      })
      expect(piped.setupUrl).toBeNull()
      expect(piped.operator).toMatchObject({ email: "Ada@Example.com", status: "Active", lastLoginAt: null })
      expect(JSON.stringify(piped)).not.toContain(password)

      const linked = yield* cliJson(dir, ["operators", "create", "--email", "grace@example.com"])
      expect(linked.setupUrl).toMatch(/^https:\/\/localhost:8443\/portal\/setup#[A-Za-z0-9_-]{43}$/)
      expect(new Date(linked.setupExpiresAt).getTime() - new Date(linked.operator.createdAt).getTime()).toBe(
        24 * 3600 * 1000
      )
      const text = yield* cli(dir, ["operators", "create", "--email", "text@example.com"])
      expect(text.code).toBe(0)
      expect(text.stdout).toMatch(/setup link/)
      expect(text.stdout).toMatch(/\/portal\/setup#/)

      const taken = yield* cli(dir, ["operators", "create", "--email", "ADA@example.com"], { stdin: `${password}\n` })
      expect(taken.code).not.toBe(0)
      expect(taken.stderr).toMatch(/exists already/)

      const listed = yield* cliJson(dir, ["operators", "list"])
      expect(listed.operators.map((operator: { email: string }) => operator.email)).toEqual([
        "Ada@Example.com",
        "grace@example.com",
        "text@example.com"
      ])

      const disabled = yield* cliJson(dir, ["operators", "disable", "--email", "ada@example.com"])
      expect(disabled).toMatchObject({ operator: { email: "Ada@Example.com", status: "Disabled" }, sessionsEnded: 0 })
      const after = yield* cliJson(dir, ["operators", "list"])
      expect(after.operators[0].status).toBe("Disabled")
      const unknown = yield* cli(dir, ["operators", "disable", "--email", "nobody@example.com"])
      expect(unknown.code).not.toBe(0)
      expect(unknown.stderr).toMatch(/no operator with the email nobody@example.com/)
    }), 180_000)

  it.scopedLive(
    "roles: create --role viewer, set-role, enable, reset-password prints a new link, reset-2fa; never no admin",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const viewer = yield* cliJson(
          dir,
          ["operators", "create", "--email", "viewer@example.com", "--role", "viewer"],
          { stdin: `${password}\n` }
        )
        expect(viewer.operator).toMatchObject({ role: "viewer", secondFactor: false })
        // Ada was disabled above: grace and text are the active admins. Demote both, and the last is refused.
        expect(
          (yield* cliJson(dir, ["operators", "set-role", "--email", "grace@example.com", "--role", "viewer"]))
            .operator.role
        ).toBe("viewer")
        const last = yield* cli(dir, ["operators", "set-role", "--email", "text@example.com", "--role", "viewer"])
        expect(last.code).not.toBe(0)
        expect(last.stderr).toMatch(/last active admin/)
        expect((yield* cli(dir, ["operators", "disable", "--email", "text@example.com"])).code).not.toBe(0)

        const enabled = yield* cliJson(dir, ["operators", "enable", "--email", "ada@example.com"])
        expect(enabled.operator).toMatchObject({ email: "Ada@Example.com", status: "Active", role: "admin" })
        expect((yield* cliJson(dir, ["operators", "disable", "--email", "text@example.com"])).operator.status)
          .toBe("Disabled")

        const reset = yield* cliJson(dir, ["operators", "reset-password", "--email", "viewer@example.com"])
        expect(reset.setupUrl).toMatch(/^https:\/\/localhost:8443\/portal\/setup#[A-Za-z0-9_-]{43}$/)
        const resetText = yield* cli(dir, ["operators", "reset-password", "--email", "viewer@example.com"])
        expect(resetText.code).toBe(0)
        expect(resetText.stdout).toMatch(/\/portal\/setup#/)
        expect(resetText.stdout).not.toContain(reset.setupUrl)

        const twoFactor = yield* cliJson(dir, ["operators", "reset-2fa", "--email", "viewer@example.com"])
        expect(twoFactor.operator.secondFactor).toBe(false)
        const listed = yield* cli(dir, ["operators", "list"])
        expect(listed.stdout).toMatch(/viewer@example\.com\s+Active\s+viewer\s+second factor off/)
      }),
    180_000
  )

  it.scopedLive(
    "a malformed email or a short piped password is refused with the option named",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const badEmail = yield* cli(dir, ["operators", "create", "--email", "not an email", "--json"])
        expect(badEmail.code).not.toBe(0)
        expect(JSON.parse(badEmail.stdout).error).toMatchObject({ _tag: "BadRequest" })
        expect(badEmail.stderr).toMatch(/--email/)
        const short = yield* cli(dir, ["operators", "create", "--email", "brief@example.com"], { stdin: "too short\n" })
        expect(short.code).not.toBe(0)
        expect(short.stderr).toMatch(/password/)
        expect(short.stdout + short.stderr).not.toContain("too short")
      }),
    120_000
  )

  it.live(
    "the executable reads the password from a pipe on its stdin and never prints it, taken or refused",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const taken = yield* binary(dir, ["operators", "create", "--email", "piped@example.com", "--json"], {
          stdin: `${password}\n`
        })
        expect(taken.code, taken.stderr).toBe(0)
        const created = JSON.parse(taken.stdout)
        expect(created.setupUrl).toBeNull()
        expect(created.operator).toMatchObject({ email: "piped@example.com", status: "Active" })
        expect(taken.stdout + taken.stderr).not.toContain(password)

        const secret = "too short"
        const refused = yield* binary(dir, ["operators", "create", "--email", "short@example.com", "--json"], {
          stdin: `${secret}\n`
        })
        expect(refused.code).toBe(1)
        expect(JSON.parse(refused.stdout).error).toMatchObject({ _tag: "BadRequest" })
        expect(refused.stderr.trim().split("\n")).toHaveLength(1)
        expect(refused.stderr).toMatch(/password/)
        expect(refused.stdout + refused.stderr).not.toContain(secret)
      }),
    120_000
  )
})
