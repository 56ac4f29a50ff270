/**
 * The portal in Chromium, a webhook endpoint's page: a failing endpoint whose first page of deliveries is all
 * waiting, never tried, still shows its last error and last success; the log filtered by status and event type
 * (kept in the address); a delivery opened to its attempts and payload, and retried. Then, against a real
 * receiver, what an operator does: an endpoint created for chosen event types, a test event and its failed
 * attempt, a new secret shown once, event types changed, disabled, deleted, each in the audit log. Every page
 * passes axe-core and is screenshotted.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { createApp } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { chromiumAvailable, phone, screenshot } from "./fixtures/Browser.js"
import { checkPage, PortalTestLive, runScenario } from "./fixtures/Portal.js"

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000)

/**
 * A failing endpoint of one user's deliveries: three delivered, one failing (four attempts, the receiver
 * answering 503), and 24 newer ones waiting behind it, never tried. Paused by the circuit breaker, so the
 * server's worker leaves it as it is.
 */
const seedFailing = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { app } = yield* createApp("Webhook clinic")
  const endpointId = crypto.randomUUID()
  const url = "https://clinic.example.com/pulsebridge/events"
  yield* sql`
    insert into webhook_endpoints (id, app_id, url, description, secret_sealed, failing_since, failure_streak,
      pause_count, paused_until, created_at, updated_at)
    values (${endpointId}, ${app.id}, ${url}, 'Clinic back office', 'sealed', ${minutesAgo(190)}, 4, 1,
      ${new Date(Date.now() + 3_600_000)}, ${minutesAgo(3 * 24 * 60)}, ${minutesAgo(190)})
  `
  const userId = crypto.randomUUID()
  const connectionId = crypto.randomUUID()
  const delivery = (
    type: string,
    data: Record<string, unknown>,
    createdAt: Date,
    status: string,
    attempts: ReadonlyArray<{ readonly at: Date; readonly statusCode: number | null; readonly error: string | null }>,
    nextAttemptAt: Date | null
  ) =>
    Effect.gen(function*() {
      const eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`
      const payload = { type, id: eventId, timestamp: createdAt.toISOString(), data }
      yield* sql`
        insert into webhook_events (id, app_id, user_id, type, payload, created_at)
        values (${eventId}, ${app.id}, ${userId}, ${type}, ${JSON.stringify(payload)}::jsonb, ${createdAt})
      `
      const id = crypto.randomUUID()
      const last = attempts.at(-1)
      yield* sql`
        insert into webhook_deliveries (id, endpoint_id, event_id, event_type, user_id, status, attempts,
          last_status_code, last_error, last_attempt_at, next_attempt_at, created_at, completed_at)
        values (${id}, ${endpointId}, ${eventId}, ${type}, ${userId}, ${status}, ${attempts.length},
          ${last?.statusCode ?? null}, ${last?.error ?? null}, ${last?.at ?? null}, ${nextAttemptAt}, ${createdAt},
          ${status === "Pending" ? null : last?.at ?? null})
      `
      for (const attempt of attempts) {
        yield* sql`
          insert into webhook_delivery_attempts (delivery_id, endpoint_id, attempted_at, status_code, error)
          values (${id}, ${endpointId}, ${attempt.at}, ${attempt.statusCode}, ${attempt.error})
        `
      }
      return { id, eventId }
    })
  const connection = { userId, connectionId, provider: "Garmin" }
  for (let i = 0; i < 3; i++) {
    const at = minutesAgo(300 - i * 30)
    yield* delivery(
      "data.updated",
      { ...connection, dataType: "dailyActivity", from: "2026-11-25", to: "2026-11-26" },
      at,
      "Delivered",
      [{ at, statusCode: 204, error: null }],
      null
    )
  }
  const unavailable = "HTTP 503: upstream connect error or disconnect/reset before headers"
  const failing = yield* delivery(
    "connection.updated",
    { ...connection, status: "Active", syncState: "Idle", reason: null },
    minutesAgo(190),
    "Pending",
    [
      { at: minutesAgo(190), statusCode: 503, error: unavailable },
      { at: minutesAgo(189), statusCode: 503, error: unavailable },
      { at: minutesAgo(184), statusCode: null, error: "no answer within 15 s" },
      { at: minutesAgo(154), statusCode: 503, error: unavailable }
    ],
    new Date(Date.now() + 60 * 60_000)
  )
  for (let i = 0; i < 24; i++) {
    const at = minutesAgo(180 - i * 5)
    yield* i % 3 === 2
      ? delivery("scores.updated", { userId, dates: ["2026-11-26"] }, at, "Pending", [], at)
      : delivery(
        "data.updated",
        { ...connection, dataType: "sleep", from: "2026-11-26", to: "2026-11-26" },
        at,
        "Pending",
        [],
        at
      )
  }
  return { app, endpointId, url, failing, unavailable }
})

interface Receiver {
  url: string
  readonly received: Array<string>
  readonly answer: { status: number; body: string }
  server?: http.Server
}

/** A plain HTTP receiver on loopback (sandbox mode sends to it) that answers 503; the scope stops it. */
const receiver = Effect.acquireRelease(
  Effect.async<Receiver>((resume) => {
    const state: Receiver = { url: "", received: [], answer: { status: 503, body: "receiver down" } }
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        state.received.push(Buffer.concat(chunks).toString("utf8"))
        response.writeHead(state.answer.status, { "content-type": "text/plain" }).end(state.answer.body)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
      state.server = server
      resume(Effect.succeed(state))
    })
  }),
  ({ server }) => Effect.async<void>((resume) => void server?.close(() => resume(Effect.void)))
)

describe.skipIf(!chromiumAvailable)("portal in a browser: webhook endpoint", () => {
  layer(PortalTestLive, { timeout: "180 seconds", excludeTestServices: true })((it) => {
    it.effect("a failing endpoint shows its last error over a page of waiting deliveries; filters, details, retry", () =>
      Effect.flatMap(seedFailing, (seeded) =>
        runScenario(async (session) => {
          const { page } = session
          await page.goto(`/portal/apps/${seeded.app.id}/webhooks`)
          const card = page.getByRole("article", { name: `Endpoint ${seeded.url}` })
          await card.getByText("failing", { exact: true }).waitFor()
          await card.getByRole("link", { name: seeded.url, exact: true }).click()
          await page.getByRole("heading", { level: 1, name: seeded.url }).waitFor()
          expect(new URL(page.url()).pathname).toBe(`/portal/apps/${seeded.app.id}/webhooks/${seeded.endpointId}`)

          // The first page is 20 deliveries waiting, never tried; the last error and success are above it.
          const deliveries = page.getByRole("region", { name: "Deliveries" })
          await expect.poll(() => deliveries.getByRole("row").count()).toBe(21)
          expect(await deliveries.getByText("not attempted").count()).toBe(20)
          const health = page.getByRole("region", { name: "Endpoint health" })
          await health.getByText(seeded.unavailable).waitFor()
          await health.getByText("HTTP 503", { exact: true }).waitFor()
          await health.getByText("HTTP 204", { exact: true }).waitFor()
          await health.getByText("25 deliveries waiting", { exact: false }).waitFor()
          await health.getByText(/paused after failures in a row/).waitFor()
          await checkPage(session, "portal-webhook-deliveries")
          // The failing delivery, not on the first page, opens from the last error.
          await health.getByRole("button", { name: "Show its delivery" }).click()
          const lastDelivery = health.getByRole("region", { name: "Delivery of the last error" })
          await expect.poll(() =>
            lastDelivery.getByRole("table", { name: "Attempts of this delivery" }).getByRole("row").count()
          ).toBe(5)
          await lastDelivery.getByText(seeded.failing.eventId, { exact: false }).waitFor()
          await checkPage(session, "portal-webhook-last-error-delivery")
          await health.getByRole("button", { name: "Hide its delivery" }).click()

          // Filters, kept in the address.
          await page.getByLabel("Status").selectOption("Delivered")
          await expect.poll(() => deliveries.getByRole("row").count()).toBe(4)
          expect(new URL(page.url()).searchParams.get("status")).toBe("Delivered")
          await page.getByLabel("Status").selectOption("")
          await page.getByLabel("Event type").selectOption("scores.updated")
          await expect.poll(() => deliveries.getByRole("row").count()).toBe(9)
          expect(await deliveries.getByRole("cell", { name: "data.updated", exact: true }).count()).toBe(0)
          await page.getByLabel("Event type").selectOption("connection.updated")
          await expect.poll(() => deliveries.getByRole("row").count()).toBe(2)
          await page.reload()
          await expect.poll(() => deliveries.getByRole("row").count()).toBe(2)
          expect(await page.getByLabel("Event type").inputValue()).toBe("connection.updated")

          // The failing delivery: its four attempts and its payload.
          await deliveries.getByRole("button", { name: /^Show details of connection\.updated/ }).click()
          const details = page.getByRole("region", { name: /^Details of connection\.updated/ })
          const attempts = details.getByRole("table", { name: "Attempts of this delivery" })
          await expect.poll(() => attempts.getByRole("row").count()).toBe(5)
          expect(await attempts.getByRole("cell", { name: "503", exact: true }).count()).toBe(3)
          await attempts.getByText("no answer within 15 s").waitFor()
          const payload = details.getByRole("region", { name: /^Payload of connection\.updated/ })
          expect(JSON.parse((await payload.textContent()) ?? "")).toMatchObject({
            type: "connection.updated",
            id: seeded.failing.eventId
          })
          await checkPage(session, "portal-webhook-delivery-details")

          await deliveries.getByRole("button", { name: /^Retry connection\.updated/ }).click()
          await expect.poll(async () => {
            const audit = await page.request.get(
              `/portal/api/audit?action=webhookDelivery.retry&appId=${seeded.app.id}`
            )
            return ((await audit.json()).data as Array<any>).map((event) => event.targetId)
          }).toEqual([seeded.failing.id])
          expect(session.problems).toEqual([])
        })))

    it.effect("an endpoint for chosen event types: a test event fails, the secret rotates, types change, it is disabled and deleted", () =>
      Effect.gen(function*() {
        const { app } = yield* createApp("Webhook lab")
        const hooks = yield* receiver
        return yield* runScenario(async (session) => {
          const { page } = session
          await page.goto(`/portal/apps/${app.id}/webhooks`)
          await page.getByLabel("URL", { exact: true }).fill(hooks.url)
          await page.getByText("Event types: all").click()
          const types = page.getByRole("group", { name: "Event types" })
          await types.getByRole("checkbox", { name: "data.updated" }).uncheck()
          await page.getByText("Event types: 10 chosen").waitFor()
          await page.getByRole("button", { name: "Add endpoint" }).click()
          const created = page.getByRole("region", { name: "New signing secret" })
          expect(await created.locator("code.secret").textContent()).toMatch(/^whsec_/)
          const card = page.getByRole("article", { name: `Endpoint ${hooks.url}` })
          await card.getByText("10 event types").waitFor()
          await card.getByRole("link", { name: `Deliveries and settings of ${hooks.url}` }).click()
          await page.getByRole("heading", { level: 1, name: hooks.url }).waitFor()
          const endpointId = new URL(page.url()).pathname.split("/").at(-1)!
          const health = page.getByRole("region", { name: "Endpoint health" })
          await health.getByText("No attempt has failed.").waitFor()

          // A test event: the receiver answers 503, and the page shows why.
          await page.getByRole("button", { name: "Send test event" }).click()
          await page.getByText(/^Test event evt_[0-9a-f]+ queued\.$/).waitFor()
          await expect.poll(() => hooks.received.length, { timeout: 15_000 }).toBeGreaterThan(0)
          expect(JSON.parse(hooks.received[0]!)).toMatchObject({ type: "webhook.test", data: { endpointId } })
          await expect.poll(async () => {
            await page.reload()
            await page.getByRole("heading", { level: 1, name: hooks.url }).waitFor()
            return health.getByText("HTTP 503: receiver down").count()
          }, { timeout: 15_000 }).toBe(1)
          await page.getByRole("region", { name: "Deliveries" }).getByRole("cell", {
            name: "webhook.test",
            exact: true
          })
            .waitFor()
          await checkPage(session, "portal-webhook-endpoint")

          // A new secret, shown once.
          await page.getByRole("button", { name: "Rotate secret" }).click()
          const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" })
          await dialog.getByRole("button", { name: "Rotate secret" }).click()
          const rotated = page.getByRole("region", { name: "New signing secret" })
          const secret = (await rotated.locator("code.secret").textContent()) ?? ""
          expect(secret).toMatch(/^whsec_/)
          await checkPage(session, "portal-webhook-secret-rotated")
          await rotated.getByRole("button", { name: "I have copied it" }).click()
          await page.reload()
          await page.getByRole("heading", { level: 1, name: hooks.url }).waitFor()
          expect(await page.getByText(secret).count()).toBe(0)

          // Event types: data.updated back, user.deleted out.
          const chosen = page.getByRole("group", { name: "Event types" })
          expect(await chosen.getByRole("checkbox", { name: "data.updated" }).isChecked()).toBe(false)
          await chosen.getByRole("checkbox", { name: "data.updated" }).check()
          await chosen.getByRole("checkbox", { name: "user.deleted" }).uncheck()
          await page.getByRole("button", { name: "Save event types" }).click()
          await page.getByText("Event types saved.").waitFor()
          const saved = await page.request.get(`/portal/api/apps/${app.id}/webhook-endpoints/${endpointId}`)
          const events = (await saved.json()).endpoint.events as Array<string>
          expect(events).toContain("data.updated")
          expect(events).not.toContain("user.deleted")
          expect(events).toHaveLength(10)

          // Disabled: no test event; then deleted, after a confirmation.
          await page.getByRole("button", { name: "Disable" }).click()
          await page.getByText("disabled", { exact: true }).waitFor()
          expect(await page.getByRole("button", { name: "Send test event" }).isDisabled()).toBe(true)
          await page.getByRole("button", { name: "Delete endpoint" }).click()
          const confirm = page.getByRole("dialog", { name: "Delete this endpoint?" })
          await confirm.getByRole("button", { name: "Delete endpoint" }).click()
          await page.getByText("No webhook endpoints yet.").waitFor()
          expect(new URL(page.url()).pathname).toBe(`/portal/apps/${app.id}/webhooks`)

          const audit = await page.request.get(`/portal/api/audit?appId=${app.id}&limit=50`)
          const actions = ((await audit.json()).data as Array<any>)
            .filter((event) => event.targetId === endpointId)
            .map((event) => event.action)
          expect(actions).toEqual([
            "webhookEndpoint.delete",
            "webhookEndpoint.update",
            "webhookEndpoint.update",
            "webhookEndpoint.rotateSecret",
            "webhookEndpoint.test",
            "webhookEndpoint.create"
          ])
          expect(session.problems).toEqual([])
        })
      }).pipe(Effect.scoped))

    it.effect("on a 390-pixel phone the endpoint's page reads without scrolling sideways", () =>
      Effect.flatMap(seedFailing, (seeded) =>
        runScenario(async (session) => {
          const { page } = session
          await page.goto(`/portal/apps/${seeded.app.id}/webhooks/${seeded.endpointId}`)
          await page.getByRole("region", { name: "Endpoint health" }).getByText(seeded.unavailable).waitFor()
          await page.getByRole("region", { name: "Deliveries" }).waitFor()
          await checkPage(session, "portal-webhook-deliveries-phone")
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
          expect(overflow).toBeLessThanOrEqual(0)
          await screenshot(page, "portal-webhook-deliveries-phone-end")
        }, phone)))
  })
})
