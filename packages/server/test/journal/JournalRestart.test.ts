/**
 * Durability of meal analysis across a crash: the real server (`pulsebridge serve --sandbox`) runs as
 * a child process, accepts scans whose analyses the sandbox analyser holds, is killed with SIGKILL,
 * and is started again on the same data: every analysis then completes, once.
 */
import { expect, it } from "@effect/vitest"
import { freePort, freshDatabase, killChild, startChildServer } from "@pulsebridge/testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as https from "node:https"
import * as os from "node:os"
import * as path from "node:path"
import { makePng } from "./fixtures/Images.js"
import { pollUntil } from "./fixtures/Journal.js"

interface Reply {
  readonly status: number
  readonly body: string
}

const call = (
  port: number,
  ca: string,
  method: string,
  route: string,
  options: { readonly bearer?: string; readonly body?: Buffer; readonly contentType?: string } = {}
) =>
  Effect.async<Reply, Error>((resume) => {
    const headers: Record<string, string | number> = {}
    if (options.bearer !== undefined) headers["authorization"] = `Bearer ${options.bearer}`
    if (options.body !== undefined) {
      headers["content-type"] = options.contentType ?? "application/json"
      headers["content-length"] = options.body.length
    }
    const request = https.request({ host: "127.0.0.1", port, method, path: route, ca, headers }, (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, body })))
    })
    request.on("error", (error) => resume(Effect.fail(error)))
    request.end(options.body)
  })

const jsonBody = (value: unknown) => Buffer.from(JSON.stringify(value))

const multipart = (image: Uint8Array, fields: Record<string, string>) => {
  const boundary = "----pulsebridge-restart"
  const parts: Array<Buffer> = [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="meal.png"\r\n` +
        `Content-Type: image/png\r\n\r\n`
    ),
    Buffer.from(image),
    Buffer.from("\r\n")
  ]
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` }
}

const until = <A>(what: string, effect: Effect.Effect<A, Error>, done: (a: A) => boolean, withinMs: number) =>
  Effect.filterOrFail(
    pollUntil(effect, done, { every: "200 millis", within: Duration.millis(withinMs) }),
    done,
    () => new Error(`${what}: not reached in time`)
  )

it.live(
  "analyses pending when the server is killed all complete, once each, after it starts again",
  () =>
    Effect.gen(function*() {
      const dataDir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-restart-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      const url = process.env["DATABASE_URL"]
      const databaseUrl = url !== undefined && url !== "" ? yield* freshDatabase(url) : undefined
      const port = yield* freePort

      const first = yield* startChildServer({
        dataDir,
        port,
        args: ["--sandbox"],
        env: databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }
      })
      const apiKey = /pb_sk_[A-Za-z0-9_-]+/.exec(first.output())?.[0]
      expect(apiKey, first.output()).toBeDefined()
      const ca = fs.readFileSync(path.join(dataDir, "tls", "cert.pem"), "utf8")
      const api = (method: string, route: string, options?: Parameters<typeof call>[4]) =>
        call(port, ca, method, route, options)

      const created = yield* api("POST", "/api/v1/users", {
        bearer: apiKey!,
        body: jsonBody({ externalUserId: "restart", timezone: "UTC" })
      })
      expect(created.status, created.body).toBe(201)
      const { id: userId, token } = JSON.parse(created.body)

      // The analyser holds its answers: the analyses are under way when the server dies.
      const fault = yield* api("POST", "/sandbox/analyzer/_sim/faults", {
        body: jsonBody({ kind: "hold", count: 100 })
      })
      expect(fault.status, fault.body).toBe(200)
      const entryIds: Array<string> = []
      for (const seed of [11, 22, 33]) {
        const form = multipart(makePng(16, 16, seed), { entryKind: "Meal", consumedAtUtc: "2026-01-05T12:30:00Z" })
        const reply = yield* api("POST", `/api/v1/users/${userId}/journal-entries/scans`, { bearer: token, ...form })
        expect(reply.status, reply.body).toBe(202)
        expect(JSON.parse(reply.body).analysisStatus).toBe("Pending")
        entryIds.push(JSON.parse(reply.body).id)
      }
      yield* until(
        "the analyser holds all three requests",
        Effect.map(api("GET", "/sandbox/analyzer/_sim/calls"), (r) => JSON.parse(r.body).held as number),
        (held) => held >= 3,
        60_000
      )
      yield* killChild(first)

      const second = yield* startChildServer({
        dataDir,
        port,
        args: ["--sandbox"],
        env: databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }
      })
      const read = (entryId: string) =>
        Effect.map(
          api("GET", `/api/v1/users/${userId}/journal-entries/${entryId}`, { bearer: token }),
          (r) => JSON.parse(r.body)
        )
      for (const entryId of entryIds) {
        const entry = yield* until(
          `entry ${entryId} completes`,
          read(entryId),
          (e) => e.analysisStatus !== "Pending",
          90_000
        )
        expect(entry.analysisStatus, JSON.stringify(entry)).toBe("Completed")
        expect(entry.items.length).toBeGreaterThan(0)
        expect(new Set(entry.items.map((i: any) => i.sortOrder)).size).toBe(entry.items.length)
        expect(entry.title).toBe(entry.items.map((i: any) => i.name).join(", "))
      }
      // one analysis per entry after the restart: three answered requests, no more
      const calls = JSON.parse((yield* api("GET", "/sandbox/analyzer/_sim/calls")).body).calls as Array<any>
      expect(calls.filter((c) => c.status === 200)).toHaveLength(3)
      yield* killChild(second)
    }).pipe(Effect.scoped),
  300_000
)
