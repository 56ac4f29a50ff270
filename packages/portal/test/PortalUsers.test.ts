/**
 * The portal in Chromium, user side: finding a user by external id in a paged list, the user page's
 * charts drawn from a sandbox backfill (pixels of each series on its canvas, and the meal marked on the
 * glucose chart), and erasure confirmed by typing the external id (then the API answers 404). The sandbox page
 * has its own file (`PortalSandbox.test.ts`). Every page passes axe-core and is screenshotted.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as path from "node:path"
import type { APIRequestContext } from "playwright-core"
import type { Page } from "playwright-core"
import { artifactsDir, chromiumAvailable, laptop, phone, pixelsOfColor } from "./fixtures/Browser.js"
import { solidPng } from "./fixtures/Png.js"
import { checkPage, createAppInPortal, createKeyInPortal, PortalTestLive, runScenario } from "./fixtures/Portal.js"

const createUser = async (api: APIRequestContext, key: string, externalUserId: string) => {
  const reply = await api.post("/api/v1/users", {
    headers: { authorization: `Bearer ${key}` },
    data: { externalUserId, timezone: "UTC" }
  })
  expect(reply.status(), await reply.text()).toBe(201)
  return (await reply.json()) as { readonly id: string; readonly token: string }
}

/** The chart figure of this title. */
const figure = (page: Page, title: string) => page.locator("figure.chart", { hasText: title })

/** `#rrggbb` as numbers. */
const rgbOf = (hex: string) =>
  [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as unknown as readonly [number, number, number]

/** How far the page scrolls sideways (0: it fits the screen's width). */
const sidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

describe.skipIf(!chromiumAvailable)("portal in a browser: users", () => {
  layer(PortalTestLive, { timeout: "300 seconds", excludeTestServices: true })((it) => {
    it.effect("the users list pages and finds a user by external id", () =>
      runScenario(async (session) => {
        const { api, page } = session
        const appId = await createAppInPortal(session, "Paged app")
        const key = await createKeyInPortal(session, appId)
        for (let i = 0; i < 27; i++) await createUser(api, key, `paged-${String(i).padStart(2, "0")}`)
        await page.goto(`/portal/apps/${appId}/users`)
        const rows = page.locator("tbody tr")
        await expect.poll(() => rows.count()).toBe(25)
        await page.getByRole("button", { name: "Next page" }).click()
        await expect.poll(() => rows.count()).toBe(2)
        await page.getByRole("button", { name: "Previous page" }).click()
        await expect.poll(() => rows.count()).toBe(25)
        await page.getByLabel("External user id").fill("paged-13")
        await page.getByRole("button", { name: "Search" }).click()
        await expect.poll(() => rows.count()).toBe(1)
        expect(await rows.first().textContent()).toContain("paged-13")
        await checkPage(session, "users-search")
      }))

    it.effect(
      "after a sandbox backfill the user page charts each provider apart with valued legends, the glucose band and time in range, sleep, recovery, body and workouts tables, over a range kept in the address; erase",
      () =>
        runScenario(async (session) => {
          const { api, page } = session
          const appId = await createAppInPortal(session, "Chart app")
          const key = await createKeyInPortal(session, appId)
          const user = await createUser(api, key, "chart-user")
          await createUser(api, key, "other-user")
          const meal = await api.post(`/api/v1/users/${user.id}/journal-entries`, {
            headers: { authorization: `Bearer ${user.token}` },
            data: {
              entryKind: "Meal",
              title: "Porridge",
              consumedAtUtc: new Date(Date.now() - 3 * 3_600_000).toISOString(),
              nutrients: { caloriesKcal: 350 }
            }
          })
          expect(meal.status(), await meal.text()).toBe(201)
          const scan = await api.post(`/api/v1/users/${user.id}/journal-entries/scans`, {
            headers: { authorization: `Bearer ${user.token}` },
            multipart: {
              image: { name: "lunch.png", mimeType: "image/png", buffer: solidPng(64, [200, 120, 40]) },
              entryKind: "Meal",
              consumedAtUtc: new Date(Date.now() - 26 * 3_600_000).toISOString(),
              notes: "2 eggs, toast with butter"
            }
          })
          expect(scan.status(), await scan.text()).toBe(202)

          await page.goto(`/portal/apps/${appId}/users`)
          await page.getByLabel("External user id").fill("chart-user")
          await page.getByRole("button", { name: "Search" }).click()
          await expect.poll(() => page.locator("tbody tr").count()).toBe(1)
          await page.getByRole("link", { name: "chart-user" }).click()
          await page.getByRole("heading", { level: 1, name: "chart-user" }).waitFor()

          for (const provider of ["Fitbit", "Garmin", "WHOOP", "Dexcom"]) {
            await page.getByRole("button", { name: new RegExp(`^Connect ${provider}`) }).click()
            await page.locator("td", { hasText: provider }).first().waitFor()
          }
          // The page follows the sync; once every backfill is in, every chart has its series.
          const rows = page.getByRole("region", { name: "Connections" }).locator("tbody tr")
          await expect.poll(() => rows.count(), { timeout: 120_000 }).toBe(4)
          await expect.poll(
            async () => (await rows.allTextContents()).filter((text) => text.includes("Idle")).length,
            { timeout: 180_000 }
          ).toBe(4)
          const charts = [
            "Daily steps",
            "Daily load",
            "Glucose",
            "Sleep",
            "Heart rate variability",
            "Resting heart rate",
            "Weight"
          ]
          for (const chart of charts) {
            await expect.poll(
              async () => Number(await figure(page, chart).getAttribute("data-points")),
              { timeout: 60_000, message: `${chart} has data points` }
            ).toBeGreaterThan(0)
          }
          await page.getByText("14 days (UTC)", { exact: false }).waitFor()
          expect(await page.getByRole("button", { name: "14 days" }).getAttribute("aria-pressed")).toBe("true")

          // Steps: one series per provider, each named with its mean and latest value without hovering, drawn
          // in its own colour; the values are those the public API reads of that provider.
          const to = new Date().toISOString().slice(0, 10)
          const from = new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10)
          const steps = figure(page, "Daily steps").getByRole("list", { name: "Daily steps: series" })
          for (const provider of ["Fitbit", "Garmin"]) {
            const reply = await api.get(
              `/api/v1/users/${user.id}/connections/activity?from=${from}&to=${to}&provider=${provider}`,
              { headers: { authorization: `Bearer ${user.token}` } }
            )
            expect(reply.status(), await reply.text()).toBe(200)
            const days = (await reply.json()) as Array<{ readonly steps: number; readonly date: string }>
            expect(days.length, `${provider} days`).toBeGreaterThan(3)
            const mean = Math.round(days.reduce((sum, d) => sum + d.steps, 0) / days.length)
            const latest = days[days.length - 1]!.steps
            const item = steps.getByRole("listitem").filter({ hasText: provider })
            expect(await item.textContent()).toContain(
              `${provider} mean ${mean.toLocaleString("en-US")} steps · latest ${latest.toLocaleString("en-US")}`
            )
            const color = await item.locator("svg rect").last().getAttribute("stroke")
            expect(await pixelsOfColor(page, "Daily steps", rgbOf(color!), 30), `${provider} steps drawn`)
              .toBeGreaterThan(100)
          }
          expect(await steps.getByRole("listitem").count(), "no other provider counts steps").toBe(2)
          // Fitbit's bars are solid and Garmin's patterned: told apart without their colours.
          const fills = await steps.locator("svg rect:last-child").evaluateAll((rects) =>
            rects.map((r) => r.getAttribute("fill")!.startsWith("url(") ? "pattern" : "solid")
          )
          expect(fills).toEqual(["solid", "pattern"])
          // Hovering a day shows both providers' values of that day.
          await figure(page, "Daily steps").locator(".u-over").hover()
          await expect.poll(() => figure(page, "Daily steps").textContent()).toMatch(
            /: Fitbit ([\d,]+ steps|no value) · Garmin ([\d,]+ steps|no value)/
          )

          // Every other chart: each provider in the legend has a value and is drawn in its colour.
          for (const chart of charts.slice(1)) {
            const items = figure(page, chart).getByRole("listitem").filter({ hasNotText: "Target range" })
            expect(await items.count(), `${chart} has a series`).toBeGreaterThan(0)
            for (const item of await items.all()) {
              const text = (await item.textContent())!
              expect(text, `${chart} legend`).toMatch(/^(Fitbit|Garmin|WHOOP|Dexcom) mean [\d,.]+ /)
              const color = await item.locator("svg").locator("line, rect").last().getAttribute("stroke")
              expect(await pixelsOfColor(page, chart, rgbOf(color!), 30), `${chart}: ${text}`).toBeGreaterThan(20)
            }
          }

          // Glucose: the target band drawn and named, the meal marked, and the time in range per provider.
          const glucose = figure(page, "Glucose")
          await glucose.getByText("Target range 70–180 mg/dL").waitFor()
          expect(await pixelsOfColor(page, "Glucose", [5, 150, 105], 8), "target band drawn").toBeGreaterThan(2000)
          expect(await pixelsOfColor(page, "Glucose", [180, 83, 9], 40), "meal marked").toBeGreaterThan(10)
          await page.getByText(/Meals: .*Porridge/).waitFor()
          const inRange = page.getByRole("region", { name: "Time in range" }).getByRole("row", { name: /Dexcom/ })
          const texts = await inRange.getByRole("cell").allTextContents()
          const cells = texts.map((text) => parseFloat(text.replace(/,/g, "")))
          expect(cells[0], "readings").toBeGreaterThan(100)
          // Below, in and above the band make the whole (each share rounded to a tenth).
          expect(Math.abs(cells[2]! + cells[3]! + cells[4]! - 100)).toBeLessThanOrEqual(0.3)
          expect(await glucose.textContent()).toContain(`Dexcom mean ${texts[1]} mg/dL · ${texts[3]}% in range`)

          // The page down to the time in range, for the docs (docs/images/portal-user.png).
          await page.evaluate(() => window.scrollTo(0, 0))
          const end = (await page.getByRole("region", { name: "Time in range" }).boundingBox())!
          await figure(page, "Daily steps").locator(".u-over").hover({ position: { x: 200, y: 60 } })
          await expect.poll(() => figure(page, "Daily steps").textContent()).toMatch(/: Fitbit .* · Garmin /)
          await page.screenshot({
            path: path.join(artifactsDir, "user-page-charts.png"),
            fullPage: true,
            clip: { x: 0, y: 0, width: laptop.width, height: Math.ceil(end.y + end.height + 16) }
          })

          // Workouts, sleep, recovery and body measurements in tables with units, per provider.
          for (
            const [table, columns] of [
              ["Workouts", ["Duration (min)", "Distance (km)", "Energy (kcal)", "Avg HR (bpm)"]],
              ["Sleep sessions", ["Asleep (h)", "Deep (min)", "HRV (ms)"]],
              ["Recovery days", ["Resting HR (bpm)", "HRV (ms)", "SpO₂ (%)"]],
              ["Body measurements", ["Weight (kg)", "Body fat (%)"]]
            ] as const
          ) {
            await page.locator("details.records summary", { hasText: `${table}:` }).click()
            const region = page.getByRole("region", { name: table })
            for (const column of columns) await region.getByRole("columnheader", { name: column }).waitFor()
            expect(await region.locator("tbody tr").count(), `${table} rows`).toBeGreaterThan(0)
          }
          const workouts = page.getByRole("region", { name: "Workouts" }).locator("tbody tr")
          expect(await workouts.count(), "workouts listed").toBeGreaterThan(3)
          expect(await workouts.first().textContent()).toMatch(/Fitbit|Garmin|WHOOP/)
          const sleeps = await page.getByRole("region", { name: "Sleep sessions" }).locator("tbody tr")
            .allTextContents()
          for (const provider of ["Fitbit", "Garmin", "WHOOP"]) {
            expect(sleeps.some((row) => row.includes(provider)), `${provider} sleep listed`).toBe(true)
          }
          // The photo is served by the portal (same origin, allowed by the CSP) and decoded by the browser.
          const photo = page.locator(".journal img").first()
          await photo.scrollIntoViewIfNeeded()
          await expect.poll(() => photo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(64)
          await page.locator(".scores details").first().locator("summary").click()
          await checkPage(session, "user-page")
          await page.setViewportSize(phone)
          await page.waitForTimeout(300)
          expect(await sidewaysScroll(page), "no sideways scroll on a phone").toBe(0)
          await checkPage(session, "phone-user-page")
          await page.setViewportSize(laptop)

          // The range: 30 days, kept in the address; a custom range the server would refuse is refused on the page
          // (not sent: no 400 reaches the console), then a good one shown.
          await page.getByRole("button", { name: "30 days" }).click()
          await page.waitForURL(/\?days=30$/)
          await page.getByText("30 days (UTC)", { exact: false }).waitFor()
          expect(await page.getByRole("button", { name: "30 days" }).getAttribute("aria-pressed")).toBe("true")
          await page.getByRole("button", { name: "Custom…" }).click()
          const customRange = page.getByRole("form", { name: "Custom range" })
          await customRange.getByLabel("From").fill("2026-03-10")
          await customRange.getByLabel("To").fill("2026-03-01")
          await customRange.getByRole("button", { name: "Show range" }).click()
          await customRange.getByRole("alert").filter({ hasText: "The first day must not be after the last." })
            .waitFor()
          expect(page.url()).toMatch(/\?days=30$/)
          await customRange.getByLabel("From").fill(from)
          await customRange.getByLabel("To").fill(to)
          await customRange.getByRole("button", { name: "Show range" }).click()
          await page.waitForURL(new RegExp(`\\?from=${from}&to=${to}$`))
          await page.reload()
          await page.getByText(`${from} to ${to}: 14 days`).waitFor()
          expect(await page.getByRole("button", { name: "Custom…" }).getAttribute("aria-pressed")).toBe("true")
          await expect.poll(async () => Number(await figure(page, "Daily steps").getAttribute("data-points")))
            .toBeGreaterThan(0)

          await page.getByRole("button", { name: "Re-sync Fitbit" }).click()
          await page.getByText("A re-sync of Fitbit was asked for.").waitFor()
          // The export link downloads the user's NDJSON with the session cookie.
          const exportHref = await page.getByRole("link", { name: "Export (NDJSON)" }).getAttribute("href")
          const exported = await page.request.get(exportHref!)
          expect(exported.status()).toBe(200)
          expect(await exported.text()).toContain("chart-user")

          await page.getByRole("button", { name: "Erase user…" }).click()
          const dialog = page.getByRole("dialog", { name: "Erase this user?" })
          const confirm = dialog.getByRole("button", { name: "Erase user" })
          expect(await confirm.isDisabled()).toBe(true)
          await dialog.getByLabel("Type chart-user to confirm").fill("chart-use")
          expect(await confirm.isDisabled()).toBe(true)
          await dialog.getByLabel("Type chart-user to confirm").fill("chart-user")
          await checkPage(session, "erase-dialog")
          await confirm.click()
          await page.getByRole("heading", { name: "Users" }).waitFor()
          await page.getByLabel("External user id").fill("chart-user")
          await page.getByRole("button", { name: "Search" }).click()
          await page.getByText("No user's external id matches").waitFor()

          const gone = await api.get(`/api/v1/users/${user.id}`, { headers: { authorization: `Bearer ${key}` } })
          expect(gone.status()).toBe(404)
        }),
      240_000
    )
  })
})
