/**
 * Webhook endpoints end to end: the real server over HTTPS and a real database, called with an
 * app's API key; events delivered by the server's own delivery worker to a real HTTPS receiver,
 * their signatures checked by hand. Each test makes its own app. The server runs on the live clock
 * (`excludeTestServices`): its worker and the overlap of a rotated secret are timed by it.
 */
import { expect, layer } from "@effect/vitest"
import { allWebhookEventTypes } from "@pulsebridge/domain"
import { createApp, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { Apps } from "../../src/apps/Apps.js"
import { expectError, isoUtc, json, preview, send, unknownId } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { receiverCaFile, signatureValid, startReceiver } from "../fixtures/Receiver.js"

const base = "/api/v1/webhook-endpoints"

const createRaw = (apiKey: string, body: unknown) => send("POST", base, { bearer: apiKey, json: body })

const created = (apiKey: string, body: unknown) =>
  Effect.map(createRaw(apiKey, body), (reply) => {
    expect(reply.status, preview(reply)).toBe(201)
    return json(reply)
  })

const endpointKeys = [
  "createdAt",
  "description",
  "disabledReason",
  "enabled",
  "events",
  "failingSince",
  "id",
  "updatedAt",
  "url"
]

const deliveriesOf = (apiKey: string, id: string) =>
  Effect.map(send("GET", `${base}/${id}/deliveries`, { bearer: apiKey }), (reply) => {
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply) as { data: Array<any>; nextCursor: string | null }
  })

// The receiver listens on loopback, which the address guard refuses unless the operator allows it.
layer(makeTestServer({ webhookCaFile: Option.some(receiverCaFile), webhookAllowPrivate: true }), {
  timeout: "120 seconds",
  excludeTestServices: true
})(
  "webhook endpoints",
  (it) => {
    it.effect("create answers 201 with every field and the secret, which no other answer shows", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* createApp()
        const body = yield* created(apiKey, { url: "https://example.com/hooks", description: "main" })
        expect(Object.keys(body).sort()).toEqual([...endpointKeys, "secret"].sort())
        expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
        expect(body.events).toEqual(allWebhookEventTypes)
        expect(body.enabled).toBe(true)
        expect(body.disabledReason).toBeNull()
        expect(body.createdAt).toMatch(isoUtc)

        const got = yield* send("GET", `${base}/${body.id}`, { bearer: apiKey })
        expect(got.status, preview(got)).toBe(200)
        expect(Object.keys(json(got)).sort()).toEqual(endpointKeys)
        expect(got.text).not.toContain(body.secret)
        const listed = yield* send("GET", base, { bearer: apiKey })
        expect(json(listed).map((e: any) => e.id)).toEqual([body.id])
        expect(listed.text).not.toContain(body.secret)
      }))

    it.effect("events can be chosen, patched and the endpoint disabled and enabled; delete removes it", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* createApp()
        const body = yield* created(apiKey, {
          url: "https://example.com/a",
          events: ["data.updated", "scores.updated"]
        })
        expect(body.events).toEqual(["data.updated", "scores.updated"])
        const patched = yield* send("PATCH", `${base}/${body.id}`, {
          bearer: apiKey,
          json: { url: "https://example.org/b", events: ["user.deleted"], enabled: false }
        })
        expect(patched.status, preview(patched)).toBe(200)
        expect(json(patched)).toMatchObject({ url: "https://example.org/b", events: ["user.deleted"], enabled: false })
        const enabled = yield* send("PATCH", `${base}/${body.id}`, { bearer: apiKey, json: { enabled: true } })
        expect(json(enabled)).toMatchObject({ url: "https://example.org/b", enabled: true, disabledReason: null })
        const deleted = yield* send("DELETE", `${base}/${body.id}`, { bearer: apiKey })
        expect(deleted.status, preview(deleted)).toBe(204)
        expectError(yield* send("GET", `${base}/${body.id}`, { bearer: apiKey }), 404, "NotFound")
        expectError(yield* send("DELETE", `${base}/${body.id}`, { bearer: apiKey }), 404, "NotFound")
      }))

    it.effect("bad input is a 400 that creates and changes nothing", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* createApp()
        for (
          const bad of [
            {},
            { url: "not a url" },
            { url: "example.com/hooks" },
            { url: "ftp://example.com/hooks" },
            { url: "http://example.com/hooks" },
            { url: "http://127.0.0.1:9/hooks" },
            { url: "https://user:pass@example.com/hooks" },
            { url: "https://example.com/hooks", events: ["no.such.event"] },
            { url: "https://example.com/hooks", events: [] },
            { url: "https://example.com/" + "a".repeat(2100) },
            { url: 5 }
          ]
        ) {
          const reply = yield* createRaw(apiKey, bad)
          expect(reply.status, `${JSON.stringify(bad).slice(0, 80)}: ${preview(reply)}`).toBe(400)
          expectError(reply, 400)
        }
        expect(json(yield* send("GET", base, { bearer: apiKey }))).toEqual([])

        const body = yield* created(apiKey, { url: "https://example.com/ok" })
        for (const bad of [{ url: "http://example.com/x" }, { events: ["nope"] }, { enabled: "yes" }]) {
          expectError(yield* send("PATCH", `${base}/${body.id}`, { bearer: apiKey, json: bad }), 400)
        }
        const after = json(yield* send("GET", `${base}/${body.id}`, { bearer: apiKey }))
        expect(after).toMatchObject({ url: "https://example.com/ok", events: allWebhookEventTypes, enabled: true })
        expectError(yield* send("GET", `${base}/not-a-uuid`, { bearer: apiKey }), 400)
        expectError(yield* send("GET", `${base}/${body.id}/deliveries?limit=0`, { bearer: apiKey }), 400)
        expectError(yield* send("GET", `${base}/${body.id}/deliveries?cursor=abc`, { bearer: apiKey }), 400)
      }))

    it.effect("an unknown id and another app's endpoint are 404 on every route", () =>
      Effect.gen(function*() {
        const mine = yield* createApp("mine")
        const theirs = yield* createApp("theirs")
        const body = yield* created(theirs.apiKey, { url: "https://example.com/theirs" })
        for (const id of [unknownId(), body.id]) {
          for (
            const [method, path, json_] of [
              ["GET", `${base}/${id}`, undefined],
              ["PATCH", `${base}/${id}`, { enabled: false }],
              ["DELETE", `${base}/${id}`, undefined],
              ["POST", `${base}/${id}/rotate-secret`, undefined],
              ["POST", `${base}/${id}/test`, undefined],
              ["GET", `${base}/${id}/deliveries`, undefined],
              ["POST", `${base}/${id}/deliveries/${unknownId()}/retry`, undefined]
            ] as const
          ) {
            const reply = yield* send(method, path, {
              bearer: mine.apiKey,
              ...(json_ === undefined ? {} : { json: json_ })
            })
            expectError(reply, 404, "NotFound")
          }
        }
        expect(json(yield* send("GET", base, { bearer: mine.apiKey }))).toEqual([])
        const still = json(yield* send("GET", `${base}/${body.id}`, { bearer: theirs.apiKey }))
        expect(still.enabled).toBe(true)
      }))

    it.effect("a key without webhooks:read or webhooks:write gets 403; without a key 401", () =>
      Effect.gen(function*() {
        const { apiKey, app } = yield* createApp()
        const apps = yield* Apps
        const usersOnly = yield* apps.createApiKey(app.id, ["users:read", "users:write"])
        const readOnly = yield* apps.createApiKey(app.id, ["webhooks:read"])
        const body = yield* created(apiKey, { url: "https://example.com/p" })
        expectError(yield* createRaw(usersOnly.apiKey, { url: "https://example.com/q" }), 403, "Forbidden")
        expectError(yield* send("GET", base, { bearer: usersOnly.apiKey }), 403, "Forbidden")
        expectError(yield* createRaw(readOnly.apiKey, { url: "https://example.com/q" }), 403, "Forbidden")
        expectError(yield* send("POST", `${base}/${body.id}/test`, { bearer: readOnly.apiKey }), 403, "Forbidden")
        expectError(yield* send("POST", `${base}/${body.id}/rotate-secret`, { bearer: readOnly.apiKey }), 403)
        expectError(yield* send("DELETE", `${base}/${body.id}`, { bearer: readOnly.apiKey }), 403)
        const listed = yield* send("GET", base, { bearer: readOnly.apiKey })
        expect(listed.status, preview(listed)).toBe(200)
        expect(json(listed)).toHaveLength(1)
        expectError(yield* send("GET", base), 401, "Unauthorized")
      }))

    it.effect("test sends a webhook.test the receiver can verify by hand, logged as Delivered", () =>
      Effect.scoped(Effect.gen(function*() {
        const receiver = yield* startReceiver()
        const { apiKey } = yield* createApp()
        const endpoint = yield* created(apiKey, { url: receiver.url })
        const sent = yield* send("POST", `${base}/${endpoint.id}/test`, { bearer: apiKey })
        expect(sent.status, preview(sent)).toBe(202)
        const { eventId } = json(sent)
        expect(eventId).toMatch(/^evt_[0-9a-f]{32}$/)
        yield* eventually(Effect.sync(() => receiver.received.length), (n) => n >= 1, "the test event")
        const request = receiver.received[0]!
        expect(request.headers["content-type"]).toMatch(/^application\/json/)
        expect(request.headers["webhook-id"]).toBe(eventId)
        expect(Math.abs(Number(request.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(120)
        expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
        expect(signatureValid(endpoint.secret, request)).toBe(true)
        expect(signatureValid(`whsec_${crypto.randomBytes(32).toString("base64")}`, request)).toBe(false)
        expect(signatureValid(endpoint.secret, { ...request, body: request.body.replace("test", "tent") })).toBe(false)
        expect(request.event).toEqual({
          type: "webhook.test",
          id: eventId,
          timestamp: expect.stringMatching(isoUtc),
          data: { endpointId: endpoint.id, message: expect.any(String) }
        })
        const log = yield* eventually(
          deliveriesOf(apiKey, endpoint.id),
          (page) => page.data[0]?.status === "Delivered",
          "the delivery to be recorded"
        )
        expect(log.data).toHaveLength(1)
        expect(log.data[0]).toMatchObject({
          eventId,
          eventType: "webhook.test",
          status: "Delivered",
          attempts: 1,
          lastStatusCode: 204,
          lastError: null,
          nextAttemptAt: null
        })
        expect(log.nextCursor).toBeNull()
      })))

    it.effect("after rotate-secret both secrets verify every delivery for the overlap", () =>
      Effect.scoped(Effect.gen(function*() {
        const receiver = yield* startReceiver()
        const { apiKey } = yield* createApp()
        const endpoint = yield* created(apiKey, { url: receiver.url })
        const rotated = yield* send("POST", `${base}/${endpoint.id}/rotate-secret`, { bearer: apiKey })
        expect(rotated.status, preview(rotated)).toBe(200)
        const { previousSecretExpiresAt, secret } = json(rotated)
        expect(secret).toMatch(/^whsec_/)
        expect(secret).not.toBe(endpoint.secret)
        const overlapHours = (Date.parse(previousSecretExpiresAt) - Date.now()) / 3_600_000
        expect(overlapHours).toBeGreaterThan(23.9)
        expect(overlapHours).toBeLessThanOrEqual(24)
        expect((yield* send("POST", `${base}/${endpoint.id}/test`, { bearer: apiKey })).status).toBe(202)
        yield* eventually(Effect.sync(() => receiver.received.length), (n) => n >= 1, "the test event")
        const request = receiver.received[0]!
        const signatures = request.headers["webhook-signature"]!.split(" ")
        expect(signatures).toHaveLength(2)
        expect(signatureValid(secret, request)).toBe(true)
        expect(signatureValid(endpoint.secret, request)).toBe(true)
        // Each signature belongs to one secret.
        expect(
          signatureValid(secret, { ...request, headers: { ...request.headers, "webhook-signature": signatures[0]! } })
        )
          .not.toBe(
            signatureValid(secret, { ...request, headers: { ...request.headers, "webhook-signature": signatures[1]! } })
          )
      })))

    it.effect("a test to a disabled endpoint is a 409", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* createApp()
        const endpoint = yield* created(apiKey, { url: "https://example.com/off" })
        yield* send("PATCH", `${base}/${endpoint.id}`, { bearer: apiKey, json: { enabled: false } })
        expectError(yield* send("POST", `${base}/${endpoint.id}/test`, { bearer: apiKey }), 409, "Conflict")
        expect((yield* deliveriesOf(apiKey, endpoint.id)).data).toEqual([])
      }))
  }
)

/** Literal addresses no webhook may reach while the guard is on. */
const refusedUrls = [
  "http://example.com/hooks",
  "http://127.0.0.1/hooks",
  "https://127.0.0.1/hooks",
  "https://localhost/hooks",
  "https://10.1.2.3/hooks",
  "https://172.16.0.1/hooks",
  "https://192.168.1.1/hooks",
  "https://169.254.169.254/latest/meta-data",
  "https://[::1]/hooks",
  "https://[fd00::1]/hooks",
  "https://[fe80::1]/hooks",
  "https://[::ffff:10.0.0.1]/hooks",
  "https://0.0.0.0/hooks",
  "https://[::127.0.0.1]/hooks",
  "https://[::ffff:0:10.0.0.1]/hooks",
  "https://[2002:a00:1::1]/hooks",
  "https://[64:ff9b:1::a00:1]/hooks"
]

/**
 * A new app's endpoint creations with each of `refusedUrls` are a 400 and store nothing; a public address is
 * accepted, and changing it to `refusedPatchUrl` is a 400 again.
 */
const expectRefusals = (refusedPatchUrl: string) =>
  Effect.gen(function*() {
    const { apiKey } = yield* createApp()
    for (const url of refusedUrls) {
      const reply = yield* createRaw(apiKey, { url })
      expect(reply.status, `${url}: ${preview(reply)}`).toBe(400)
      expect(json(reply)._tag).toBe("BadRequest")
    }
    expect(json(yield* send("GET", base, { bearer: apiKey }))).toEqual([])
    const ok = yield* created(apiKey, { url: "https://93.184.215.14/hooks" })
    expectError(
      yield* send("PATCH", `${base}/${ok.id}`, { bearer: apiKey, json: { url: refusedPatchUrl } }),
      400,
      "BadRequest"
    )
    return { apiKey, ok }
  })

layer(makeTestServer(), { timeout: "120 seconds", excludeTestServices: true })(
  "webhook endpoints outside sandbox mode, at the defaults",
  (it) => {
    it.effect("the address guard is on: private, loopback, link-local and special addresses are a 400", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* expectRefusals("https://[::7f00:1]/x")
        // A name that does not resolve (now) is accepted: each delivery checks the address it connects to.
        yield* created(apiKey, { url: "https://receiver.invalid/hooks" })
      }))
  }
)

const productionKey = crypto.randomBytes(32).toString("base64")

layer(
  makeTestServer({ production: true, secretKey: Option.some(Redacted.make(productionKey)) }),
  { timeout: "120 seconds", excludeTestServices: true }
)("webhook endpoints in production", (it) => {
  it.effect("plain http and private, loopback and link-local addresses are refused", () =>
    Effect.gen(function*() {
      const { apiKey, ok } = yield* expectRefusals("https://10.0.0.1/x")
      expect(json(yield* send("GET", `${base}/${ok.id}`, { bearer: apiKey })).url).toBe("https://93.184.215.14/hooks")
    }))
})

layer(
  makeTestServer({
    production: true,
    secretKey: Option.some(Redacted.make(productionKey)),
    webhookAllowPrivate: true
  }),
  { timeout: "120 seconds", excludeTestServices: true }
)("webhook endpoints in production with WEBHOOK_ALLOW_PRIVATE", (it) => {
  it.effect("private addresses are accepted; plain http still is not", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* createApp()
      yield* created(apiKey, { url: "https://10.1.2.3/hooks" })
      yield* created(apiKey, { url: "https://127.0.0.1:8443/hooks" })
      expectError(yield* createRaw(apiKey, { url: "http://10.1.2.3/hooks" }), 400, "BadRequest")
    }))
})
