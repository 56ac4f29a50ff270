/**
 * The portal's webhook endpoints of an app over HTTP: the public routes' rules scoped to the app in
 * the path (another app's endpoint is a 404), the secret shown once and never audited, the
 * deliveries log with its retry, and each change in the audit log.
 */
import { expect, layer } from "@effect/vitest"
import { createApp, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { eventually } from "../fixtures/Poll.js"
import { auditOf, loggedIn } from "./fixtures.js"

layer(makeTestServer({ webhookDelivery: false }), { excludeTestServices: true, timeout: "120 seconds" })(
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
  }
)
