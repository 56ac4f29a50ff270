/**
 * The portal in Chromium, user side: finding a user by external id in a paged list, the user page's
 * charts drawn from a sandbox backfill (pixels of each series on its canvas, and the meal marked on the
 * glucose chart), and erasure confirmed by typing the external id (then the API answers 404). The sandbox page
 * has its own file (`PortalSandbox.test.ts`). Every page passes axe-core and is screenshotted.
 */
import { describe, expect, layer } from "@effect/vitest"
import type { APIRequestContext } from "playwright-core"
import { chromiumAvailable, phone, pixelsOfColor, screenshot } from "./fixtures/Browser.js"
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
      "after a sandbox backfill the user page charts steps, load, sleep, HRV, weight and glucose with the meal marked, and lists workouts; erase",
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

          for (const provider of ["Fitbit", "WHOOP", "Dexcom"]) {
            await page.getByRole("button", { name: new RegExp(`^Connect ${provider}`) }).click()
            await page.locator("td", { hasText: provider }).first().waitFor()
          }
          // The page follows the sync; once every backfill is in, every chart has its series.
          const rows = page.locator("table").first().locator("tbody tr")
          await expect.poll(() => rows.count(), { timeout: 120_000 }).toBe(3)
          await expect.poll(
            async () => (await rows.allTextContents()).filter((text) => text.includes("Idle")).length,
            { timeout: 120_000 }
          ).toBe(3)
          for (const chart of ["Daily steps", "Daily load", "Sleep", "Heart rate variability", "Weight", "Glucose"]) {
            await expect.poll(
              async () => Number(await page.locator("figure.chart", { hasText: chart }).getAttribute("data-points")),
              { timeout: 60_000, message: `${chart} has data points` }
            ).toBeGreaterThan(0)
          }
          expect(await pixelsOfColor(page, "Daily steps", [37, 99, 235]), "steps bars drawn").toBeGreaterThan(100)
          expect(await pixelsOfColor(page, "Daily load", [124, 58, 237]), "load bars drawn").toBeGreaterThan(100)
          expect(await pixelsOfColor(page, "Sleep", [79, 70, 229]), "sleep bars drawn").toBeGreaterThan(100)
          expect(await pixelsOfColor(page, "Heart rate variability", [8, 145, 178]), "HRV bars drawn")
            .toBeGreaterThan(100)
          expect(await pixelsOfColor(page, "Weight", [190, 24, 93]), "weight line drawn").toBeGreaterThan(20)
          const workouts = page.getByRole("region", { name: "Workouts" }).locator("tbody tr")
          expect(await workouts.count(), "workouts listed").toBeGreaterThan(3)
          expect(await workouts.first().textContent()).toMatch(/Fitbit|WHOOP/)
          expect(await pixelsOfColor(page, "Glucose", [5, 150, 105]), "glucose line drawn").toBeGreaterThan(100)
          expect(await pixelsOfColor(page, "Glucose", [180, 83, 9], 40), "meal marked").toBeGreaterThan(10)
          await page.getByText(/Meals: .*Porridge/).waitFor()
          // The photo is served by the portal (same origin, allowed by the CSP) and decoded by the browser.
          const photo = page.locator(".journal img").first()
          await photo.scrollIntoViewIfNeeded()
          await expect.poll(() => photo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(64)
          await page.locator(".scores details").first().locator("summary").click()
          await checkPage(session, "user-page")
          await page.setViewportSize(phone)
          await screenshot(page, "phone-user-page")

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
