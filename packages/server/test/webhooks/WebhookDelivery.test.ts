/**
 * The delivery worker's schedule, driven in-process: the server's own worker is off
 * (`WEBHOOK_DELIVERY=off`) and each test runs its rounds (`Delivery.tick`) under a `TestClock`,
 * against the real database and a real HTTPS receiver. What the worker did is read back through
 * the API's deliveries log and the endpoint.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { UserId } from "@pulsebridge/domain"
import { CreateUserPayload } from "@pulsebridge/domain"
import { createApp, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { breakerPauseMs, breakerThreshold } from "../../src/events/Breaker.js"
import { maxAttempts } from "../../src/events/DeliveriesRepo.js"
import { Delivery, disableAfterMs, retryDelaysMs, sendersPerEndpoint } from "../../src/events/Delivery.js"
import { Outbox } from "../../src/events/Outbox.js"
import { Users } from "../../src/users/Users.js"
import { json, preview, send } from "../fixtures/Http.js"
import type { Receiver } from "../fixtures/Receiver.js"
import { receiverCaFile, signatureValid, startReceiver } from "../fixtures/Receiver.js"

const base = "/api/v1/webhook-endpoints"

/** Runs `effect` with a `TestClock` set to the wall clock, so deliveries the server just made are due. */
const withTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.now() + 1000)
    return yield* effect
  }).pipe(Effect.provide(TestContext.TestContext))

const now = Effect.flatMap(TestClock.currentTimeMillis, (millis) => Effect.succeed(millis))

/**
 * Moves the test clock just past the wall clock again: deliveries the server made through the API (on the wall
 * clock) during a setup that took longer than the clock's head start (a busy machine) are due then too.
 */
const catchUp = Effect.suspend(() => TestClock.setTime(Date.now() + 1000))

/** One round of the worker, at the test clock's time: how many deliveries it attempted. */
const tick = Effect.flatMap(Delivery, (delivery) => delivery.tick)

const setup = (receiver: Receiver) =>
  Effect.gen(function*() {
    const { apiKey, app } = yield* createApp()
    const reply = yield* send("POST", base, { bearer: apiKey, json: { url: receiver.url } })
    expect(reply.status, preview(reply)).toBe(201)
    const endpoint = json(reply) as { id: string; secret: string }
    return { apiKey, app, endpoint }
  })

const sendTest = (apiKey: string, endpointId: string) =>
  Effect.map(send("POST", `${base}/${endpointId}/test`, { bearer: apiKey }), (reply) => {
    expect(reply.status, preview(reply)).toBe(202)
    return json(reply).eventId as string
  })

const deliveries = (apiKey: string, endpointId: string, query = "") =>
  Effect.map(send("GET", `${base}/${endpointId}/deliveries${query}`, { bearer: apiKey }), (reply) => {
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply) as { data: Array<any>; nextCursor: string | null }
  })

const endpointOf = (apiKey: string, endpointId: string) =>
  Effect.map(send("GET", `${base}/${endpointId}`, { bearer: apiKey }), (reply) => json(reply))

// The receiver listens on loopback, which the address guard refuses unless the operator allows it.
layer(
  makeTestServer({ webhookCaFile: Option.some(receiverCaFile), webhookAllowPrivate: true, webhookDelivery: false }),
  {
    timeout: "120 seconds",
    excludeTestServices: true
  }
)("webhook delivery", (it) => {
  it.effect("a failing receiver gets the retries on schedule, logged; the last failure is Failed; retry works", () =>
    Effect.scoped(withTestClock(Effect.gen(function*() {
      const receiver = yield* startReceiver()
      receiver.answer = () => ({ status: 500, body: "boom\ninternal" })
      const { apiKey, endpoint } = yield* setup(receiver)
      const eventId = yield* sendTest(apiKey, endpoint.id)
      yield* catchUp

      expect(yield* tick).toBe(1)
      expect(receiver.received).toHaveLength(1)
      let at = yield* now
      let log = yield* deliveries(apiKey, endpoint.id)
      expect(log.data[0]).toMatchObject({
        eventId,
        eventType: "webhook.test",
        status: "Pending",
        attempts: 1,
        lastStatusCode: 500,
        lastError: "HTTP 500: boom internal",
        nextAttemptAt: new Date(at + retryDelaysMs[0]!).toISOString(),
        completedAt: null
      })
      const failing = yield* endpointOf(apiKey, endpoint.id)
      expect(failing.failingSince).toBe(new Date(at).toISOString())

      for (const [index, delay] of retryDelaysMs.entries()) {
        // Not a moment early.
        yield* TestClock.adjust(delay - 1000)
        expect(yield* tick, `retry ${index + 1} early`).toBe(0)
        yield* TestClock.adjust(1000)
        expect(yield* tick, `retry ${index + 1}`).toBe(1)
        expect(receiver.received).toHaveLength(index + 2)
        at = yield* now
        log = yield* deliveries(apiKey, endpoint.id)
        const last = index === retryDelaysMs.length - 1
        expect(log.data[0]).toMatchObject({
          attempts: index + 2,
          lastStatusCode: 500,
          status: last ? "Failed" : "Pending",
          lastAttemptAt: new Date(at).toISOString(),
          nextAttemptAt: last ? null : new Date(at + retryDelaysMs[index + 1]!).toISOString(),
          completedAt: last ? new Date(at).toISOString() : null
        })
      }
      // Every attempt carries the same event id and a valid signature of its own time.
      for (const request of receiver.received) {
        expect(request.headers["webhook-id"]).toBe(eventId)
        expect(signatureValid(endpoint.secret, request)).toBe(true)
      }
      yield* TestClock.adjust("10 days")
      expect(yield* tick).toBe(0)

      receiver.answer = () => ({ status: 200 })
      const retried = yield* send("POST", `${base}/${endpoint.id}/deliveries/${log.data[0].id}/retry`, {
        bearer: apiKey
      })
      expect(retried.status, preview(retried)).toBe(202)
      expect(json(retried)).toMatchObject({ id: log.data[0].id, status: "Pending", completedAt: null })
      yield* TestClock.adjust("1 second")
      expect(yield* tick).toBe(1)
      log = yield* deliveries(apiKey, endpoint.id)
      expect(log.data[0]).toMatchObject({ status: "Delivered", attempts: 9, lastStatusCode: 200, lastError: null })
      expect((yield* endpointOf(apiKey, endpoint.id)).failingSince).toBeNull()
    }))))

  it.effect("an endpoint failing for 5 days is disabled with a reason; enabling it resumes its pending deliveries", () =>
    Effect.scoped(withTestClock(Effect.gen(function*() {
      const receiver = yield* startReceiver()
      receiver.answer = () => ({ status: 503 })
      const { apiKey, endpoint } = yield* setup(receiver)
      yield* sendTest(apiKey, endpoint.id)
      yield* catchUp
      expect(yield* tick).toBe(1)
      const since = yield* now

      // Four days on, still failing and still enabled.
      yield* TestClock.adjust(disableAfterMs - 24 * 3_600_000)
      expect(yield* tick).toBe(1)
      expect(yield* endpointOf(apiKey, endpoint.id)).toMatchObject({
        enabled: true,
        failingSince: new Date(since).toISOString()
      })

      yield* TestClock.adjust("1 day")
      expect(yield* tick).toBe(1)
      const disabled = yield* endpointOf(apiKey, endpoint.id)
      expect(disabled.enabled).toBe(false)
      expect(disabled.disabledReason).toMatch(/failed for 5 days.*HTTP 503/)
      const attemptsWhenDisabled = receiver.received.length

      // Nothing more goes to a disabled endpoint; its pending delivery waits.
      yield* TestClock.adjust("1 day")
      expect(yield* tick).toBe(0)
      expect(receiver.received).toHaveLength(attemptsWhenDisabled)
      const pending = yield* deliveries(apiKey, endpoint.id)
      expect(pending.data[0].status).toBe("Pending")

      receiver.answer = () => ({ status: 204 })
      const enabled = yield* send("PATCH", `${base}/${endpoint.id}`, { bearer: apiKey, json: { enabled: true } })
      expect(json(enabled)).toMatchObject({ enabled: true, disabledReason: null, failingSince: null })
      expect(yield* tick).toBe(1)
      expect((yield* deliveries(apiKey, endpoint.id)).data[0].status).toBe("Delivered")
    }))))

  it.effect("workers running at once never claim one delivery twice", () =>
    Effect.scoped(withTestClock(Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const { app, endpoint } = yield* setup(receiver)
      const users = yield* Users
      const outbox = yield* Outbox
      const sql = yield* SqlClient.SqlClient
      const events: Array<string> = []
      for (let i = 0; i < 12; i++) {
        const userId = (yield* users.create(app.id, new CreateUserPayload({ externalUserId: `many-${i}` }))).user.id
        events.push(
          yield* outbox.emit({
            appId: app.id,
            userId,
            type: "user.deleted",
            data: { userId, externalUserId: `many-${i}` }
          })
            .pipe(sql.withTransaction)
        )
      }
      const claimed = yield* Effect.all([tick, tick, tick, tick], { concurrency: "unbounded" })
      expect(claimed.reduce((a, b) => a + b, 0)).toBe(12)
      expect(receiver.received.map((request) => request.event.id).sort()).toEqual([...events].sort())
      for (const request of receiver.received) expect(signatureValid(endpoint.secret, request)).toBe(true)
      expect(yield* tick).toBe(0)
    }))))

  it.effect("one user's events reach an endpoint in order: a later one waits for an earlier one's retries", () =>
    Effect.scoped(withTestClock(Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const { apiKey, app, endpoint } = yield* setup(receiver)
      const users = yield* Users
      const alice = (yield* users.create(app.id, new CreateUserPayload({ externalUserId: "alice" }))).user.id
      const bob = (yield* users.create(app.id, new CreateUserPayload({ externalUserId: "bob" }))).user.id
      const outbox = yield* Outbox
      const sql = yield* SqlClient.SqlClient
      const emit = (userId: UserId, date: string) =>
        outbox.emit({ appId: app.id, userId, type: "scores.updated", data: { userId, dates: [date] } }).pipe(
          sql.withTransaction
        )
      const a1 = yield* emit(alice, "2026-01-01")
      const a2 = yield* emit(alice, "2026-01-02")
      const b1 = yield* emit(bob, "2026-01-01")
      const a3 = yield* emit(alice, "2026-01-03")
      // Alice's first event fails until the receiver says otherwise.
      let refuseA1 = true
      receiver.answer = (request) => ({ status: refuseA1 && request.event.id === a1 ? 500 : 204 })
      const order = () => receiver.received.map((request) => request.event.id)

      // The oldest of each user: Alice's first (refused) and Bob's; Alice's others wait behind hers.
      expect(yield* tick).toBe(2)
      expect(order().sort()).toEqual([a1, b1].sort())
      expect(yield* tick).toBe(0)
      yield* TestClock.adjust("4 seconds")
      expect(yield* tick).toBe(0)

      refuseA1 = false
      yield* TestClock.adjust("1 second")
      // Each goes as soon as the one before it is delivered, within the round.
      expect(yield* tick).toBe(3)
      expect(order().filter((id) => id !== b1)).toEqual([a1, a1, a2, a3])

      // When an earlier event finally fails, the next one goes.
      const c1 = yield* emit(alice, "2026-02-01")
      const c2 = yield* emit(alice, "2026-02-02")
      receiver.answer = (request) => ({ status: request.event.id === c1 ? 500 : 204 })
      expect(yield* tick).toBe(1)
      for (const delay of retryDelaysMs) {
        yield* TestClock.adjust(delay)
        expect(yield* tick).toBe(1)
        expect(order().at(-1)).toBe(c1)
      }
      // c1's failures in a row paused the endpoint (the breaker), from the threshold on each a pause longer than the
      // one before; once the last is over, the next one goes.
      expect(yield* tick).toBe(0)
      yield* TestClock.adjust(breakerPauseMs(maxAttempts - breakerThreshold + 1))
      expect(yield* tick).toBe(1)
      expect(order().at(-1)).toBe(c2)
      const log = yield* deliveries(apiKey, endpoint.id, "?limit=2")
      expect(log.data.map((d) => [d.eventId, d.status])).toEqual([[c2, "Delivered"], [c1, "Failed"]])
      expect(log.nextCursor).not.toBeNull()
      const older = yield* deliveries(apiKey, endpoint.id, `?limit=10&cursor=${log.nextCursor}`)
      expect(older.data.map((d) => d.eventId)).toEqual([a3, b1, a2, a1])
      expect(older.nextCursor).toBeNull()
    }))))

  it.effect("an endpoint whose attempts keep failing is paused on its own, longer each time, its deliveries unattempted meanwhile", () =>
    Effect.scoped(withTestClock(Effect.gen(function*() {
      const failing = yield* startReceiver()
      failing.answer = () => ({ status: 500, body: "down" })
      const answering = yield* startReceiver()
      const { apiKey } = yield* createApp()
      const createEndpoint = (url: string) =>
        Effect.map(send("POST", base, { bearer: apiKey, json: { url, events: ["user.deleted"] } }), (reply) => {
          expect(reply.status, preview(reply)).toBe(201)
          return json(reply) as { id: string; secret: string }
        })
      const broken = yield* createEndpoint(failing.url)
      const healthy = yield* createEndpoint(answering.url)
      // Eight users' events, each to both endpoints: the order binds each user only, so all are due at once.
      for (let i = 0; i < 8; i++) {
        const created = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: `b-${i}` } })
        expect(created.status, preview(created)).toBe(201)
        const deleted = yield* send("DELETE", `/api/v1/users/${json(created).id}`, { bearer: apiKey })
        expect(deleted.status, preview(deleted)).toBe(204)
      }
      yield* catchUp

      // The broken endpoint is paused after `breakerThreshold` failures in a row (one more may have been under
      // way); the healthy one's deliveries are not held.
      const first = yield* tick
      const tripped = failing.received.length
      expect(tripped).toBeGreaterThanOrEqual(breakerThreshold)
      expect(tripped).toBeLessThanOrEqual(breakerThreshold + sendersPerEndpoint - 1)
      expect(answering.received).toHaveLength(8)
      expect(first).toBe(8 + tripped)
      const waiting = (yield* deliveries(apiKey, broken.id)).data
      expect(waiting.every((d) => d.status === "Pending")).toBe(true)
      expect(waiting.filter((d) => d.attempts === 0)).toHaveLength(8 - tripped)
      expect((yield* deliveries(apiKey, healthy.id)).data.map((d) => d.status)).toEqual(Array(8).fill("Delivered"))

      // Nothing goes to it during the pause, though its retries fell due after 5 s.
      yield* TestClock.adjust(breakerPauseMs(1) - 1000)
      expect(yield* tick).toBe(0)
      yield* TestClock.adjust(1000)
      // Then one attempt alone; it fails, and the next pause is twice as long.
      expect(yield* tick).toBe(1)
      expect(failing.received).toHaveLength(tripped + 1)
      expect(breakerPauseMs(2)).toBe(2 * breakerPauseMs(1))
      yield* TestClock.adjust(breakerPauseMs(2) - 1000)
      expect(yield* tick).toBe(0)
      expect(failing.received).toHaveLength(tripped + 1)

      // The receiver is back: the attempt after the pause succeeds, and every waiting delivery goes at once, but
      // the one the failed attempt after the first pause was: it keeps its own schedule, its next retry.
      failing.answer = () => ({ status: 204 })
      yield* TestClock.adjust(1000)
      expect(yield* tick).toBe(7)
      expect(failing.received).toHaveLength(tripped + 1 + 7)
      yield* TestClock.adjust(retryDelaysMs[1]! - breakerPauseMs(2))
      expect(yield* tick).toBe(1)
      const done = (yield* deliveries(apiKey, broken.id)).data
      expect(done.map((d) => d.status)).toEqual(Array(8).fill("Delivered"))
      // The deliveries that waited out the pauses were attempted once: the pauses took none of their attempts.
      expect(done.filter((d) => d.attempts === 1)).toHaveLength(8 - tripped)
      expect(done.map((d) => d.attempts).sort()).toEqual(
        [...Array(8 - tripped).fill(1), ...Array(tripped - 1).fill(2), 3]
      )
      for (const request of failing.received.slice(tripped + 1)) {
        expect(signatureValid(broken.secret, request)).toBe(true)
      }
      expect((yield* endpointOf(apiKey, broken.id)).failingSince).toBeNull()
    }))))

  it.effect("a paused endpoint given a URL again starts afresh: its deliveries go at once", () =>
    Effect.scoped(withTestClock(Effect.gen(function*() {
      const receiver = yield* startReceiver()
      receiver.answer = () => ({ status: 503 })
      const { apiKey } = yield* createApp()
      const created = yield* send("POST", base, {
        bearer: apiKey,
        json: { url: receiver.url, events: ["user.deleted"] }
      })
      expect(created.status, preview(created)).toBe(201)
      const endpoint = json(created) as { id: string }
      for (let i = 0; i < breakerThreshold + 2; i++) {
        const user = yield* send("POST", "/api/v1/users", { bearer: apiKey, json: { externalUserId: `r-${i}` } })
        expect(user.status, preview(user)).toBe(201)
        expect((yield* send("DELETE", `/api/v1/users/${json(user).id}`, { bearer: apiKey })).status).toBe(204)
      }
      yield* catchUp
      const tripped = yield* tick
      expect(tripped).toBeLessThan(breakerThreshold + 2)
      yield* TestClock.adjust("10 seconds")
      expect(yield* tick).toBe(0)

      receiver.answer = () => ({ status: 204 })
      const moved = yield* send("PATCH", `${base}/${endpoint.id}`, { bearer: apiKey, json: { url: receiver.url } })
      expect(moved.status, preview(moved)).toBe(200)
      expect(yield* tick).toBe(breakerThreshold + 2)
      const log = yield* deliveries(apiKey, endpoint.id)
      expect(log.data.map((d) => d.status)).toEqual(Array(breakerThreshold + 2).fill("Delivered"))
    }))))
})
