/**
 * Webhook deliveries survive SIGKILL: the server runs as a child process, its receiver failing, and
 * is killed with deliveries pending (one waiting for its retry, two behind it). Started again over
 * the same data dir and database, it delivers all three, in order, signed.
 */
import { expect, it } from "@effect/vitest"
import { childServerClient, freePort, killChild, startChildServer, tempDir } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { receiverCaFile, signatureValid, startReceiver } from "../fixtures/Receiver.js"
import { databaseEnv } from "../fixtures/Restart.js"

const base = "/api/v1/webhook-endpoints"

it.live(
  "deliveries pending when the server is killed with SIGKILL are all delivered after a restart, in order",
  () =>
    Effect.scoped(Effect.gen(function*() {
      const dataDir = yield* tempDir("pulsebridge-webhooks-")
      const env = { ...(yield* databaseEnv), WEBHOOK_CA_FILE: receiverCaFile, LOG_LEVEL: "Warn" }
      const receiver = yield* startReceiver()
      receiver.answer = () => ({ status: 500 })

      const port = yield* freePort
      const server = yield* startChildServer({ dataDir, port, args: ["--sandbox"], env })
      expect(server.apiKey, server.output()).toBeDefined()
      const apiKey = server.apiKey!
      const { endpoint, events } = yield* Effect.gen(function*() {
        const created = yield* send("POST", base, { bearer: apiKey, json: { url: receiver.url } })
        expect(created.status, preview(created)).toBe(201)
        const endpoint = json(created) as { id: string; secret: string }
        const events: Array<string> = []
        for (let i = 0; i < 3; i++) {
          const sent = yield* send("POST", `${base}/${endpoint.id}/test`, { bearer: apiKey })
          expect(sent.status, preview(sent)).toBe(202)
          events.push(json(sent).eventId)
        }
        // The first attempt failed and was recorded: the first event waits for its retry, the others behind it.
        yield* eventually(
          send("GET", `${base}/${endpoint.id}/deliveries`, { bearer: apiKey }),
          (reply) => json(reply).data.some((d: any) => d.attempts === 1),
          "the first failed attempt"
        )
        return { endpoint, events }
      }).pipe(Effect.provide(childServerClient(dataDir, port)))
      yield* killChild(server)
      expect(receiver.received.map((r) => r.event.id)).toEqual([events[0]])

      receiver.answer = () => ({ status: 204 })
      const port2 = yield* freePort
      yield* startChildServer({ dataDir, port: port2, args: ["--sandbox"], env })
      yield* eventually(
        Effect.sync(() => receiver.received.length),
        (n) => n >= 4,
        "the deliveries after the restart",
        { within: "60 seconds" }
      )
      const ids = receiver.received.map((r) => r.event.id)
      expect(ids).toEqual([events[0], events[0], events[1], events[2]])
      for (const request of receiver.received) expect(signatureValid(endpoint.secret, request)).toBe(true)
      const log = yield* eventually(
        send("GET", `${base}/${endpoint.id}/deliveries`, { bearer: apiKey }),
        (reply) => json(reply).data.every((d: any) => d.status === "Delivered"),
        "every delivery recorded as Delivered"
      ).pipe(Effect.provide(childServerClient(dataDir, port2)))
      expect(json(log).data.map((d: any) => [d.eventId, d.attempts])).toEqual([
        [events[2], 1],
        [events[1], 1],
        [events[0], 2]
      ])
    })),
  { timeout: 180_000 }
)
