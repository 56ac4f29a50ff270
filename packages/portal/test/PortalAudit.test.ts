/**
 * The audit page in Chromium: its columns, each actor, app and subject named and linked, full times in the
 * browser's zone with the UTC instant, the detail as a line with its JSON on demand, filters that narrow the
 * table and the export links, and no script error on the page.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Audit, byActor, cliActor } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import { Browser, chromiumAvailable, chromiumPath, logIn, phone } from "./fixtures/Browser.js"
import { screenshot } from "./fixtures/Browser.js"
import {
  checkPage,
  createAppInPortal,
  createKeyInPortal,
  loggedIn,
  type PortalSession,
  PortalTestLive
} from "./fixtures/Portal.js"

if (!chromiumAvailable) {
  console.warn(`portal browser tests skipped: no Chromium at ${chromiumPath} (apt-get install -y chromium)`)
}

const columns = ["Time", "Actor type", "Actor", "Action", "App", "Subject", "Details"]

describe.skipIf(!chromiumAvailable)("portal in a browser: the audit log", () => {
  layer(PortalTestLive, { timeout: "180 seconds", excludeTestServices: true })((it) => {
    it.effect("names, links, full times and readable details; a filter narrows the table and the export", () =>
      Effect.scoped(Effect.gen(function*() {
        const session: PortalSession = yield* loggedIn()
        const { page } = session
        const consoleErrors: Array<string> = []
        page.on("console", (message) => {
          if (message.type() === "error") consoleErrors.push(message.text())
        })
        const appName = `Audit page app ${Date.now()}`
        const appId = yield* Effect.promise(() => createAppInPortal(session, appName))
        yield* Effect.promise(() => createKeyInPortal(session, appId))
        const audit = yield* Audit
        yield* audit.record(byActor(cliActor("release-bot"), {
          action: "app.rename",
          targetType: "app",
          targetId: appId,
          appId,
          detail: { from: appName, to: appName }
        }))
        const refused = yield* Effect.promise(() =>
          session.api.post("/portal/api/login", { data: { email: session.email, password: "not the password at all" } })
        )
        expect(refused.status()).toBe(401)

        yield* Effect.promise(async () => {
          try {
            await page.getByRole("link", { name: "Audit log" }).click()
            await page.getByRole("heading", { level: 1, name: "Audit log" }).waitFor()
            const table = page.getByRole("table")
            await table.waitFor()
            expect(await table.getByRole("columnheader").allTextContents()).toEqual(columns)

            // The key's creation: this operator, this app, the key by name, its permissions as a line.
            const created = page.getByRole("row").filter({ hasText: "apiKey.create" }).filter({ hasText: appName })
            await expect.poll(() => created.count()).toBe(1)
            const cells = created.getByRole("cell")
            expect(await cells.nth(1).textContent()).toBe("Operator")
            const actor = cells.nth(2).getByRole("link", { name: session.email })
            expect(await actor.getAttribute("href")).toMatch(/^\/portal\/audit\?operatorId=[0-9a-f-]{36}$/)
            expect(await cells.nth(4).getByRole("link", { name: appName }).getAttribute("href")).toBe(
              `/portal/apps/${appId}`
            )
            expect(await cells.nth(5).getByRole("link", { name: /^API key / }).getAttribute("href")).toBe(
              `/portal/apps/${appId}/keys`
            )
            expect(await cells.nth(6).textContent()).toContain(
              "permissions: users:read, users:write, webhooks:read, webhooks:write"
            )
            // the raw JSON, on demand
            const raw = cells.nth(6).locator("pre")
            expect(await raw.isVisible()).toBe(false)
            await cells.nth(6).getByText("Raw JSON").click()
            expect(JSON.parse((await raw.textContent()) ?? "")).toMatchObject({
              permissions: ["users:read", "users:write", "webhooks:read", "webhooks:write"]
            })
            // the time: date, seconds and zone, in the browser's zone; the UTC instant in datetime and the tooltip
            const time = cells.nth(0).locator("time")
            const utc = (await time.getAttribute("datetime")) ?? ""
            expect(utc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
            expect(await time.getAttribute("title")).toBe(`${utc} (UTC)`)
            const shown = (await time.textContent()) ?? ""
            expect(shown).toMatch(/\d{1,2}:\d{2}:\d{2}/)
            expect(shown).toContain(String(new Date(utc).getFullYear()))
            expect(shown).toMatch(/UTC|GMT|[A-Z]{3,4}/)

            // the CLI and an anonymous attempt, each named as such
            const byCli = page.getByRole("row").filter({ hasText: "CLI (release-bot)" })
            expect(await byCli.getByRole("cell").nth(1).textContent()).toBe("CLI")
            expect(await byCli.getByRole("cell").nth(3).textContent()).toBe("app.rename")
            const anonymous = page.getByRole("row").filter({ hasText: "login.failed" }).filter({
              hasText: session.email
            }).first()
            expect(await anonymous.getByRole("cell").nth(1).textContent()).toBe("Anonymous")
            expect(await anonymous.getByRole("cell").nth(2).textContent()).toMatch(/^anonymous \S+/)
            expect(await anonymous.getByRole("cell").nth(6).textContent()).toContain("reason: wrong password")

            // A filter: this app's key creations only, in the address, the table and the export links.
            await page.getByLabel("App").selectOption({ label: appName })
            await page.getByLabel("Action").selectOption("apiKey.create")
            await page.getByRole("button", { name: "Apply filters" }).click()
            await page.waitForURL(/action=apiKey\.create/)
            expect(new URL(page.url()).searchParams.get("appId")).toBe(appId)
            await expect.poll(() => page.getByRole("row").count()).toBe(2)
            expect(await page.getByRole("row").nth(1).getByRole("cell").nth(3).textContent()).toBe("apiKey.create")
            expect(await page.getByLabel("Action").inputValue()).toBe("apiKey.create")
            const csv = await page.getByRole("link", { name: "Export CSV" }).getAttribute("href")
            expect(csv).toBe(`/portal/api/audit/export?format=csv&action=apiKey.create&appId=${appId}`)
            const jsonl = await page.getByRole("link", { name: "Export JSON Lines" }).getAttribute("href")
            expect(jsonl).toBe(`/portal/api/audit/export?format=jsonl&action=apiKey.create&appId=${appId}`)
            await checkPage(session, "audit-filtered")

            // An operator's link filters by that operator.
            await page.getByRole("link", { name: "Clear" }).or(page.getByRole("button", { name: "Clear" })).click()
            await expect.poll(() => new URL(page.url()).search).toBe("")
            await page.getByRole("row").filter({ hasText: "apiKey.create" }).filter({ hasText: appName })
              .getByRole("link", { name: session.email }).click()
            await page.waitForURL(/operatorId=/)
            await expect.poll(async () => (await page.getByRole("row").count()) > 1).toBe(true)
            for (const row of (await page.getByRole("row").all()).slice(1)) {
              expect(await row.getByRole("cell").nth(2).textContent()).toContain(session.email)
            }
            await checkPage(session, "audit-log-operator")

            // On a phone the page keeps to the screen's width (the table scrolls in its frame).
            await page.setViewportSize(phone)
            await checkPage(session, "audit-log-phone")
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
            expect(overflow).toBeLessThanOrEqual(0)
            expect(consoleErrors).toEqual([])
          } catch (error) {
            await screenshot(page, `failed-audit-${Date.now()}`).catch(() => undefined)
            throw error
          }
        })

        // In another time zone (India: UTC+5:30, no daylight saving) the same event reads in that zone.
        const browser = yield* Browser
        const india = yield* Effect.acquireRelease(
          Effect.promise(() =>
            browser.newContext({ baseURL: session.baseUrl, ignoreHTTPSErrors: true, timezoneId: "Asia/Kolkata" })
          ),
          (context) => Effect.promise(() => context.close())
        )
        yield* Effect.promise(async () => {
          const other = await india.newPage()
          try {
            await logIn(other, session.email, session.password)
            await other.goto(`/portal/audit?appId=${appId}&action=app.create`)
            const time = other.getByRole("row").nth(1).getByRole("cell").nth(0).locator("time")
            await time.waitFor()
            const utc = new Date((await time.getAttribute("datetime")) ?? "")
            const shown = (await time.textContent()) ?? ""
            expect(shown).toMatch(/GMT\+5:30|IST/)
            const [, hours, minutes, seconds] = /(\d{1,2}):(\d{2}):(\d{2})/.exec(shown) ?? []
            const local = new Date(utc.getTime() + 330 * 60_000)
            expect(Number(minutes)).toBe(local.getUTCMinutes())
            expect(Number(seconds)).toBe(local.getUTCSeconds())
            expect(Number(hours) % 12).toBe(local.getUTCHours() % 12)
            expect(await other.getByText(/Times in your time zone \(Asia\/(Kolkata|Calcutta)\)/).count()).toBe(1)
            await screenshot(other, "audit-log-kolkata")
          } catch (error) {
            await screenshot(other, `failed-audit-zone-${Date.now()}`).catch(() => undefined)
            throw error
          }
        })
      })))
  })
})
