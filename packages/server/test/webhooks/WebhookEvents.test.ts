/**
 * Events of a real change reach a real receiver: a sandbox user connects a provider through the
 * hosted flow, the backfill runs, and the server's own delivery worker POSTs `connection.created`,
 * `sync.backfill.completed` and `data.updated` to an HTTPS receiver, each signed as the receiver
 * checks by hand, in the order they happened.
 */
import { expect, layer } from "@effect/vitest"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { receiverCaFile, signatureValid, startReceiver } from "../fixtures/Receiver.js"
import { waitForSync } from "../fixtures/Sync.js"

layer(
  makeTestServer({
    sandbox: true,
    backfillDays: 14,
    syncCron: "0 0 1 1 *",
    webhookCaFile: Option.some(receiverCaFile)
  }),
  {
    timeout: "120 seconds",
    excludeTestServices: true
  }
)("webhook events", (it) => {
  it.effect("a sandbox connection's events arrive signed at the receiver, in order", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const { apiKey, token, user } = yield* createUser(`webhook-events-${simulatedUser("u")}`)
      const created = yield* send("POST", "/api/v1/webhook-endpoints", {
        bearer: apiKey,
        json: { url: receiver.url, events: ["connection.created", "sync.backfill.completed", "data.updated"] }
      })
      expect(created.status, preview(created)).toBe(201)
      const endpoint = json(created) as { id: string; secret: string }

      const { connectionId } = yield* connect(user.id, token, "Dexcom", simulatedUser("dexcom"))
      yield* waitForSync(user.id, token, connectionId, { timeout: "90 seconds" })
      const types = () => receiver.received.map((request) => request.event.type)
      yield* eventually(
        Effect.sync(types),
        (seen) => seen.includes("sync.backfill.completed"),
        "the backfill's events at the receiver",
        { within: "60 seconds" }
      )

      for (const request of receiver.received) {
        expect(signatureValid(endpoint.secret, request), request.event.type).toBe(true)
        expect(request.headers["webhook-id"]).toBe(request.event.id)
        expect(request.event.data.userId).toBe(user.id)
      }
      expect(types()[0]).toBe("connection.created")
      expect(receiver.received[0]!.event.data).toMatchObject({ connectionId, provider: "Dexcom", status: "Active" })
      const dataUpdated = receiver.received.filter((request) => request.event.type === "data.updated")
      expect(dataUpdated.length).toBeGreaterThan(0)
      for (const request of dataUpdated) {
        expect(request.event.data).toMatchObject({ connectionId, provider: "Dexcom" })
        expect(request.event.data.from <= request.event.data.to).toBe(true)
      }
      const completed = receiver.received.filter((request) => request.event.type === "sync.backfill.completed")
      expect(completed).toHaveLength(1)
      expect(completed[0]!.event.data).toMatchObject({
        connectionId,
        provider: "Dexcom",
        quarantined: expect.any(Number)
      })
      // One user's events arrive in the order they happened; nothing it did not subscribe to arrives.
      const times = receiver.received.map((request) => request.event.timestamp)
      expect([...times].sort()).toEqual(times)
      expect(new Set(types())).toEqual(new Set(["connection.created", "data.updated", "sync.backfill.completed"]))
    })))
})
