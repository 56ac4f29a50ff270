/**
 * The portal's webhook endpoints of an app over HTTP: the public routes' rules scoped to the app in
 * the path (another app's endpoint is a 404), the secret shown once and never audited, the
 * deliveries log with its filters, each delivery's payload and attempts, the endpoint's last error
 * and last success, its test event, secret rotation and removal, and each change in the audit log.
 * The server's own delivery worker is off: the tests run its rounds (`Delivery.tick`) under a
 * `TestClock`, against a real HTTPS receiver.
 */
import { expect, layer } from "@effect/vitest"
import { createApp, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as crypto from "node:crypto"
import { Delivery, retryDelaysMs } from "../../src/events/Delivery.js"
import { Outbox } from "../../src/events/Outbox.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { receiverCaFile, signatureValid, startReceiver } from "../fixtures/Receiver.js"
import type { PortalClient } from "./fixtures.js"
import { auditOf, loggedIn } from "./fixtures.js"

/**
 * One round of the worker, at the test clock's time. It sends what is due of every test's endpoints, so the tests
 * count what their own receiver got.
 */
const tick = Effect.asVoid(Effect.flatMap(Delivery, (delivery) => delivery.tick))

/** Runs `effect` with a `TestClock` just past the wall clock, so deliveries the server just made are due. */
const withTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.now() + 1000)
    return yield* effect
  }).pipe(Effect.provide(TestContext.TestContext))

/** Moves the test clock past the wall clock again (after requests that made deliveries on the wall clock). */
const catchUp = Effect.suspend(() => TestClock.setTime(Date.now() + 1000))

const sendTest = (client: PortalClient, endpointPath: string) =>
  Effect.map(client.post(`${endpointPath}/test`), (reply) => {
    expect(reply.status, reply.text).toBe(202)
    return reply.body.eventId as string
  })

// The receiver listens on loopback, which the address guard refuses unless the operator allows it.
layer(
  makeTestServer({ webhookCaFile: Option.some(receiverCaFile), webhookAllowPrivate: true, webhookDelivery: false }),
  { excludeTestServices: true, timeout: "120 seconds" }
)(
  "portal webhook endpoints",
  (it) => {
    it.effect("create answers the secret once; list, disable and the audit log never show it", () =>
      Effect.gen(function*() {
        const { client, email } = yield* loggedIn
        const { app } = yield* createApp()
        const base = `/portal/api/apps/${app.id}/webhook-endpoints`
        const created = yield* client.post(base, {
          json: { url: "https://example.com/hooks", description: "main", events: ["user.deleted"] }
        })
        expect(created.status, created.text).toBe(201)
        const secret = created.body.secret as string
        expect(secret).toMatch(/^whsec_/)
        const id = created.body.id as string

        const listed = yield* client.get(base)
        expect(listed.status).toBe(200)
        expect(listed.body.data).toHaveLength(1)
        expect(listed.body.data[0]).toMatchObject({ id, url: "https://example.com/hooks", enabled: true })
        expect(listed.text).not.toContain(secret)

        const disabled = yield* client.patch(`${base}/${id}`, { json: { enabled: false } })
        expect(disabled.status, disabled.text).toBe(200)
        expect(disabled.body).toMatchObject({ id, enabled: false })

        const createdEvents = yield* auditOf(client, "webhookEndpoint.create", id)
        expect(createdEvents).toHaveLength(1)
        expect(createdEvents[0]).toMatchObject({ operatorEmail: email, appId: app.id, targetType: "webhookEndpoint" })
        const updatedEvents = yield* auditOf(client, "webhookEndpoint.update", id)
        expect(updatedEvents).toHaveLength(1)
        expect(updatedEvents[0].detail).toEqual({ changed: { enabled: false } })
        const log = yield* client.get("/portal/api/audit?limit=200")
        expect(log.text).not.toContain(secret)
      }))

    it.effect("the same URL rules as the public routes: a refused URL is a 400, an unknown app a 404", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const { app } = yield* createApp()
        const base = `/portal/api/apps/${app.id}/webhook-endpoints`
        expectError(yield* client.post(base, { json: { url: "http://example.com/hooks" } }), 400)
        expectError(yield* client.post(base, { json: { url: "ftp://example.com/hooks" } }), 400)
        expectError(yield* client.get(`/portal/api/apps/${crypto.randomUUID()}/webhook-endpoints`), 404, "NotFound")
        expectError(
          yield* client.post(`/portal/api/apps/${crypto.randomUUID()}/webhook-endpoints`, {
            json: { url: "https://example.com/hooks" }
          }),
          404,
          "NotFound"
        )
        expect((yield* client.get(base)).body.data).toEqual([])
      }))

    it.effect("another app's endpoint is a 404 under this app's path, and left as it was", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const mine = yield* createApp()
        const theirs = yield* createApp()
        const created = yield* client.post(`/portal/api/apps/${theirs.app.id}/webhook-endpoints`, {
          json: { url: "https://example.com/theirs" }
        })
        expect(created.status, created.text).toBe(201)
        const id = created.body.id as string
        const wrong = `/portal/api/apps/${mine.app.id}/webhook-endpoints/${id}`
        expectError(yield* client.patch(wrong, { json: { enabled: false } }), 404, "NotFound")
        expectError(yield* client.get(`${wrong}/deliveries`), 404, "NotFound")
        expectError(yield* client.post(`${wrong}/deliveries/${crypto.randomUUID()}/retry`), 404, "NotFound")
        const theirsNow = yield* send("GET", `/api/v1/webhook-endpoints/${id}`, { bearer: theirs.apiKey })
        expect(json(theirsNow)).toMatchObject({ id, enabled: true })
        expect(yield* auditOf(client, "webhookEndpoint.update", id)).toEqual([])
      }))

    it.effect("the deliveries log pages, and a delivery is retried (audited); an unknown delivery is a 404", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const { apiKey, app } = yield* createApp()
        const base = `/portal/api/apps/${app.id}/webhook-endpoints`
        const created = yield* client.post(base, { json: { url: "https://example.com/log" } })
        const id = created.body.id as string
        for (let i = 0; i < 3; i++) {
          const sent = yield* send("POST", `/api/v1/webhook-endpoints/${id}/test`, { bearer: apiKey })
          expect(sent.status, preview(sent)).toBe(202)
        }
        const all = yield* eventually(
          client.get(`${base}/${id}/deliveries`),
          (reply) => reply.body.data.length === 3,
          "three deliveries"
        )
        const first = yield* client.get(`${base}/${id}/deliveries?limit=2`)
        expect(first.body.data).toHaveLength(2)
        const second = yield* client.get(`${base}/${id}/deliveries?limit=2&cursor=${first.body.nextCursor}`)
        expect([...first.body.data, ...second.body.data].map((d: any) => d.id)).toEqual(
          all.body.data.map((d: any) => d.id)
        )
        expect(second.body.nextCursor).toBeNull()
        expectError(yield* client.get(`${base}/${id}/deliveries?cursor=abc`), 400)

        const delivery = all.body.data[0]
        const retried = yield* client.post(`${base}/${id}/deliveries/${delivery.id}/retry`)
        expect(retried.status, retried.text).toBe(200)
        expect(retried.body).toMatchObject({ id: delivery.id, eventType: "webhook.test" })
        const events = yield* auditOf(client, "webhookDelivery.retry", delivery.id)
        expect(events).toHaveLength(1)
        expect(events[0].detail).toMatchObject({ endpointId: id, eventType: "webhook.test" })
        expectError(yield* client.post(`${base}/${id}/deliveries/${crypto.randomUUID()}/retry`), 404, "NotFound")
      }))

    it.effect("the endpoint shows its last error and last success while its first page is all pending, never tried", () =>
      Effect.scoped(withTestClock(Effect.gen(function*() {
        const { client } = yield* loggedIn
        const { app } = yield* createApp()
        const receiver = yield* startReceiver()
        const created = yield* client.post(`/portal/api/apps/${app.id}/webhook-endpoints`, {
          json: { url: receiver.url }
        })
        expect(created.status, created.text).toBe(201)
        const endpoint = `/portal/api/apps/${app.id}/webhook-endpoints/${created.body.id}`

        const fresh = yield* client.get(endpoint)
        expect(fresh.status, fresh.text).toBe(200)
        expect(fresh.body).toMatchObject({ lastError: null, lastSuccess: null, pending: 0, pausedUntil: null })

        // Delivered, then failing: test events have no user, so each waits behind the one before it.
        const deliveredEvent = yield* sendTest(client, endpoint)
        yield* catchUp
        yield* tick
        expect(receiver.received).toHaveLength(1)
        const deliveredAt = new Date(yield* TestClock.currentTimeMillis).toISOString()
        receiver.answer = () => ({ status: 503, body: "down for maintenance" })
        const failingEvent = yield* sendTest(client, endpoint)
        yield* catchUp
        yield* tick
        expect(receiver.received).toHaveLength(2)
        const failedAt = new Date(yield* TestClock.currentTimeMillis).toISOString()
        for (let i = 0; i < 22; i++) yield* sendTest(client, endpoint)
        yield* catchUp
        yield* tick
        expect(receiver.received).toHaveLength(2)

        const first = yield* client.get(`${endpoint}/deliveries?limit=20`)
        expect(first.status, first.text).toBe(200)
        expect(first.body.data).toHaveLength(20)
        for (const delivery of first.body.data) {
          expect(delivery).toMatchObject({ status: "Pending", attempts: 0, lastStatusCode: null, lastError: null })
        }
        const all = (yield* client.get(`${endpoint}/deliveries?limit=100`)).body.data as Array<any>
        const failing = all.find((d) => d.eventId === failingEvent)
        const delivered = all.find((d) => d.eventId === deliveredEvent)

        const detail = yield* client.get(endpoint)
        expect(detail.status, detail.text).toBe(200)
        expect(detail.body.endpoint).toMatchObject({ id: created.body.id, failingSince: failedAt })
        expect(detail.body.lastError).toEqual({
          deliveryId: failing.id,
          eventType: "webhook.test",
          attemptedAt: failedAt,
          statusCode: 503,
          error: "HTTP 503: down for maintenance"
        })
        expect(detail.body.lastSuccess).toEqual({
          deliveryId: delivered.id,
          eventType: "webhook.test",
          attemptedAt: deliveredAt,
          statusCode: 204,
          error: null
        })
        expect(detail.body.pending).toBe(23)
        expect(detail.text).not.toContain(created.body.secret)

        // The retry fails too: the delivery keeps both attempts, oldest first, with the event it sends.
        yield* TestClock.adjust(retryDelaysMs[0]!)
        yield* tick
        expect(receiver.received).toHaveLength(3)
        const retriedAt = new Date(yield* TestClock.currentTimeMillis).toISOString()
        const opened = yield* client.get(`${endpoint}/deliveries/${failing.id}`)
        expect(opened.status, opened.text).toBe(200)
        expect(opened.body.delivery).toMatchObject({ id: failing.id, status: "Pending", attempts: 2 })
        expect(opened.body.attempts).toEqual([
          {
            deliveryId: failing.id,
            eventType: "webhook.test",
            attemptedAt: failedAt,
            statusCode: 503,
            error: "HTTP 503: down for maintenance"
          },
          {
            deliveryId: failing.id,
            eventType: "webhook.test",
            attemptedAt: retriedAt,
            statusCode: 503,
            error: "HTTP 503: down for maintenance"
          }
        ])
        expect(opened.body.payload).toMatchObject({
          type: "webhook.test",
          id: failingEvent,
          data: { endpointId: created.body.id }
        })
        expect(JSON.parse(receiver.received.at(-1)!.body)).toEqual(opened.body.payload)
        expect((yield* client.get(endpoint)).body.lastError.attemptedAt).toBe(retriedAt)

        const deliveredDetail = yield* client.get(`${endpoint}/deliveries/${delivered.id}`)
        expect(deliveredDetail.body.attempts).toEqual([
          {
            deliveryId: delivered.id,
            eventType: "webhook.test",
            attemptedAt: deliveredAt,
            statusCode: 204,
            error: null
          }
        ])
        expectError(yield* client.get(`${endpoint}/deliveries/${crypto.randomUUID()}`), 404, "NotFound")
        expectError(yield* client.get(`${endpoint}/deliveries/not-a-uuid`), 400)
      }))))

    it.effect("the log is filtered by status and by event type, and pages within the filter", () =>
      Effect.scoped(withTestClock(Effect.gen(function*() {
        const { client } = yield* loggedIn
        const { app } = yield* createApp()
        const receiver = yield* startReceiver()
        const created = yield* client.post(`/portal/api/apps/${app.id}/webhook-endpoints`, {
          json: { url: receiver.url }
        })
        const endpoint = `/portal/api/apps/${app.id}/webhook-endpoints/${created.body.id}`
        const outbox = yield* Outbox
        // Three users' events, each user's queue its own: two delivered, one of each type failing after them.
        const emit = (type: "user.deleted" | "user.erased") => {
          const userId = crypto.randomUUID()
          return outbox.emit({
            appId: app.id,
            userId,
            type,
            data: (type === "user.deleted" ? { userId, externalUserId: `u-${userId.slice(0, 4)}` } : { userId }) as any
          })
        }
        yield* emit("user.deleted")
        yield* emit("user.erased")
        yield* catchUp
        yield* tick
        expect(receiver.received).toHaveLength(2)
        receiver.answer = () => ({ status: 500 })
        yield* emit("user.deleted")
        yield* sendTest(client, endpoint)
        yield* catchUp
        yield* tick
        expect(receiver.received).toHaveLength(4)
        const list = (query: string) =>
          Effect.map(client.get(`${endpoint}/deliveries${query}`), (reply) => {
            expect(reply.status, reply.text).toBe(200)
            return reply.body as { data: Array<any>; nextCursor: string | null }
          })
        const types = (page: { data: Array<any> }) => page.data.map((d) => `${d.eventType} ${d.status}`)

        expect(types(yield* list(""))).toEqual([
          "webhook.test Pending",
          "user.deleted Pending",
          "user.erased Delivered",
          "user.deleted Delivered"
        ])
        expect(types(yield* list("?status=Delivered"))).toEqual(["user.erased Delivered", "user.deleted Delivered"])
        expect(types(yield* list("?status=Pending"))).toEqual(["webhook.test Pending", "user.deleted Pending"])
        expect(types(yield* list("?status=Failed"))).toEqual([])
        expect(types(yield* list("?eventType=user.deleted"))).toEqual([
          "user.deleted Pending",
          "user.deleted Delivered"
        ])
        expect(types(yield* list("?eventType=user.deleted&status=Delivered"))).toEqual(["user.deleted Delivered"])
        expect(types(yield* list("?eventType=scores.updated"))).toEqual([])
        const firstPage = yield* list("?status=Delivered&limit=1")
        expect(types(firstPage)).toEqual(["user.erased Delivered"])
        const secondPage = yield* list(`?status=Delivered&limit=1&cursor=${firstPage.nextCursor}`)
        expect(types(secondPage)).toEqual(["user.deleted Delivered"])
        expect(secondPage.nextCursor).toBeNull()

        expectError(yield* client.get(`${endpoint}/deliveries?status=Lost`), 400)
        expectError(yield* client.get(`${endpoint}/deliveries?eventType=user.created`), 400)
        expectError(yield* client.get(`${endpoint}/deliveries?limit=0`), 400)
      }))))

    it.effect("a test event, a new secret shown once, event types, disabling and removal, each audited", () =>
      Effect.scoped(withTestClock(Effect.gen(function*() {
        const { client, email } = yield* loggedIn
        const { apiKey, app } = yield* createApp()
        const receiver = yield* startReceiver()
        const created = yield* client.post(`/portal/api/apps/${app.id}/webhook-endpoints`, {
          json: { url: receiver.url }
        })
        const id = created.body.id as string
        const endpoint = `/portal/api/apps/${app.id}/webhook-endpoints/${id}`

        const eventId = yield* sendTest(client, endpoint)
        const tested = yield* auditOf(client, "webhookEndpoint.test", id)
        expect(tested).toHaveLength(1)
        expect(tested[0]).toMatchObject({ operatorEmail: email, appId: app.id, detail: { eventId } })
        expect(tested[0].summary).toBe(`test event ${eventId}`)

        const rotated = yield* client.post(`${endpoint}/rotate-secret`)
        expect(rotated.status, rotated.text).toBe(200)
        const secret = rotated.body.secret as string
        expect(secret).toMatch(/^whsec_/)
        expect(secret).not.toBe(created.body.secret)
        // The new secret signs from now on; the previous one too, for a day.
        yield* catchUp
        yield* tick
        expect(receiver.received).toHaveLength(1)
        expect(signatureValid(secret, receiver.received[0]!)).toBe(true)
        expect(signatureValid(created.body.secret, receiver.received[0]!)).toBe(true)
        const rotations = yield* auditOf(client, "webhookEndpoint.rotateSecret", id)
        expect(rotations).toHaveLength(1)
        expect(rotations[0].detail).toEqual({ previousSecretExpiresAt: rotated.body.previousSecretExpiresAt })
        const log = yield* client.get("/portal/api/audit?limit=200")
        expect(log.text).not.toContain(secret)
        expect((yield* client.get(endpoint)).text).not.toContain(secret)

        const chosen = yield* client.patch(endpoint, { json: { events: ["user.deleted", "connection.created"] } })
        expect(chosen.status, chosen.text).toBe(200)
        expect(chosen.body.events).toEqual(["connection.created", "user.deleted"])
        expectError(yield* client.patch(endpoint, { json: { events: [] } }), 400)
        expectError(yield* client.patch(endpoint, { json: { events: ["user.created"] } }), 400)

        expect((yield* client.patch(endpoint, { json: { enabled: false } })).status).toBe(200)
        expectError(yield* client.post(`${endpoint}/test`), 409, "Conflict")
        expect(yield* auditOf(client, "webhookEndpoint.test", id)).toHaveLength(1)

        const removed = yield* client.delete(endpoint)
        expect(removed.status, removed.text).toBe(204)
        expectError(yield* client.get(endpoint), 404, "NotFound")
        expectError(yield* client.delete(endpoint), 404, "NotFound")
        const gone = yield* send("GET", `/api/v1/webhook-endpoints/${id}`, { bearer: apiKey })
        expect(gone.status, preview(gone)).toBe(404)
        const deletions = yield* auditOf(client, "webhookEndpoint.delete", id)
        expect(deletions).toHaveLength(1)
        expect(deletions[0]).toMatchObject({ detail: { url: receiver.url }, summary: `url: ${receiver.url}` })
        expect(deletions[0].subject.label).toBe(`webhook endpoint ${receiver.url}`)
      }))))

    it.effect("another app's endpoint and delivery are a 404 under this app's path for every new route", () =>
      Effect.gen(function*() {
        const { client } = yield* loggedIn
        const mine = yield* createApp()
        const theirs = yield* createApp()
        const created = yield* client.post(`/portal/api/apps/${theirs.app.id}/webhook-endpoints`, {
          json: { url: "https://example.com/theirs" }
        })
        const id = created.body.id as string
        const theirPath = `/portal/api/apps/${theirs.app.id}/webhook-endpoints/${id}`
        yield* sendTest(client, theirPath)
        const deliveryId = (yield* client.get(`${theirPath}/deliveries`)).body.data[0].id as string
        expect((yield* client.get(`${theirPath}/deliveries/${deliveryId}`)).status).toBe(200)

        const wrong = `/portal/api/apps/${mine.app.id}/webhook-endpoints/${id}`
        expectError(yield* client.get(wrong), 404, "NotFound")
        expectError(yield* client.get(`${wrong}/deliveries/${deliveryId}`), 404, "NotFound")
        expectError(yield* client.post(`${wrong}/test`), 404, "NotFound")
        expectError(yield* client.post(`${wrong}/rotate-secret`), 404, "NotFound")
        expectError(yield* client.delete(wrong), 404, "NotFound")
        // Their delivery under another endpoint of theirs: unknown there too.
        const other = yield* client.post(`/portal/api/apps/${theirs.app.id}/webhook-endpoints`, {
          json: { url: "https://example.com/other" }
        })
        expectError(
          yield* client.get(
            `/portal/api/apps/${theirs.app.id}/webhook-endpoints/${other.body.id}/deliveries/${deliveryId}`
          ),
          404,
          "NotFound"
        )
        expectError(
          yield* client.get(`/portal/api/apps/${crypto.randomUUID()}/webhook-endpoints/${id}`),
          404,
          "NotFound"
        )
        expectError(yield* client.get(`/portal/api/apps/${mine.app.id}/webhook-endpoints/not-a-uuid`), 400)

        const theirsNow = yield* send("GET", `/api/v1/webhook-endpoints/${id}`, { bearer: theirs.apiKey })
        expect(json(theirsNow)).toMatchObject({ id, enabled: true })
        expect(yield* auditOf(client, "webhookEndpoint.rotateSecret", id)).toEqual([])
        expect(yield* auditOf(client, "webhookEndpoint.delete", id)).toEqual([])
      }))
  }
)
