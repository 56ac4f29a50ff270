/**
 * The sandbox page in Chromium: a test user made for an app, connected to every simulator with one button, its
 * badges following each backfill until every one is Idle (the page reads the server again while a sync runs), the
 * app's list of test users, the chosen app and test user kept when the page is left and opened again from the
 * navigation (and after a reload), a test user the address names but the app lacks dropped, and a simulator's fault
 * knob set and cleared. Every page passes axe-core and is screenshotted.
 */
import { describe, expect, layer } from "@effect/vitest"
import { chromiumAvailable, phone } from "./fixtures/Browser.js"
import { checkPage, createAppInPortal, PortalTestLive, runScenario } from "./fixtures/Portal.js"

describe.skipIf(!chromiumAvailable)("portal in a browser: the sandbox page", () => {
  layer(PortalTestLive, { timeout: "300 seconds", excludeTestServices: true })((it) => {
    it.effect(
      "connect all connects a test user to every simulator and the badges follow each backfill until Idle; the page remembers the app and user",
      () =>
        runScenario(async (session) => {
          const { page } = session
          await createAppInPortal(session, "Another app")
          const appId = await createAppInPortal(session, "Sandbox app")
          const nav = page.getByRole("navigation", { name: "Main" })
          await nav.getByRole("link", { name: "Sandbox" }).click()
          await page.getByRole("heading", { level: 1, name: "Sandbox" }).waitFor()
          await page.getByLabel("App", { exact: true }).selectOption({ label: "Sandbox app" })
          await page.getByText("Sandbox app has no test users yet.").waitFor()

          await page.getByLabel("External id (optional)").fill("tester-one")
          await page.getByRole("button", { name: "Make test user" }).click()
          const card = page.getByRole("region", { name: "Test user tester-one" })
          await card.waitFor()
          const connections = card.getByRole("list", { name: "Connections of tester-one" }).getByRole("listitem")
          const simulators = await connections.count()
          expect(simulators).toBeGreaterThanOrEqual(4)
          await expect.poll(() => card.getByText("not connected").count(), { timeout: 10_000 }).toBe(simulators)

          await card.getByRole("button", { name: "Connect all" }).click()
          await card.getByRole("status").getByText(/^Connected .+\.$/).waitFor({ timeout: 60_000 })
          // Every simulator is connected, and each badge moves on from Pending and Backfilling by itself.
          await expect.poll(() => card.getByText("not connected").count(), { timeout: 30_000 }).toBe(0)
          await expect.poll(
            async () => (await connections.allTextContents()).filter((text) => /\bIdle\b/.test(text)).length,
            { timeout: 240_000, interval: 1000, message: "every connection of the card Idle" }
          ).toBe(simulators)
          expect((await connections.allTextContents()).filter((text) => /Backfilling|Pending/.test(text))).toEqual([])
          await expect.poll(() => card.getByRole("button", { name: "Connect all" }).isDisabled(), { timeout: 10_000 })
            .toBe(
              true
            )
          await card.getByText("Connected to every simulator.").waitFor()
          await page.getByText("A sync is under way; the states here follow it.").waitFor({ state: "detached" })

          // The list shows the app's test users with the same states.
          const list = page.getByRole("region", { name: "Test users of Sandbox app" })
          const row = list.getByRole("row").filter({ hasText: "tester-one" })
          await expect.poll(async () => ((await row.textContent()) ?? "").match(/Idle/g)?.length ?? 0, {
            timeout: 10_000
          }).toBe(simulators)
          await checkPage(session, "sandbox-connected")

          // Left for another page and opened again from the navigation: the same app and test user.
          await nav.getByRole("link", { name: "Apps" }).click()
          await page.getByRole("heading", { level: 1, name: "Apps" }).waitFor()
          await nav.getByRole("link", { name: "Sandbox" }).click()
          await card.waitFor()
          expect(await page.getByLabel("App", { exact: true }).inputValue()).toBe(appId)
          expect(new URL(page.url()).searchParams.get("app")).toBe(appId)
          await page.reload()
          await card.waitFor()
          expect(await page.getByLabel("App", { exact: true }).inputValue()).toBe(appId)

          // A second test user: listed first, and chosen; the first can be chosen again from the list.
          await page.getByRole("button", { name: "Make test user" }).click()
          const second = page.getByRole("region", { name: /^Test user sandbox-[0-9a-f]{8}$/ })
          await second.waitFor()
          await expect.poll(() => list.getByRole("row").count(), { timeout: 10_000 }).toBe(3)
          expect(await list.getByRole("row").nth(1).textContent()).toMatch(/sandbox-[0-9a-f]{8}/)
          await list.getByRole("button", { name: "Choose tester-one" }).click()
          await card.waitFor()
          expect(await list.getByRole("button", { name: "Choose tester-one" }).getAttribute("aria-pressed")).toBe(
            "true"
          )

          // Another app: its own (empty) list; back to the first, the list is there again.
          await page.getByLabel("App", { exact: true }).selectOption({ label: "Another app" })
          await page.getByText("Another app has no test users yet.").waitFor()
          await page.getByLabel("App", { exact: true }).selectOption({ label: "Sandbox app" })
          await expect.poll(() => list.getByRole("row").count(), { timeout: 10_000 }).toBe(3)

          // A test user the address names but the app does not have (erased, or of another app): no choice.
          const unknown = "00000000-0000-4000-8000-000000000000"
          session.expectFailures({ status: 404, path: `/portal/api/sandbox/apps/${appId}/test-users/${unknown}` })
          await page.goto(`/portal/sandbox?app=${appId}&user=${unknown}`)
          await expect.poll(() => new URL(page.url()).searchParams.get("user"), { timeout: 10_000 }).toBeNull()
          expect(new URL(page.url()).searchParams.get("app")).toBe(appId)
          await expect.poll(() => list.getByRole("row").count(), { timeout: 10_000 }).toBe(3)
          expect(await page.getByRole("region", { name: /^Test user / }).count()).toBe(0)

          const garmin = page.locator("article", { has: page.getByRole("heading", { name: "Garmin" }) })
          await garmin.getByLabel("Fault").selectOption("rateLimit")
          await garmin.getByLabel("Requests").fill("3")
          await garmin.getByRole("button", { name: "Add fault" }).click()
          await garmin.getByText("3 more requests").waitFor()
          await checkPage(session, "sandbox")
          await garmin.getByRole("button", { name: "Clear" }).click()
          await garmin.getByText("No faults pending.").waitFor()
        }),
      300_000
    )

    it.effect("on a 390-pixel phone the sandbox page fits the screen's width", () =>
      runScenario(async (session) => {
        const { page } = session
        await createAppInPortal(session, "Phone sandbox")
        await page.goto("/portal/sandbox")
        await page.getByLabel("App", { exact: true }).selectOption({ label: "Phone sandbox" })
        await page.getByRole("button", { name: "Make test user" }).click()
        await page.getByRole("region", { name: /^Test user sandbox-/ }).waitFor()
        await checkPage(session, "sandbox-phone")
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        expect(overflow).toBeLessThanOrEqual(0)
      }, phone))
  })
})
