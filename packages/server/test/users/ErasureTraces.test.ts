/**
 * Nothing of an erased user stays readable, beyond its rows (`Erasure.test.ts`): the copies of its identifiers
 * that other tables took (the portal's audit events name the user's external id and id, and its connections)
 * are scrubbed when the erasure ends, and on the embedded database the deleted row versions are vacuumed away,
 * so that no file of `DATA_DIR/pg` holds the user's external id, metadata or notes. Driven as an operator
 * would: the portal's sandbox page makes and connects the user, an operator re-syncs, exports and erases it.
 */
import { SqlClient } from "@effect/sql"
import { expect, it, layer } from "@effect/vitest"
import {
  childServerClient,
  createApp,
  databaseKind,
  freePort,
  makeTestServer,
  portalClient,
  portalLogin,
  runCli,
  startChildServer,
  stopChild,
  tempDir,
  TestServer
} from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { simulatedUser } from "../fixtures/Connect.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { entriesPath } from "../journal/fixtures/Journal.js"
import { loggedIn } from "../portal/fixtures.js"

const tombstoneDone = (userId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ completedAt: Date | null }>`select completed_at from erased_users where id = ${userId}`
  ).pipe(
    Effect.map((rows) => rows[0]?.completedAt ?? null)
  )

/** The audit log's rows as JSON text, the way `Erasure.test.ts` reads every table. */
const auditRows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ j: string }>`select row_to_json(a)::text as j from audit_events a order by id`
).pipe(Effect.map((rows) => rows.map((row) => row.j)))

/** When each table was last vacuumed by a command (not by autovacuum), by name. */
const lastVacuums = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ relname: string; lastVacuum: Date | null }>`select relname, last_vacuum from pg_stat_user_tables`
).pipe(Effect.map((rows) => new Map(rows.map((row) => [row.relname, row.lastVacuum]))))

layer(makeTestServer({ sandbox: true, syncCron: "0 0 1 1 *" }), { timeout: "240 seconds", excludeTestServices: true })(
  "erasure traces",
  (it) => {
    it.effect(
      "the portal's audit events keep who did what, but no identifier of the erased user; the tables are vacuumed",
      () =>
        Effect.gen(function*() {
          const { client } = yield* loggedIn
          const { app } = yield* createApp("traces")
          const externalUserId = `traces-${simulatedUser("ext")}`
          const made = yield* client.post("/portal/api/sandbox/test-users", { json: { appId: app.id, externalUserId } })
          expect(made.status, made.text).toBe(201)
          const userId = made.body.user.id as string
          const connected = yield* client.post(`/portal/api/sandbox/users/${userId}/connections`, {
            json: { provider: "Dexcom" }
          })
          expect(connected.status, connected.text).toBe(201)
          const connectionId = connected.body.id as string
          const resynced = yield* client.post(`/portal/api/users/${userId}/connections/${connectionId}/sync`)
          expect(resynced.status, resynced.text).toBe(202)
          const exported = yield* client.get(`/portal/api/users/${userId}/export`)
          expect(exported.status).toBe(200)

          const actions = ["sandbox.testUser", "sandbox.connect", "connection.resync", "user.export"]
          const before = (yield* auditRows).filter((row) => row.includes(userId) || row.includes(externalUserId))
          expect(before.map((row) => JSON.parse(row).action).sort()).toEqual([...actions].sort())
          expect(before.filter((row) => row.includes(externalUserId)).length).toBeGreaterThan(0)

          const requested = new Date()
          const erased = yield* client.post(`/portal/api/users/${userId}/erase`, {
            json: { confirmExternalUserId: externalUserId }
          })
          expect(erased.status, erased.text).toBe(202)
          // The erasure's own event never holds the external id the operator typed.
          const eraseEvent = (yield* auditRows).map((row) => JSON.parse(row)).find((e) => e.action === "user.erase")
          expect(JSON.stringify(eraseEvent)).not.toContain(externalUserId)
          yield* eventually(tombstoneDone(userId), (done) => done !== null, "the erasure to end", {
            within: "120 seconds",
            every: "250 millis"
          })

          const after = yield* auditRows
          for (const row of after) {
            for (const needle of [externalUserId, userId, connectionId]) {
              expect(row, `an audit event holds ${needle}`).not.toContain(needle)
            }
          }
          // The events stay, with who did what and when, marked as about an erased user.
          const scrubbed = after.map((row) => JSON.parse(row)).filter((e) => e.detail.userErased === true)
          expect(scrubbed.map((e) => e.action).sort()).toEqual([...actions, "user.erase"].sort())
          for (const event of scrubbed) {
            expect(event.operator_email).toMatch(/@example\.com$/)
            expect(event.app_id).toBe(app.id)
            expect(event.target_id).toBeNull()
          }
          const connect = scrubbed.find((e) => e.action === "sandbox.connect")
          expect(connect.detail).toEqual({ provider: "Dexcom", userErased: true })
          // The portal's audit page reads them as they are.
          const page = yield* client.get("/portal/api/audit?limit=200")
          expect(page.status, page.text).toBe(200)
          expect(page.text).not.toContain(externalUserId)
          expect(page.text).not.toContain(userId)

          const vacuumed = yield* lastVacuums
          for (const table of ["users", "audit_events", "connections", "glucose_readings", "journal_entries"]) {
            const at = vacuumed.get(table) ?? null
            if (databaseKind() === "pglite") {
              // The embedded database: the erasure vacuumed the tables it touched.
              expect(at, `${table} vacuumed`).not.toBeNull()
              expect(at!.getTime(), table).toBeGreaterThanOrEqual(requested.getTime() - 1000)
            } else {
              // PostgreSQL is left to its autovacuum: the service runs no VACUUM there.
              expect(at, `${table} vacuumed by a command`).toBeNull()
            }
          }
        }),
      200_000
    )
  }
)

/** The files under `dir` holding `needle` (as bytes), relative to `dir`. */
const filesHolding = (dir: string, needle: string): Array<string> => {
  const found: Array<string> = []
  const bytes = Buffer.from(needle, "utf8")
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && fs.readFileSync(full).includes(bytes)) found.push(path.relative(dir, full))
    }
  }
  walk(dir)
  return found
}

it.live.skipIf(databaseKind() === "postgres")(
  "on the embedded database no file of DATA_DIR/pg holds the erased user's external id, metadata or notes",
  () =>
    Effect.scoped(Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-erasure-files-")
      const port = yield* freePort
      const env = { LOG_LEVEL: "Warn" }
      const server = yield* startChildServer({ dataDir, port, env })
      const apiKey = server.apiKey!
      expect(apiKey, server.output()).toBeDefined()
      const email = `files-${simulatedUser("op")}@example.com`
      const operator = yield* runCli(["operators", "create", "--email", email, "--json"], {
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: "127.0.0.1"
      })
      expect(operator.code, operator.output).toBe(0)
      const setupToken = /#([A-Za-z0-9_-]+)"/.exec(operator.output)?.[1]
      expect(setupToken, operator.output).toBeDefined()

      const externalUserId = `files-${simulatedUser("ext")}`
      const planValue = `plan-${simulatedUser("meta")}`
      const noteText = `note-${simulatedUser("note")}`
      const pgDir = path.join(dataDir, "pg")
      yield* Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const password = "correct horse battery staple"
        const setup = yield* send("POST", "/portal/api/setup", { json: { token: setupToken, password } })
        expect(setup.status, preview(setup)).toBe(204)
        const portal = portalClient(baseUrl, yield* portalLogin(baseUrl, email, password))

        const created = yield* send("POST", "/api/v1/users", {
          bearer: apiKey,
          json: { externalUserId, metadata: { plan: planValue } }
        })
        expect(created.status, preview(created)).toBe(201)
        const { id: userId, token } = json(created) as { id: string; token: string }
        const entry = yield* send("POST", entriesPath(userId), {
          bearer: token,
          json: {
            entryKind: "Meal",
            consumedAtUtc: "2026-01-05T12:30:00Z",
            timezone: "UTC",
            title: "Lunch",
            notes: noteText
          }
        })
        expect(entry.status, preview(entry)).toBe(201)
        const exported = yield* portal.get(`/portal/api/users/${userId}/export`)
        expect(exported.status).toBe(200)
        // The search below can find them: they are in the database's files now.
        for (const needle of [externalUserId, planValue, noteText]) {
          expect(filesHolding(pgDir, needle), needle).not.toEqual([])
        }

        const erased = yield* portal.post(`/portal/api/users/${userId}/erase`, {
          json: { confirmExternalUserId: externalUserId }
        })
        expect(erased.status, erased.text).toBe(202)
        yield* eventually(
          Effect.map(send("POST", `/api/v1/users/${userId}/erase`, { bearer: apiKey }), (reply) => reply.status),
          (status) => status === 404,
          "the erasure to end",
          { within: "120 seconds", every: "500 millis" }
        )
        expectError(yield* send("GET", `/api/v1/users/${userId}`, { bearer: apiKey }), 404)
      }).pipe(Effect.provide(childServerClient(dataDir, port)))
      const stopped = yield* stopChild(server)
      expect(stopped.code, server.output()).toBe(0)

      for (const needle of [externalUserId, planValue, noteText]) {
        expect(filesHolding(pgDir, needle), `files holding ${needle}`).toEqual([])
      }
    })),
  300_000
)
