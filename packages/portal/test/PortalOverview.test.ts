/**
 * The portal in Chromium, the operators' overview: the counts across all apps and for one app chosen in
 * the selector, a count opening its list, a row's link to the user's page, an endpoint's last error, and
 * no script or console error. The page passes axe-core and is screenshotted.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { addConnection, createApp } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { chromiumAvailable, phone, screenshot } from "./fixtures/Browser.js"
import { checkPage, PortalTestLive, runScenario } from "./fixtures/Portal.js"

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000)

/** Two apps: a failed sync, a connection to reconnect, a quarantined record and a failing endpoint in the first. */
const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const clinic = (yield* createApp("Overview clinic")).app
  const lab = (yield* createApp("Overview lab")).app
  const user = (appId: string, externalUserId: string) =>
    Effect.gen(function*() {
      const id = crypto.randomUUID()
      yield* sql`
        insert into users (id, app_id, external_user_id, locale, timezone)
        values (${id}, ${appId}, ${externalUserId}, 'en-US', 'UTC')
      `
      return { id, appId, externalUserId } as any
    })
  const syncState = (connectionId: string, state: string, lastError: string | null, lastSyncedAt: Date) =>
    sql`
      insert into sync_state (connection_id, state, last_error, last_synced_at)
      values (${connectionId}, ${state}, ${lastError}, ${lastSyncedAt})
    `

  const failed = yield* user(clinic.id, "alice-runner")
  yield* syncState(
    yield* addConnection(failed, "Garmin"),
    "Error",
    "Garmin answered 500 to the dailies request",
    hoursAgo(3)
  )
  const reauth = yield* user(clinic.id, "bob-sleeper")
  const reauthConnection = yield* addConnection(reauth, "Dexcom", { status: "Reauthorize" })
  yield* sql`update connections set status_reason = 'The user revoked access at Dexcom' where id = ${reauthConnection}`
  const healthy = yield* user(clinic.id, "carol-walker")
  const healthyConnection = yield* addConnection(healthy, "Fitbit")
  yield* syncState(healthyConnection, "Idle", null, new Date())
  yield* sql`
    insert into quarantined_records (connection_id, user_id, provider, kind, record_key, provider_record_id, reason,
      raw_json)
    values (${healthyConnection}, ${healthy.id}, 'Fitbit', 'dailyActivity', 'day-1', 'day-1', 'steps is not a number',
      '{}')
  `
  const endpointId = crypto.randomUUID()
  yield* sql`
    insert into webhook_endpoints (id, app_id, url, secret_sealed, failing_since, failure_streak, created_at, updated_at)
    values (${endpointId}, ${clinic.id}, 'https://clinic.example.com/hooks', 'sealed', ${hoursAgo(5)}, 4,
      ${hoursAgo(24)}, ${hoursAgo(5)})
  `
  const eventId = `evt_${crypto.randomUUID()}`
  yield* sql`
    insert into webhook_events (id, app_id, type, payload, created_at)
    values (${eventId}, ${clinic.id}, 'connection.updated', '{}'::jsonb, ${hoursAgo(5)})
  `
  yield* sql`
    insert into webhook_deliveries (id, endpoint_id, event_id, status, attempts, last_status_code, last_error,
      last_attempt_at, next_attempt_at, created_at)
    values (${crypto.randomUUID()}, ${endpointId}, ${eventId}, 'Pending', 4, 503, 'The endpoint answered 503',
      ${hoursAgo(1)}, now() + interval '1 hour', ${hoursAgo(5)})
  `

  const labUser = yield* user(lab.id, "dave-lab")
  yield* syncState(yield* addConnection(labUser, "WHOOP"), "Error", "WHOOP answered 502", hoursAgo(2))
  return { clinic, lab, failed, reauth, labUser }
})

describe.skipIf(!chromiumAvailable)("portal in a browser: overview", () => {
  layer(PortalTestLive, { timeout: "180 seconds", excludeTestServices: true })((it) => {
    it.effect("the overview counts every app, then one app; a count opens its list, whose rows link to the user", () =>
      Effect.flatMap(seed, (seeded) =>
        runScenario(async (session) => {
          const { page } = session
          const consoleErrors: Array<string> = []
          page.on("console", (message) => {
            if (message.type() === "error") consoleErrors.push(message.text())
          })
          const nav = page.getByRole("navigation", { name: "Main" })
          expect(await nav.getByRole("link").first().textContent()).toBe("Overview")
          await nav.getByRole("link", { name: "Overview" }).click()
          await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor()
          const summary = page.getByRole("group", { name: "Summary" })
          /** A count's button, named by its label and the count. */
          const stat = (label: string, count: number) =>
            summary.getByRole("button", { name: `${label} ${count}`, exact: true })

          // All apps: both apps' failed syncs, each row naming its app.
          await stat("Sync errors", 2).waitFor()
          await stat("Waiting for reauthorization", 1).waitFor()
          await stat("Quarantined records", 1).waitFor()
          await stat("Failing endpoints", 1).waitFor()
          await stat("Pending deliveries", 1).waitFor()
          await stat("Active connections", 3).waitFor()
          const list = page.getByRole("region", { name: "Sync errors" })
          await expect.poll(() => list.getByRole("row").count()).toBe(3)
          await list.getByRole("cell", { name: "Overview lab" }).waitFor()
          await list.getByRole("cell", { name: "Overview clinic" }).waitFor()
          await checkPage(session, "overview")

          // One app: the other app's failed sync is gone from the counts and the list.
          await page.getByLabel("App").selectOption({ label: "Overview clinic" })
          await stat("Sync errors", 1).waitFor()
          expect(page.url()).toContain(`app=${seeded.clinic.id}`)
          await stat("Active connections", 2).waitFor()
          await expect.poll(() => list.getByRole("row").count()).toBe(2)
          expect(await list.getByText("dave-lab").count()).toBe(0)
          const link = list.getByRole("link", { name: "alice-runner" })
          expect(await link.getAttribute("href")).toBe(`/portal/apps/${seeded.clinic.id}/users/${seeded.failed.id}`)
          await list.getByText("Garmin answered 500 to the dailies request").waitFor()

          await stat("Waiting for reauthorization", 1).click()
          const reauth = page.getByRole("region", { name: "Waiting for reauthorization" })
          await reauth.getByText("The user revoked access at Dexcom").waitFor()
          expect(await reauth.getByRole("link", { name: "bob-sleeper" }).getAttribute("href")).toBe(
            `/portal/apps/${seeded.clinic.id}/users/${seeded.reauth.id}`
          )

          await stat("Failing endpoints", 1).click()
          const endpoints = page.getByRole("region", { name: "Failing endpoints" })
          const endpoint = endpoints.getByRole("link", { name: "https://clinic.example.com/hooks" })
          expect(await endpoint.getAttribute("href")).toBe(`/portal/apps/${seeded.clinic.id}/webhooks`)
          await endpoints.getByText("The endpoint answered 503").waitFor()
          await checkPage(session, "overview-app-endpoints")

          // The other app: its own failed sync only.
          await page.getByLabel("App").selectOption({ label: "Overview lab" })
          await stat("Failing endpoints", 0).waitFor()
          await stat("Sync errors", 1).click()
          await list.getByRole("link", { name: "dave-lab" }).waitFor()
          expect(await list.getByText("alice-runner").count()).toBe(0)

          // A row's link opens the user's page.
          await list.getByRole("link", { name: "dave-lab" }).click()
          await page.getByRole("heading", { level: 1, name: "dave-lab" }).waitFor()
          await screenshot(page, "overview-user-opened")
          expect(consoleErrors).toEqual([])
          expect(session.problems).toEqual([])
        })))

    it.effect("on a 390-pixel phone the counts and a list read without the page scrolling sideways", () =>
      runScenario(async (session) => {
        const { page } = session
        await page.goto("/portal/overview?list=active")
        await page.getByRole("heading", { level: 2, name: "Active connections" }).waitFor()
        await page.getByRole("region", { name: "Providers" }).waitFor()
        await checkPage(session, "overview-phone")
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        expect(overflow).toBeLessThanOrEqual(0)
      }, phone))
  })
})
