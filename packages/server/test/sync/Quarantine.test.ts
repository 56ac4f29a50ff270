/**
 * What happens when a provider misbehaves for one connection, through HTTP with a test plug-in
 * (Acme) and its simulator: a malformed record is quarantined while the rest of its window is
 * stored, counted on the connection and released once the provider sends it readable; an API
 * that answers 410 Gone moves the connection to `Reauthorize` with a reason the app can show;
 * a consent without the scope the provider needs ends with `insufficient_scope`.
 */
import { expect, layer } from "@effect/vitest"
import { builtinPlugins, makeRegistry, ProviderRegistry } from "@pulsebridge/providers"
import { simulatorRegistry } from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Quarantine } from "../../src/sync/Quarantine.js"
import { connect, consent, createSession, listConnections, redirectUrl, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { waitForSync } from "../fixtures/Sync.js"
import { AcmePlugin } from "../plugins/acme/Plugin.js"
import { acmeQuirks, acmeUserId, makeAcmeSimulator } from "../plugins/acme/Simulator.js"

const registries = {
  providers: Layer.succeed(ProviderRegistry, ProviderRegistry.make(makeRegistry([...builtinPlugins, AcmePlugin]))),
  simulators: [...simulatorRegistry, { provider: "Acme", slug: "acme", make: makeAcmeSimulator }]
}

const utcDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10)

const activity = (userId: string, token: string) =>
  Effect.gen(function*() {
    const reply = yield* send(
      "GET",
      `/api/v1/users/${userId}/connections/activity?from=${utcDay(-6)}&to=${utcDay(0)}&provider=Acme`,
      { bearer: token }
    )
    expect(reply.status, preview(reply)).toBe(200)
    return (json(reply) as Array<{ date: string }>).map((day) => day.date).sort()
  })

const acmeEntry = (userId: string, token: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", `/api/v1/users/${userId}/connections/providers`, { bearer: token })
    expect(reply.status, preview(reply)).toBe(200)
    return (json(reply) as Array<any>).find((entry) => entry.provider.name === "Acme")
  })

layer(makeTestServer({ sandbox: true }, registries), { timeout: "180 seconds", excludeTestServices: true })(
  "provider records and grants that go wrong",
  (it) => {
    it.effect("a malformed record is quarantined, the rest of its window stored, and released when it reads well", () =>
      Effect.gen(function*() {
        acmeQuirks.oddDaysMended = false
        const { token, user } = yield* createUser("acme-odd")
        const account = simulatedUser("odd")
        const { connectionId } = yield* connect(user.id, token, "Acme", account)
        const synced = yield* waitForSync(user.id, token, connectionId)
        expect(synced.quarantinedRecords).toBe(1)
        expect(synced.statusReason).toBeNull()

        // Every day of the last week but the malformed one.
        const expected = [-6, -5, -4, -3, -1, 0].map(utcDay)
        expect(yield* activity(user.id, token)).toEqual(expected)
        // What the operator sees (`quarantine list`): the provider's record as sent, and why.
        const held = yield* Effect.flatMap(Quarantine, (q) => q.list({ connectionId, limit: 10 }))
        expect(held).toHaveLength(1)
        expect(held[0]).toMatchObject({
          connectionId,
          provider: "Acme",
          kind: "DailyActivity",
          providerRecordId: `${acmeUserId(account)}:${utcDay(-2)}`,
          reason: "steps: is malformed"
        })
        expect(JSON.parse(held[0]!.rawJson)).toMatchObject({ day: utcDay(-2), steps: "many" })

        // Read again: still one quarantined record, not two.
        acmeQuirks.oddDaysMended = true
        const since = new Date()
        yield* connect(user.id, token, "Acme", account)
        const resynced = yield* waitForSync(user.id, token, connectionId, { since })
        expect(resynced.quarantinedRecords).toBe(0)
        expect(yield* activity(user.id, token)).toEqual([-6, -5, -4, -3, -2, -1, 0].map(utcDay))
      }))

    it.effect("a 410 Gone moves the connection to Reauthorize with a reason the app can show", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("acme-retired")
        const account = simulatedUser("retired")
        const { connectionId } = yield* connect(user.id, token, "Acme", account)
        const entry = yield* eventually(
          acmeEntry(user.id, token),
          (found) => found.connection?.status === "Reauthorize",
          "the connection to need reauthorization",
          { every: "200 millis", within: "60 seconds" }
        )
        expect(entry.connection).toMatchObject({
          id: connectionId,
          providerUserId: acmeUserId(account),
          status: "Reauthorize",
          syncState: "Stopped"
        })
        expect(entry.connection.statusReason).toMatch(/^Acme no longer accepts this connection: .*HTTP 410/)
        // Endpoint 8 lists Active connections only.
        expect((yield* listConnections(user.id, token)).map((c) => c.id)).not.toContain(connectionId)
      }))

    it.effect("a consent without the required scope redirects with insufficient_scope and the missing scope", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("acme-unticked")
        const session = yield* createSession(user.id, token, "Acme")
        // The consent form sent with no scope ticked.
        const { final } = yield* consent(session.authorizationUrl, "approve", simulatedUser("unticked"), {
          consent_form: "1"
        })
        expect(`${final.origin}${final.pathname}`).toBe(redirectUrl)
        expect(Object.fromEntries(final.searchParams)).toEqual({
          success: "false",
          error: "insufficient_scope",
          missing_scope: "daily",
          provider: "Acme"
        })
        expect(yield* listConnections(user.id, token)).toEqual([])
      }))
  }
)
