/**
 * The delivery worker under load, end to end on the live clock: the server's own worker sends to real
 * HTTPS receivers that answer, hang (never answer) or never complete a TLS handshake, and what arrives
 * when is read at the receivers and in the deliveries log. The wire is the subject here: a hanging
 * receiver holds a real socket, and only a real one shows whose event waits behind it.
 */
import { expect, layer } from "@effect/vitest"
import { createApp, makeTestServer } from "@pulsebridge/testing"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { connectTimeoutMs, sendersPerApp, sendersPerEndpoint } from "../../src/events/Delivery.js"
import { json, preview, send } from "../fixtures/Http.js"
import { eventually, pollUntil } from "../fixtures/Poll.js"
import type { Receiver } from "../fixtures/Receiver.js"
import { receiverCaFile, signatureValid, startReceiver, startSilentListener } from "../fixtures/Receiver.js"

const base = "/api/v1/webhook-endpoints"

const createEndpoint = (apiKey: string, url: string, events?: ReadonlyArray<string>) =>
  Effect.map(
    send("POST", base, { bearer: apiKey, json: events === undefined ? { url } : { url, events } }),
    (reply) => {
      expect(reply.status, preview(reply)).toBe(201)
      return json(reply) as { id: string; secret: string }
    }
  )

const sendTest = (apiKey: string, endpointId: string) =>
  Effect.map(send("POST", `${base}/${endpointId}/test`, { bearer: apiKey }), (reply) => {
    expect(reply.status, preview(reply)).toBe(202)
  })

const removeEndpoint = (apiKey: string, endpointId: string) =>
  Effect.map(send("DELETE", `${base}/${endpointId}`, { bearer: apiKey }), (reply) => {
    expect(reply.status, preview(reply)).toBe(204)
  })

/** A user of the app, deleted at once: a `user.deleted` event of its own user to each subscribed endpoint. */
const deletedUser = (apiKey: string, externalUserId: string) =>
  Effect.gen(function*() {
    const created = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId } })
    expect(created.status, preview(created)).toBe(201)
    const deleted = yield* send("DELETE", `/api/v1/users/${json(created).id}`, { bearer: apiKey })
    expect(deleted.status, preview(deleted)).toBe(204)
  })

const deliveriesOf = (apiKey: string, endpointId: string) =>
  Effect.map(send("GET", `${base}/${endpointId}/deliveries`, { bearer: apiKey }), (reply) => {
    expect(reply.status, preview(reply)).toBe(200)
    return (json(reply) as { data: Array<any> }).data
  })

const hangingReceiver = Effect.map(startReceiver(), (receiver) => {
  receiver.answer = () => ({ status: 204, hang: true })
  return receiver
})

/**
 * The number of requests `receiver` holds, watched for `window`: answers the most seen, so a test sees a
 * receiver that gets more than it should during the window.
 */
const mostHeld = (receiver: Receiver, window: Duration.DurationInput) =>
  pollUntil(Effect.sync(() => receiver.received.length), () => false, { every: "100 millis", within: window })

// The receivers listen on loopback, which the address guard refuses unless the operator allows it.
layer(makeTestServer({ webhookCaFile: Option.some(receiverCaFile), webhookAllowPrivate: true }), {
  timeout: "60 seconds",
  excludeTestServices: true
})("webhook delivery under load", (it) => {
  it.effect("an app whose 24 endpoints never answer holds at most its share of the senders; another app's event arrives at once", () =>
    Effect.scoped(Effect.gen(function*() {
      const hanging = yield* hangingReceiver
      const answering = yield* startReceiver()
      const a = yield* createApp("hanging receivers")
      const endpoints: Array<string> = []
      for (let i = 0; i < 24; i++) endpoints.push((yield* createEndpoint(a.apiKey, `${hanging.url}?n=${i}`)).id)
      for (const id of endpoints) yield* sendTest(a.apiKey, id)
      yield* eventually(Effect.sync(() => hanging.received.length), (n) => n >= 2, "the first hanging deliveries", {
        within: "10 seconds"
      })

      const b = yield* createApp("answering receiver")
      const endpoint = yield* createEndpoint(b.apiKey, answering.url)
      const sentAt = Date.now()
      yield* sendTest(b.apiKey, endpoint.id)
      // Each of A's attempts waits 15 s for an answer: behind them, B's event would wait that long at least.
      yield* eventually(Effect.sync(() => answering.received.length), (n) => n === 1, "the other app's event", {
        within: "5 seconds"
      })
      expect(answering.received[0]!.receivedAt - sentAt).toBeLessThan(5000)
      expect(signatureValid(endpoint.secret, answering.received[0]!)).toBe(true)

      // A fills its share and no more, while every one of its attempts hangs.
      yield* eventually(Effect.sync(() => hanging.received.length), (n) => n >= sendersPerApp, "A's share", {
        within: "5 seconds"
      })
      expect(yield* mostHeld(hanging, "2 seconds")).toBe(sendersPerApp)
      for (const id of endpoints) yield* removeEndpoint(a.apiKey, id)
    })))

  it.effect("one endpoint that never answers holds at most its share, however many users' events wait", () =>
    Effect.scoped(Effect.gen(function*() {
      const hanging = yield* hangingReceiver
      const { apiKey } = yield* createApp("one hanging endpoint")
      const endpoint = yield* createEndpoint(apiKey, hanging.url, ["user.deleted"])
      // Six users' events: their order binds each user only, so all six are due at once.
      for (let i = 0; i < 6; i++) yield* deletedUser(apiKey, `hanging-${i}`)
      yield* eventually(Effect.sync(() => hanging.received.length), (n) => n >= sendersPerEndpoint, "the first", {
        within: "5 seconds"
      })
      expect(yield* mostHeld(hanging, "2 seconds")).toBe(sendersPerEndpoint)
      yield* removeEndpoint(apiKey, endpoint.id)
    })))

  it.effect("a receiver that never completes the TLS handshake fails the attempt after the connect timeout", () =>
    Effect.scoped(Effect.gen(function*() {
      const silent = yield* startSilentListener
      const { apiKey } = yield* createApp("silent listener")
      const endpoint = yield* createEndpoint(apiKey, silent.url)
      const sentAt = Date.now()
      yield* sendTest(apiKey, endpoint.id)
      const [delivery] = yield* eventually(
        deliveriesOf(apiKey, endpoint.id),
        (data) => data[0]?.attempts === 1,
        "the failed attempt",
        { every: "250 millis", within: "12 seconds" }
      )
      expect(delivery).toMatchObject({ status: "Pending", lastStatusCode: null })
      expect(delivery.lastError).toMatch(/no connection within 5 s/)
      // The worker notices the event within about a second, then waits the connect timeout, not the 15 s for an answer.
      const elapsed = Date.now() - sentAt
      expect(elapsed).toBeGreaterThanOrEqual(connectTimeoutMs - 500)
      expect(elapsed).toBeLessThan(connectTimeoutMs + 5000)
    })))

  it.effect("each attempt is signed when it is sent: one queued behind hanging ones carries the time it left", () =>
    Effect.scoped(Effect.gen(function*() {
      const hanging = yield* hangingReceiver
      const answering = yield* startReceiver()
      const { apiKey } = yield* createApp("signing time")
      // Created first, so their deliveries of the one event come first.
      for (let i = 0; i < 4; i++) yield* createEndpoint(apiKey, `${hanging.url}?n=${i}`, ["user.deleted"])
      const endpoint = yield* createEndpoint(apiKey, answering.url, ["user.deleted"])
      yield* deletedUser(apiKey, "signed-late")
      const [request] = yield* eventually(
        Effect.sync(() => answering.received),
        (received) => received.length === 1,
        "the delivery to the answering receiver",
        { within: "20 seconds" }
      )
      expect(signatureValid(endpoint.secret, request!)).toBe(true)
      const signedAt = Number(request!.headers["webhook-timestamp"]) * 1000
      expect(Math.abs(request!.receivedAt - signedAt)).toBeLessThanOrEqual(2000)
    })))
})
