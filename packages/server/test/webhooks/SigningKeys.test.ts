/**
 * Google Health notifications to an app with its own Fitbit credentials are checked against the keys Google
 * publishes, read by the server from the keyset's address (here a local server standing in for Google's, set with
 * `PROVIDER_SIGNING_KEYS_URLS`): a delivery signed by a published key is accepted, one signed otherwise is 401; a
 * rotated key is found by reading the keys again, once; a forged signature cannot make the server read them again
 * and again; keys read before serve while the address is down; a delivery refused anyway (a wrong Authorization)
 * reads no keys; and with no keys at all a delivery is 503, for Google to send it again, and nothing is queued.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { googleHealthSandboxKeyset } from "@pulsebridge/providers"
import { googleHealthSimulatorSignature } from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { ProviderCredentials } from "../../src/apps/ProviderCredentials.js"
import { expectError, preview, send } from "../fixtures/Http.js"

/** The stand-in for Google's keyset address: what it serves, whether it is up, and how often it was read. */
const keysServer = { keyset: googleHealthSandboxKeyset("key-a"), up: true, reads: 0 }
const server = http.createServer((_req, res) => {
  keysServer.reads++
  if (!keysServer.up) {
    res.writeHead(500).end()
    return
  }
  res.writeHead(200, { "content-type": "application/json" }).end(keysServer.keyset)
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const keysUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keyset.json`

const authorization = "Bearer subscriber-secret"

/** An app with its own Fitbit credentials and the subscriber's Authorization value. */
const ownCredentials = (label: string) =>
  Effect.gen(function*() {
    const { app } = yield* createUser(`${label}-${crypto.randomUUID()}`)
    yield* (yield* ProviderCredentials).set(app.id, "Fitbit", {
      clientId: "own-client",
      clientSecret: Redacted.make("own-secret"),
      webhookVerificationCode: authorization
    })
    return app.id
  })

/** A notification as Google posts it, for a user no connection has (accepted, nothing to queue). */
const body = JSON.stringify({
  data: {
    version: "1",
    healthUserId: "nobody-here",
    operation: "UPSERT",
    dataType: "steps",
    intervals: [{
      physicalTimeInterval: { startTime: "2026-11-01T00:00:00Z", endTime: "2026-11-02T00:00:00Z" },
      civilIso8601TimeInterval: { startTime: "2026-11-01T00:00:00", endTime: "2026-11-02T00:00:00" }
    }]
  }
})

const deliver = (appId: string, signedBy: string, auth = authorization) =>
  send("POST", `/webhooks/fitbit/${appId}`, {
    body,
    headers: { authorization: auth, "x-healthapi-signature": googleHealthSimulatorSignature(signedBy, body) }
  })

const storedMessages = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ count: number }>`select count(*)::int as count from cluster_messages`
).pipe(Effect.map((rows) => rows[0]!.count))

layer(makeTestServer({ signingKeysUrls: new Map([["fitbit", keysUrl]]) }), { timeout: "60 seconds" })(
  "provider signing keys",
  (it) => {
    it.effect("published keys are read, kept, read again for a rotated key, and used while their address is down", () =>
      Effect.gen(function*() {
        const appId = yield* ownCredentials("signing-keys")
        // Refused anyway: no keys are read.
        expectError(yield* deliver(appId, "key-a", "Bearer wrong"), 401, "Unauthorized")
        expect(keysServer.reads).toBe(0)

        const signed = yield* deliver(appId, "key-a")
        expect(signed.status, preview(signed)).toBeLessThan(300)
        expect(keysServer.reads).toBe(1)
        expect((yield* deliver(appId, "key-a")).status).toBeLessThan(300)
        expect(keysServer.reads).toBe(1)

        // Google rotates: the first delivery signed by the new key reads the keys again and is accepted.
        keysServer.keyset = googleHealthSandboxKeyset("key-b")
        const rotated = yield* deliver(appId, "key-b")
        expect(rotated.status, preview(rotated)).toBeLessThan(300)
        expect(keysServer.reads).toBe(2)

        // Forged: refused, and the keys were just read again, so they are not read once more.
        const before = yield* storedMessages
        expectError(yield* deliver(appId, "forger"), 401, "Unauthorized")
        expectError(yield* deliver(appId, "key-a"), 401, "Unauthorized")
        expect(keysServer.reads).toBe(2)
        expect(yield* storedMessages).toBe(before)

        // The address goes down: the keys read before still check deliveries.
        keysServer.up = false
        expect((yield* deliver(appId, "key-b")).status).toBeLessThan(300)
      }))
  }
)

layer(
  makeTestServer({ signingKeysUrls: new Map([["fitbit", "http://127.0.0.1:9/unreachable.json"]]) }),
  { timeout: "60 seconds" }
)("provider signing keys that cannot be read", (it) => {
  it.effect("a delivery is 503 with Retry-After and queues nothing; one refused anyway is still 401", () =>
    Effect.gen(function*() {
      const appId = yield* ownCredentials("signing-keys-down")
      const before = yield* storedMessages
      const reply = yield* deliver(appId, "key-a")
      expect(reply.status, preview(reply)).toBe(503)
      expect(reply.headers["retry-after"]).toBe("300")
      expect(JSON.parse(reply.text)).toMatchObject({ _tag: "ServiceUnavailable" })
      expectError(yield* deliver(appId, "key-a", "Bearer wrong"), 401, "Unauthorized")
      expect(yield* storedMessages).toBe(before)
    }))
})
