/**
 * Scale-out over one PostgreSQL: an API process (`ROLE=api`, which only enqueues sync work) and a
 * worker process (`ROLE=worker`, which runs it) as separate child processes. A provider connected
 * through the API node is backfilled by the worker, and the API node serves the result. Needs a
 * real PostgreSQL (`DATABASE_URL`): the embedded database belongs to one process.
 */
import { expect, it } from "@effect/vitest"
import {
  childServerClient,
  freePort,
  freshDatabase,
  killChild,
  runCli,
  startChildServer,
  tempDir
} from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { addDays, localToday } from "../../src/platform/Calendar.js"
import { makeSecretBox } from "../../src/platform/SecretBox.js"
import { connect, listConnections, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"

const databaseUrl = process.env["DATABASE_URL"]

it.live.skipIf(databaseUrl === undefined || databaseUrl === "")(
  "an API node and a worker node over one PostgreSQL: the worker syncs what the API node enqueued",
  () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-roles-")
      const secretKey = crypto.randomBytes(32).toString("base64url")
      const common = { DATABASE_URL: yield* freshDatabase(databaseUrl!), SECRET_KEY: secretKey, LOG_LEVEL: "Warn" }
      const apiPort = yield* freePort
      // The API node serves the sandbox providers; the worker reaches them by the app's credentials.
      const api = yield* startChildServer({
        dataDir,
        port: apiPort,
        args: ["--sandbox"],
        env: { ...common, ROLE: "api" }
      })
      const appId = /\(id ([0-9a-f-]{36})\)/.exec(api.output())?.[1]
      expect(appId, api.output()).toBeDefined()
      expect(api.apiKey).toBeDefined()

      const sandbox = `https://127.0.0.1:${apiPort}/sandbox/dexcom`
      const stored = yield* runCli([
        "provider-credentials",
        "set",
        "--app",
        appId!,
        "--provider",
        "Dexcom",
        "--client-id",
        "pulsebridge-sandbox-dexcom",
        "--client-secret",
        makeSecretBox(secretKey).derive("sandbox-client-secret:Dexcom"),
        "--auth-base-url",
        `https://localhost:${apiPort}/sandbox/dexcom`,
        "--token-base-url",
        sandbox,
        "--api-base-url",
        sandbox
      ], { ...common, DATA_DIR: dataDir })
      expect(stored.code, stored.output).toBe(0)

      const runnerPort = yield* freePort
      const workerPort = yield* freePort
      yield* startChildServer({
        dataDir,
        port: workerPort,
        env: { ...common, ROLE: "worker", RUNNER_PORT: String(runnerPort), RUNNER_HOST: "127.0.0.1" }
      })

      yield* Effect.gen(function*() {
        const created = yield* send("POST", "/api/v1/users", { bearer: api.apiKey!, json: { externalUserId: "roles" } })
        expect(created.status, preview(created)).toBe(201)
        const { id: userId, token } = json(created) as { id: string; token: string }
        const { connectionId } = yield* connect(userId, token, "Dexcom", simulatedUser("dexcom"))
        yield* waitForSync(userId, token, connectionId, { timeout: "120 seconds" })
        const to = localToday(new Date(), null)
        const reply = yield* send(
          "GET",
          `/api/v1/users/${userId}/connections/glucose?from=${addDays(to, -6)}&to=${to}`,
          {
            bearer: token
          }
        )
        expect(reply.status, preview(reply)).toBe(200)
        // Six whole days of 5-minute readings, less the sensor's gaps and the few unreadable records the
        // sandbox serves (quarantined); today may have just begun.
        expect((json(reply) as any).readings.length).toBeGreaterThan(5 * 288)
        const [connection] = yield* listConnections(userId, token)
        expect(connection.syncState).toBe("Idle")
      }).pipe(Effect.provide(childServerClient(dataDir, apiPort)))
      yield* killChild(api)
    }).pipe(Effect.scoped),
  { timeout: 300_000 }
)
