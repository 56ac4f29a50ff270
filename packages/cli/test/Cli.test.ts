/**
 * The CLI as an operator runs it, checked by exit code, stdout and stderr, each test over a data dir of its own (a
 * fresh copy of one migrated data dir, so no test sees another's data and the order of the tests does not matter):
 * most commands run in this process through the executable's own runner (`cli`, see `fixtures/Cli.ts`), and what
 * only a process shows runs `pulsebridge ...` itself in a child process (`binary`): one JSON object and nothing else
 * on the process's stdout, the exit code, a failure as one line on stderr without a stack trace, NDJSON streamed to
 * stdout, `serve` (one server for the file: the CLI and `mcp` over stdio beside it), and `mcp`'s refusals.
 *
 * The commands run on the embedded database: DATABASE_URL is removed from their environment (one test sets it to
 * an unreachable server on purpose). The embedded database is where the CLI's own behaviour lives (opening DATA_DIR
 * itself, or attaching to the server that holds it), while the PostgreSQL client is the server's, covered by the
 * server's tests.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import type * as cp from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { binary, childEnv, cli, cliJson, entry, parseJson, repoRoot, spawnCli, useTemplate } from "./fixtures/Cli.js"

// A test runs up to a dozen commands, some of them processes that start Node and open the database: on a machine busy
// with the rest of the suite one of those takes several seconds.
const commandsTimeout = 300_000

const isIsoTimestamp = (value: unknown) => typeof value === "string" && new Date(value).toISOString() === value

const { dataDir } = useTemplate()

const createApp = (dir: string, name = "test app") =>
  Effect.map(cliJson(dir, ["apps", "create", "--name", name]), (out) => out.app.id as string)

/** A loopback port nothing listens on right now. */
const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(address.port)))
  })
})

/**
 * `serve` on `port` over `dir`, up once its banner is out (with `--json`, its one line on stdout); stopped (SIGTERM,
 * then SIGKILL) with the scope. What it printed on stdout until then comes with it.
 */
const runningServer = (dir: string, port: number, args: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.async<{ readonly child: cp.ChildProcess; readonly stdout: string }>((resume) => {
      const child = spawnCli(dir, ["serve", ...args], { PORT: String(port), HOST: "127.0.0.1" })
      const ready = args.includes("--json")
        ? (out: string) => out.includes("\n")
        : (out: string) => out.includes("PulseBridge is running")
      let stdout = ""
      let stderr = ""
      const onExit = (code: number | null) =>
        resume(Effect.dieMessage(`serve exited with ${code} before its banner:\n${stdout}\n${stderr}`))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
        if (ready(stdout)) {
          child.off("exit", onExit)
          resume(Effect.succeed({ child, stdout }))
        }
      })
      child.on("exit", onExit)
      return Effect.sync(() => child.kill("SIGKILL"))
    }),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        const force = setTimeout(() => child.kill("SIGKILL"), 10_000)
        child.on("exit", () => {
          clearTimeout(force)
          resume(Effect.void)
        })
        // The server closes the database and its lock on SIGTERM.
        child.kill("SIGTERM")
      })
  )

describe("pulsebridge CLI", { sequential: true }, () => {
  it.scopedLive(
    "apps create --json prints exactly one JSON object with the app and its API key",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const result = yield* binary(dir, ["apps", "create", "--name", "x", "--json"])
        expect(result.code).toBe(0)
        const out = parseJson(result)
        expect(Object.keys(out).sort()).toEqual(["apiKey", "app"])
        expect(Object.keys(out.app).sort()).toEqual(["createdAt", "id", "name"])
        expect(out.app.name).toBe("x")
        expect(isIsoTimestamp(out.app.createdAt)).toBe(true)
        expect(out.apiKey).toMatch(/^pb_sk_[A-Za-z0-9_-]{43}$/)

        const listed = yield* cliJson(dir, ["apps", "list"])
        expect(listed).toEqual({ apps: [out.app] })

        const text = yield* cli(dir, ["apps", "list"])
        expect(text.code).toBe(0)
        expect(text.stdout).toContain(out.app.id)
        expect(text.stdout).toContain("x")
      }),
    commandsTimeout
  )

  it.scopedLive(
    "apps assistant-sign-in shows, sets (https only, audited) and clears an app's assistant sign-in URL",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const app = yield* createApp(dir)
        const url = "https://app.example.com/assistant-sign-in?from=pulsebridge"

        expect(yield* cliJson(dir, ["apps", "assistant-sign-in", "--app", app])).toEqual({
          appId: app,
          assistantSignInUrl: null
        })
        const none = yield* cli(dir, ["apps", "assistant-sign-in", "--app", app])
        expect(none.stdout.trim()).toBe("The app has no assistant sign-in URL.")

        expect(yield* cliJson(dir, ["apps", "assistant-sign-in", "--app", app, "--url", url])).toEqual({
          appId: app,
          assistantSignInUrl: url
        })
        const shown = yield* cli(dir, ["apps", "assistant-sign-in", "--app", app])
        expect(shown.stdout.trim()).toBe(`Assistant sign-in URL: ${url}`)

        // Refused, and the URL set before stays: plain http (outside sandbox mode), a fragment, not a URL.
        for (const refused of ["http://app.example.com/sign-in", `${url}#top`, "sign-in"]) {
          const result = yield* cli(dir, ["apps", "assistant-sign-in", "--app", app, "--url", refused, "--json"])
          expect(result.code).toBe(1)
          const error = parseJson(result).error
          expect(error._tag).toBe("BadRequest")
          expect(error.message).toMatch(/sign-in URL/)
        }
        const unknownApp = yield* cli(dir, ["apps", "assistant-sign-in", "--app", crypto.randomUUID(), "--url", url])
        expect(unknownApp.code).toBe(1)
        expect(unknownApp.stderr.trim().split("\n")).toHaveLength(1)
        expect(yield* cliJson(dir, ["apps", "assistant-sign-in", "--app", app])).toEqual({
          appId: app,
          assistantSignInUrl: url
        })

        expect(yield* cliJson(dir, ["apps", "assistant-sign-in", "--app", app, "--clear"])).toEqual({
          appId: app,
          assistantSignInUrl: null
        })

        // Each change is audited with the URL it set; a refused change is not.
        const audit = yield* cliJson(dir, ["audit", "list", "--app", app])
        const changes = (audit.data as Array<Record<string, any>>).filter((event) =>
          event.action === "app.assistantSignIn"
        )
        expect(changes.map((event) => [event.targetId, event.detail.assistantSignInUrl, event.detail.via])).toEqual([
          [app, null, "cli"],
          [app, url, "cli"]
        ])
      }),
    commandsTimeout
  )

  it.scopedLive("api-keys create, list and revoke; listings never show a key", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const app = yield* createApp(dir)

      const created = yield* cliJson(dir, ["api-keys", "create", "--app", app, "--permissions", "users:read"])
      expect(Object.keys(created).sort()).toEqual(["apiKey", "id", "permissions", "prefix"])
      expect(created.permissions).toEqual(["users:read"])
      expect(created.apiKey).toMatch(/^pb_sk_/)
      expect(created.apiKey.startsWith(created.prefix)).toBe(true)

      const listing = yield* cli(dir, ["api-keys", "list", "--app", app, "--json"])
      expect(listing.stdout).not.toContain(created.apiKey)
      const keys = parseJson(listing).apiKeys as Array<Record<string, unknown>>
      expect(keys).toHaveLength(2)
      for (const key of keys) {
        expect(Object.keys(key).sort()).toEqual(["createdAt", "id", "permissions", "prefix", "revokedAt"])
        expect(key.revokedAt).toBeNull()
      }
      expect(keys.find((key) => key.id === created.id)?.permissions).toEqual(["users:read"])

      const revoked = yield* cliJson(dir, ["api-keys", "revoke", created.id])
      expect(Object.keys(revoked).sort()).toEqual(["id", "revokedAt"])
      expect(revoked.id).toBe(created.id)
      expect(isIsoTimestamp(revoked.revokedAt)).toBe(true)

      const after = yield* cliJson(dir, ["api-keys", "list", "--app", app])
      const states = (after.apiKeys as Array<Record<string, unknown>>).map((key) => [key.id, key.revokedAt])
      expect(states).toContainEqual([created.id, revoked.revokedAt])
      expect(states.filter(([, revokedAt]) => revokedAt === null)).toHaveLength(1)
    }), commandsTimeout)

  it.scopedLive(
    "api-keys create with an unknown permission exits 1 naming the allowed ones",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const app = yield* createApp(dir)

        const json = yield* cli(dir, [
          "api-keys",
          "create",
          "--app",
          app,
          "--permissions",
          "users:read,admin",
          "--json"
        ])
        expect(json.code).toBe(1)
        const error = parseJson(json).error
        expect(error._tag).toBe("BadRequest")
        expect(error.message).toContain("admin")
        expect(error.message).toContain("users:read")
        expect(error.message).toContain("users:write")

        const text = yield* cli(dir, ["api-keys", "create", "--app", app, "--permissions", "admin"])
        expect(text.code).toBe(1)
        expect(text.stdout).toBe("")
        expect(text.stderr).toContain("users:read, users:write")

        const keys = yield* cliJson(dir, ["api-keys", "list", "--app", app])
        expect(keys.apiKeys).toHaveLength(1)
      }),
    commandsTimeout
  )

  it.scopedLive("users create (idempotent), get and find print the user as the API does", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const app = yield* createApp(dir)

      const created = yield* cliJson(dir, [
        "users",
        "create",
        "--app",
        app,
        "--external-user-id",
        "ext-1",
        "--locale",
        "de-DE",
        "--timezone",
        "Europe/Berlin",
        "--metadata",
        "{\"plan\":\"pro\"}"
      ])
      expect(Object.keys(created).sort()).toEqual(["created", "token", "user"])
      expect(created.created).toBe(true)
      expect(created.token).toMatch(/^pb_ut_/)
      const user = created.user
      expect(Object.keys(user).sort()).toEqual(
        ["appId", "createdAt", "externalUserId", "id", "locale", "metadata", "status", "timezone", "updatedAt"]
      )
      expect(user).toMatchObject({
        appId: app,
        externalUserId: "ext-1",
        status: "Active",
        locale: "de-DE",
        timezone: "Europe/Berlin",
        metadata: { plan: "pro" }
      })
      expect(isIsoTimestamp(user.createdAt)).toBe(true)

      const again = yield* cliJson(dir, ["users", "create", "--app", app, "--external-user-id", "ext-1"])
      expect(again.created).toBe(false)
      expect(again.user.id).toBe(user.id)
      expect(again.token).not.toBe(created.token)

      expect(yield* cliJson(dir, ["users", "get", "--app", app, user.id])).toEqual(user)
      expect(yield* cliJson(dir, ["users", "find", "--app", app, "--external-user-id", "ext-1"])).toEqual(user)

      const missing = yield* cli(dir, ["users", "find", "--app", app, "--external-user-id", "nobody", "--json"])
      expect(missing.code).toBe(1)
      expect(parseJson(missing).error._tag).toBe("NotFound")
    }), commandsTimeout)

  it.scopedLive(
    "users list pages an app's users newest first, searches a literal prefix, and prints a table",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const app = yield* createApp(dir)
        for (const externalUserId of ["Ab%1", "ab_2", "abx3"]) {
          yield* cliJson(dir, ["users", "create", "--app", app, "--external-user-id", externalUserId])
        }

        const first = yield* cliJson(dir, ["users", "list", "--app", app, "--limit", "2"])
        expect(first.data.map((u: any) => u.externalUserId)).toEqual(["abx3", "ab_2"])
        expect(first.data[0]).toMatchObject({ status: "Active", connections: [] })
        expect(typeof first.nextCursor).toBe("string")

        const second = yield* cli(dir, ["users", "list", "--app", app, "--limit", "2", "--cursor", first.nextCursor])
        expect(second.code, second.stderr).toBe(0)
        const lines = second.stdout.trim().split("\n")
        expect(lines[0]).toMatch(/^ID\s+EXTERNAL ID\s+STATUS\s+CREATED\s+CONNECTIONS$/)
        expect(lines.slice(1).map((line) => line.split(/\s+/)[1])).toEqual(["Ab%1"])

        // `%` matches itself (not any run), and the prefix ignores case.
        const percent = yield* cliJson(dir, ["users", "list", "--app", app, "--search", "aB%"])
        expect(percent).toMatchObject({ nextCursor: null })
        expect(percent.data.map((u: any) => u.externalUserId)).toEqual(["Ab%1"])
      }),
    commandsTimeout
  )

  it.scopedLive("users update, rotate-token and delete", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const app = yield* createApp(dir)
      const { token, user } = yield* cliJson(dir, ["users", "create", "--app", app, "--external-user-id", "ext-2"])

      const updated = yield* cliJson(dir, [
        "users",
        "update",
        "--app",
        app,
        user.id,
        "--timezone",
        "America/New_York",
        "--metadata",
        "{\"a\":1}"
      ])
      expect(updated).toMatchObject({ id: user.id, timezone: "America/New_York", locale: "en-US", metadata: { a: 1 } })

      const rotated = yield* cliJson(dir, ["users", "rotate-token", "--app", app, user.id])
      expect(Object.keys(rotated)).toEqual(["token"])
      expect(rotated.token).toMatch(/^pb_ut_/)
      expect(rotated.token).not.toBe(token)

      const deleted = yield* cliJson(dir, ["users", "delete", "--app", app, user.id])
      expect(deleted).toEqual({ id: user.id, status: "Inactive" })

      const after = yield* cliJson(dir, ["users", "get", "--app", app, user.id])
      expect(after.status).toBe("Inactive")
    }), commandsTimeout)

  it.scopedLive(
    "webhook-endpoints create prints the secret once; list shows the endpoint without it; delete removes it",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const app = yield* createApp(dir)
        const created = yield* cliJson(dir, [
          "webhook-endpoints",
          "create",
          "--app",
          app,
          "--url",
          "https://example.com/hooks",
          "--events",
          "data.updated, scores.updated",
          "--description",
          "main"
        ])
        expect(created).toMatchObject({
          url: "https://example.com/hooks",
          events: ["data.updated", "scores.updated"],
          description: "main",
          enabled: true
        })
        expect(created.secret).toMatch(/^whsec_/)
        const text = yield* cli(dir, ["webhook-endpoints", "list", "--app", app])
        expect(text.code, text.stderr).toBe(0)
        expect(text.stdout).toContain(created.id)
        expect(text.stdout).toContain("https://example.com/hooks")
        expect(text.stdout).not.toContain(created.secret)
        const listed = yield* cliJson(dir, ["webhook-endpoints", "list", "--app", app])
        expect(listed.endpoints.map((e: any) => e.id)).toEqual([created.id])
        expect(JSON.stringify(listed)).not.toContain(created.secret)

        const bad = yield* cli(dir, [
          "webhook-endpoints",
          "create",
          "--app",
          app,
          "--url",
          "http://example.com/x",
          "--json"
        ])
        expect(bad.code).toBe(1)
        expect(parseJson(bad).error).toMatchObject({ _tag: "BadRequest", message: expect.stringContaining("https") })
        const unknownEvent = yield* cli(dir, [
          "webhook-endpoints",
          "create",
          "--app",
          app,
          "--url",
          "https://example.com/y",
          "--events",
          "nope",
          "--json"
        ])
        expect(unknownEvent.code).toBe(1)
        expect(parseJson(unknownEvent).error._tag).toBe("BadRequest")

        expect(yield* cliJson(dir, ["webhook-endpoints", "delete", "--app", app, created.id])).toEqual({
          id: created.id,
          deleted: true
        })
        expect((yield* cliJson(dir, ["webhook-endpoints", "list", "--app", app])).endpoints).toEqual([])
        const again = yield* cli(dir, ["webhook-endpoints", "delete", "--app", app, created.id, "--json"])
        expect(again.code).toBe(1)
        expect(parseJson(again).error._tag).toBe("NotFound")
      }),
    commandsTimeout
  )

  it.scopedLive(
    "users export prints NDJSON; users erase erases the user and frees its externalUserId",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const app = yield* createApp(dir)
        const { user } = yield* cliJson(dir, [
          "users",
          "create",
          "--app",
          app,
          "--external-user-id",
          "ext-erase",
          "--metadata",
          "{\"plan\":\"gold\"}"
        ])

        const exported = yield* binary(dir, ["users", "export", "--app", app, user.id])
        expect(exported.code, exported.stderr).toBe(0)
        const lines = exported.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
        expect(lines).toEqual([{ type: "user", data: { ...user, metadata: { plan: "gold" } } }])
        const raw = yield* binary(dir, ["users", "export", "--app", app, user.id, "--include-raw"])
        expect(raw.code, raw.stderr).toBe(0)

        const erased = yield* cliJson(dir, ["users", "erase", "--app", app, user.id])
        expect(erased).toEqual({ id: user.id, status: "Erased", requestedAt: expect.any(String) })
        expect(isIsoTimestamp(erased.requestedAt)).toBe(true)

        for (const args of [["users", "get"], ["users", "erase"], ["users", "export"]]) {
          const gone = yield* cli(dir, [...args, "--app", app, user.id])
          expect(gone.code, args.join(" ")).not.toBe(0)
          expect(gone.stderr).toContain("no user with id")
        }
        const again = yield* cliJson(dir, ["users", "create", "--app", app, "--external-user-id", "ext-erase"])
        expect(again.created).toBe(true)
        expect(again.user.id).not.toBe(user.id)
        expect(again.user.metadata).toEqual({})
      }),
    commandsTimeout
  )

  it.scopedLive("invalid user input is refused with the schema's message and no change", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const app = yield* createApp(dir)
      const result = yield* cli(dir, [
        "users",
        "create",
        "--app",
        app,
        "--external-user-id",
        "ext-3",
        "--locale",
        "not a locale",
        "--timezone",
        "Mars/Olympus",
        "--json"
      ])
      expect(result.code).toBe(1)
      const error = parseJson(result).error
      expect(error._tag).toBe("BadRequest")
      expect(error.message).toContain("--locale")
      expect(error.message).toContain("--timezone")

      const metadata = yield* cli(dir, ["users", "create", "--app", app, "--external-user-id", "x", "--metadata", "{"])
      expect(metadata.code).toBe(1)
      expect(metadata.stderr).toContain("--metadata")

      const missing = yield* cli(dir, ["users", "find", "--app", app, "--external-user-id", "ext-3"])
      expect(missing.code).toBe(1)
    }), commandsTimeout)

  it.scopedLive("an unknown app id exits 1 with a message", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const unknown = crypto.randomUUID()

      const json = yield* cli(dir, ["users", "get", "--app", unknown, crypto.randomUUID(), "--json"])
      expect(json.code).toBe(1)
      expect(parseJson(json).error).toEqual({ _tag: "NotFound", message: `no app with id ${unknown}` })

      const text = yield* binary(dir, ["api-keys", "list", "--app", "not-an-id"])
      expect(text.code).toBe(1)
      expect(text.stdout).toBe("")
      expect(text.stderr).toContain("no app with id not-an-id")
    }), commandsTimeout)

  it.scopedLive(
    "quarantine list prints the held records (none here) and refuses an id that is not a UUID",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const listed = yield* cli(dir, ["quarantine", "list", "--json"])
        expect(listed.code, listed.stderr).toBe(0)
        expect(JSON.parse(listed.stdout)).toEqual([])

        const text = yield* cli(dir, ["quarantine", "list", "--connection", crypto.randomUUID()])
        expect(text.code, text.stderr).toBe(0)
        expect(text.stdout.trim()).toBe("No quarantined records.")

        const bad = yield* cli(dir, ["quarantine", "list", "--connection", "x'; drop table users; --", "--json"])
        expect(bad.code).toBe(1)
        expect(parseJson(bad).error).toEqual({ _tag: "BadRequest", message: "--connection must be a UUID" })
      }),
    commandsTimeout
  )

  it.scopedLive(
    "provider-credentials set stores a secret that list never prints",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const app = yield* createApp(dir)
        const secret = "very-secret-client-secret-123"
        const set = yield* cliJson(dir, [
          "provider-credentials",
          "set",
          "--app",
          app,
          "--provider",
          "WHOOP",
          "--client-id",
          "whoop-client",
          "--client-secret",
          secret,
          "--scopes",
          "offline read:cycles"
        ])
        expect(set).toEqual({ app, provider: "WHOOP", clientId: "whoop-client" })
        const list = yield* cli(dir, ["provider-credentials", "list", "--app", app, "--json"])
        expect(list.code).toBe(0)
        expect(list.stdout).not.toContain(secret)
        const listed = parseJson(list).providerCredentials
        expect(listed).toHaveLength(1)
        expect(listed[0]).toMatchObject({ provider: "WHOOP", clientId: "whoop-client", scopes: "offline read:cycles" })
        const bad = yield* cli(dir, [
          "provider-credentials",
          "set",
          "--app",
          app,
          "--provider",
          "Polar",
          "--client-id",
          "x",
          "--client-secret",
          "y",
          "--json"
        ])
        expect(bad.code).toBe(1)
      }),
    commandsTimeout
  )

  it.scopedLive(
    "provider-credentials set --auth-type OAuth2 keeps the OAuth 1.0a ones; token-exchange reports per connection",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const app = yield* createApp(dir)
        const credentials = (clientId: string, secret: string, extra: ReadonlyArray<string> = []) =>
          cliJson(dir, [
            "provider-credentials",
            "set",
            "--app",
            app,
            "--provider",
            "Garmin",
            "--client-id",
            clientId,
            "--client-secret",
            secret,
            ...extra
          ])
        yield* credentials("consumer-key", "consumer-secret-123")
        const set = yield* credentials("consumer-key", "oauth2-secret-456", ["--auth-type", "OAuth2"])
        expect(set).toEqual({ app, provider: "Garmin", clientId: "consumer-key", authType: "OAuth2" })
        const list = yield* cli(dir, ["provider-credentials", "list", "--app", app, "--json"])
        expect(list.stdout).not.toContain("consumer-secret-123")
        expect(list.stdout).not.toContain("oauth2-secret-456")
        expect(parseJson(list).providerCredentials[0]).toMatchObject({
          provider: "Garmin",
          authType: "OAuth2",
          oauth1ClientId: "consumer-key"
        })
        // WHOOP has no OAuth 1.0a
        const refused = yield* cli(dir, [
          "provider-credentials",
          "set",
          "--app",
          app,
          "--provider",
          "WHOOP",
          "--client-id",
          "x",
          "--client-secret",
          "y",
          "--auth-type",
          "OAuth1"
        ])
        expect(refused.code).toBe(1)
        expect(refused.stderr).toContain("does not accept OAuth1")
        // no connection holds OAuth 1.0a tokens: an empty report
        const exchanged = yield* cli(dir, ["token-exchange", "--app", app, "--json"])
        expect(exchanged.code, exchanged.stderr).toBe(0)
        expect(parseJson(exchanged)).toEqual({ results: [] })
        const text = yield* cli(dir, ["token-exchange", "--app", app])
        expect(text.stdout).toContain("nothing to exchange")
      }),
    commandsTimeout
  )

  it.scopedLive(
    "changes to apps, API keys, provider credentials and erasures are in the audit log, by the CLI and its OS user",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const created = yield* cliJson(dir, ["apps", "create", "--name", "audited app"])
        const app = created.app.id as string
        const key = yield* cliJson(dir, ["api-keys", "create", "--app", app, "--permissions", "users:read"])
        yield* cliJson(dir, ["api-keys", "revoke", key.id])
        const setCredentials = (secret: string) =>
          cliJson(dir, [
            "provider-credentials",
            "set",
            "--app",
            app,
            "--provider",
            "WHOOP",
            "--client-id",
            "whoop-client",
            "--client-secret",
            secret
          ])
        yield* setCredentials("whoop-secret-one")
        yield* setCredentials("whoop-secret-two")
        const { user } = yield* cliJson(dir, ["users", "create", "--app", app, "--external-user-id", "ext-audited"])
        yield* cliJson(dir, ["users", "erase", "--app", app, user.id])

        const listed = yield* cli(dir, ["audit", "list", "--limit", "20", "--json"])
        expect(listed.code, listed.stderr).toBe(0)
        const events = (parseJson(listed).data as Array<Record<string, any>>).filter((event) => event.appId === app)
        // The erasure keeps who erased and when, but scrubs the erased user's id from the events about it
        // (docs/data-lifecycle.md), its own event included.
        expect(events.map((event) => [event.action, event.targetId])).toEqual([
          ["user.erase", null],
          ["providerCredentials.replace", "WHOOP"],
          ["providerCredentials.create", "WHOOP"],
          ["apiKey.revoke", key.id],
          ["apiKey.create", key.id],
          ["apiKey.create", expect.any(String)],
          ["app.create", app]
        ])
        let osUser: string | null = null
        try {
          osUser = os.userInfo().username
        } catch {
          osUser = null
        }
        for (const event of events) {
          expect(event.operatorId).toBeNull()
          expect(event.operatorEmail).toBeNull()
          expect(event.detail.via).toBe("cli")
          if (osUser !== null) expect(event.detail.osUser).toBe(osUser)
        }
        expect(events[0]!.detail.externalUserId).toBeUndefined()
        expect(events[0]!.detail.userErased).toBe(true)
        expect(events[3]!.detail.prefix).toBe(key.prefix)
        const text = JSON.stringify(events)
        for (const secret of ["whoop-secret-one", "whoop-secret-two", key.apiKey, created.apiKey]) {
          expect(text).not.toContain(secret)
        }
        const readable = yield* cli(dir, ["audit", "list"])
        expect(readable.code, readable.stderr).toBe(0)
        expect(readable.stdout).toContain("providerCredentials.replace")
        // The readable list names the actor and the app; an erased user is named by nothing of its own.
        const eraseLine = readable.stdout.split("\n").find((line) => line.includes("user.erase"))!
        expect(eraseLine).toContain(osUser === null ? "CLI" : `CLI (${osUser})`)
        expect(eraseLine).toContain("app audited app")
        expect(eraseLine).toContain("an erased user")
        expect(eraseLine).not.toContain("ext-audited")

        // The filters of the portal's audit page, with the paging.
        const filtered = yield* cliJson(dir, [
          "audit",
          "list",
          "--app",
          app,
          "--action",
          "apiKey.create",
          "--limit",
          "1"
        ])
        expect(filtered.data.map((event: any) => [event.action, event.appId, event.actorType])).toEqual([
          ["apiKey.create", app, "cli"]
        ])
        const next = yield* cliJson(dir, [
          "audit",
          "list",
          "--app",
          app,
          "--action",
          "apiKey.create",
          "--limit",
          "1",
          "--cursor",
          filtered.nextCursor
        ])
        expect(next.data.map((event: any) => event.targetId)).toEqual([events[5]!.targetId])
        expect(next.nextCursor).toBeNull()
        const noOperator = yield* cliJson(dir, ["audit", "list", "--app", app, "--actor-type", "operator"])
        expect(noOperator.data).toEqual([])
        const badTime = yield* cli(dir, ["audit", "list", "--from", "yesterday"])
        expect(badTime.code).toBe(1)
        expect(badTime.stderr).toContain("from")
      }),
    commandsTimeout
  )

  it.live("openapi prints the OpenAPI document without a database", () =>
    Effect.gen(function*() {
      const result = yield* binary(path.join(os.tmpdir(), `pulsebridge-cli-none-${crypto.randomUUID()}`), ["openapi"])
      expect(result.code).toBe(0)
      const document = parseJson(result)
      expect(document.openapi).toBe("3.1.0")
      expect(Object.keys(document.paths)).toContain("/api/v1/users")
    }), commandsTimeout)

  it.live(
    "a reader that closes the pipe early (| head) ends the command quietly, with exit code 0",
    () =>
      Effect.async<{ code: number | null; stderr: string }>((resume) => {
        const child = spawnCli(path.join(os.tmpdir(), `pulsebridge-cli-none-${crypto.randomUUID()}`), ["openapi"])
        // As `head` does: the first chunk read, then the pipe closed while the command still writes the rest.
        child.stdout.once("data", () => child.stdout.destroy())
        let stderr = ""
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
        child.on("close", (code) => resume(Effect.succeed({ code, stderr })))
        child.stdin.end()
        return Effect.sync(() => child.kill("SIGKILL"))
      }).pipe(Effect.map((result) => {
        expect(result.stderr).toBe("")
        expect(result.code).toBe(0)
      })),
    commandsTimeout
  )

  it.scopedLive(
    "a database that cannot be opened is one line on stderr, without a stack trace or credential",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const notADir = path.join(dir, "file")
        fs.writeFileSync(notADir, "")
        const embedded = yield* binary(notADir, ["apps", "list"])
        expect(embedded.code).toBe(1)
        expect(embedded.stdout).toBe("")
        expect(embedded.stderr.trim().split("\n")).toHaveLength(1)
        expect(embedded.stderr).not.toMatch(/\n\s+at /)

        const port = yield* freePort
        const remote = yield* binary(dir, ["apps", "list", "--json"], {
          env: { DATABASE_URL: `postgres://operator:hunter2secret@127.0.0.1:${port}/pulsebridge` }
        })
        expect(remote.code).toBe(1)
        expect(parseJson(remote).error._tag).toBe("SqlError")
        expect(remote.stderr.trim().split("\n")).toHaveLength(1)
        expect(remote.stdout + remote.stderr).not.toContain("hunter2secret")
      }),
    commandsTimeout
  )

  // One server for what needs one: its start costs more than anything else in the file.
  it.scopedLive(
    "serve --json prints where it listens; the CLI and mcp (for the user of PULSEBRIDGE_USER_TOKEN, until the token is rotated) work beside it",
    () =>
      Effect.gen(function*() {
        const dir = yield* dataDir
        const port = yield* freePort
        const server = yield* runningServer(dir, port, ["--json"])
        expect(server.stdout.trim().split("\n")).toHaveLength(1)
        expect(JSON.parse(server.stdout)).toEqual({
          status: "running",
          url: `https://localhost:${port}`,
          port,
          database: "embedded",
          pid: server.child.pid
        })

        // The server holds the embedded database; the CLI can only reach it through the server's socket.
        const lock = JSON.parse(fs.readFileSync(path.join(dir, "pg.lock"), "utf8")) as { pid: number }
        expect(server.child.exitCode).toBeNull()
        expect(lock.pid).toBe(server.child.pid)
        const listedApps = parseJson(yield* binary(dir, ["apps", "list", "--json"]))
        expect((listedApps.apps as Array<{ name: string }>).map((app) => app.name)).toContain("Demo app")

        // As on a developer's machine: the server holds the embedded database, the assistant starts `mcp` beside it.
        const app = yield* createApp(dir)
        const { token, user } = yield* cliJson(dir, ["users", "create", "--app", app, "--external-user-id", "mcp"])
        let stderr = ""
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [entry, "mcp"],
          cwd: repoRoot,
          env: childEnv(dir, { PULSEBRIDGE_USER_TOKEN: token }) as Record<string, string>,
          stderr: "pipe"
        })
        transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
        const client = new Client({ name: "cli-test", version: "1.0.0" })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(transport)),
          () => Effect.promise(() => client.close())
        )
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.map((tool) => tool.name)).toContain("get_glucose_summary")
        const profile = yield* Effect.promise(() => client.callTool({ name: "get_profile", arguments: {} }))
        expect(profile.structuredContent).toMatchObject({ userId: user.id, timezone: "UTC" })
        const listed = yield* Effect.promise(() => client.callTool({ name: "list_connections", arguments: {} }))
        expect(listed.structuredContent).toEqual({ connections: [] })
        const refused = yield* Effect.promise(() =>
          client.callTool({ name: "get_daily_load", arguments: { from: "2026-01-02", to: "2026-01-01" } })
        )
        expect(refused.isError, JSON.stringify(refused)).toBe(true)

        // The token rotated while the server runs: the next call is refused.
        yield* cliJson(dir, ["users", "rotate-token", "--app", app, user.id])
        const after = yield* Effect.promise(() =>
          client.callTool({ name: "get_profile", arguments: {} }).then(() => "answered", (e: Error) => e.message)
        )
        expect(after).toContain("no longer opens this user")
        expect(stderr).not.toContain(token)

        // A revoked or malformed token: one line on stderr, exit 1, nothing on stdout (the protocol's channel).
        for (const bad of [token, "not-a-token"]) {
          const result = yield* binary(dir, ["mcp"], { env: { PULSEBRIDGE_USER_TOKEN: bad } })
          expect(result.code, result.stderr).toBe(1)
          expect(result.stdout).toBe("")
          expect(result.stderr).toContain("Invalid or revoked user token")
        }
        const missing = yield* binary(dir, ["mcp"])
        expect(missing.code).not.toBe(0)
        expect(missing.stdout).toBe("")
      }),
    commandsTimeout
  )
})
