/**
 * The portal in Chromium, operators side: an admin creates an operator (its setup link shown once), changes its
 * role, disables, enables and resets it on the operators page; a viewer sees the data with no control that
 * changes anything, and the server refuses such a change when the viewer's browser sends it anyway.
 */
import { describe, expect, layer } from "@effect/vitest"
import { addConnection, createOperator, createUser, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { Browser, chromiumAvailable, chromiumPath, logIn, openPage } from "./fixtures/Browser.js"
import { checkPage, PortalTestLive, runScenario } from "./fixtures/Portal.js"

if (!chromiumAvailable) {
  console.warn(`portal browser tests skipped: no Chromium at ${chromiumPath} (apt-get install -y chromium)`)
}

describe.skipIf(!chromiumAvailable)("portal in a browser: operators and roles", () => {
  layer(PortalTestLive, { timeout: "180 seconds", excludeTestServices: true })((it) => {
    it.effect("an admin creates an operator, changes its role, disables, enables and resets its password", () =>
      runScenario(async (session) => {
        const { page } = session
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Operators" }).click()
        await page.getByRole("heading", { level: 1, name: "Operators" }).waitFor()
        const email = `made-${crypto.randomUUID().slice(0, 8)}@example.com`
        await page.getByLabel("Operator email").fill(email)
        await page.getByLabel("Role").selectOption("viewer")
        await page.getByRole("button", { name: "Create operator" }).click()
        const link = page.getByTestId("setup-link").locator("code")
        await expect.poll(() => link.textContent()).toMatch(/\/portal\/setup#[A-Za-z0-9_-]{43}$/)
        const firstLink = await link.textContent()
        const row = page.getByRole("row").filter({ hasText: email })
        await expect.poll(() => row.getByRole("cell").nth(1).textContent()).toBe("viewer")
        await checkPage(session, "operators")

        await row.getByRole("button", { name: `Make admin: ${email}` }).click()
        await expect.poll(() => row.getByRole("cell").nth(1).textContent()).toBe("admin")

        await row.getByRole("button", { name: `Disable ${email}` }).click()
        const dialog = page.getByRole("dialog", { name: "Disable this operator?" })
        await checkPage(session, "operators-disable-dialog")
        await dialog.getByRole("button", { name: "Disable operator" }).click()
        await expect.poll(() => row.getByRole("cell").nth(2).textContent()).toBe("Disabled")
        await row.getByRole("button", { name: `Enable ${email}` }).click()
        await expect.poll(() => row.getByRole("cell").nth(2).textContent()).toBe("Active")

        await row.getByRole("button", { name: `Reset password of ${email}` }).click()
        await page.getByRole("dialog", { name: "Reset this operator's password?" })
          .getByRole("button", { name: "Reset password" }).click()
        await expect.poll(() => link.textContent()).toMatch(/\/portal\/setup#[A-Za-z0-9_-]{43}$/)
        expect(await link.textContent()).not.toBe(firstLink)

        // Its own row: the last active admin cannot step down, and the page says why.
        const own = page.getByRole("row").filter({ hasText: `${session.email} (you)` })
        expect(await own.count()).toBe(1)
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click()
        await page.getByRole("cell", { name: "operator.password.reset" }).first().waitFor()
      }))

    it.effect("a viewer sees every page with no control that changes anything, and the server refuses a change", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const browser = yield* Browser
        const { app, user } = yield* createUser(`viewer-user-${crypto.randomUUID().slice(0, 8)}`)
        yield* addConnection(user, "Fitbit")
        const email = `viewer-${crypto.randomUUID().slice(0, 8)}@example.com`
        const password = `pw-${crypto.randomUUID()}`
        yield* createOperator(email, password, "viewer")
        const opened = yield* Effect.acquireRelease(
          Effect.promise(() => openPage(browser, baseUrl)),
          (opened) => Effect.promise(() => opened.context.close())
        )
        yield* Effect.promise(async () => {
          const { page } = opened
          await logIn(page, email, password)
          const nav = page.getByRole("navigation", { name: "Main" })
          expect(await nav.getByRole("link", { name: "Sandbox" }).count()).toBe(0)
          const changing = [
            "Create app",
            "Rename",
            "Create key",
            "Revoke",
            "Set credentials",
            "Replace credentials",
            "Add endpoint",
            "Create operator",
            "Disable",
            "Enable",
            "Reset password",
            "Make admin",
            "Make viewer",
            "Re-sync",
            "Erase user…"
          ]
          const expectNoChangingControl = async (what: string) => {
            await page.waitForLoadState("networkidle")
            for (const name of changing) {
              // A button's accessible name starts with its text ("Revoke key pb_sk_...", "Re-sync Fitbit").
              const startsWith = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`)
              expect(await page.getByRole("button", { name: startsWith }).count(), `${name} on ${what}`).toBe(0)
            }
          }
          await nav.getByRole("link", { name: "Apps" }).click()
          await page.getByRole("link", { name: "test app" }).first().waitFor()
          await expectNoChangingControl("apps")
          for (const tab of ["keys", "providers", "webhooks", "users"]) {
            await page.goto(`/portal/apps/${app.id}/${tab}`)
            await page.getByRole("heading", { level: 1, name: "test app" }).waitFor()
            await expectNoChangingControl(tab)
          }
          // The user page: its connections and charts, without re-sync or erasure.
          await page.goto(`/portal/apps/${app.id}/users/${user.id}`)
          await page.getByRole("heading", { name: "Connections" }).waitFor()
          await expect.poll(() => page.getByText("Fitbit").count()).toBeGreaterThan(0)
          await expectNoChangingControl("the user page")
          await nav.getByRole("link", { name: "Operators" }).click()
          await page.getByRole("row").filter({ hasText: `${email} (you)` }).waitFor()
          await expectNoChangingControl("operators")
          expect(await page.getByLabel("Operator email").count()).toBe(0)
          await checkPage(opened, "operators-viewer")

          // Sent anyway, with the session's cookie and CSRF token, the change is refused by the server.
          const csrf = (await (await page.request.get("/portal/api/session")).json()).csrfToken as string
          const refused = await page.request.post("/portal/api/apps", {
            headers: { "x-csrf-token": csrf },
            data: { name: "made by a viewer" }
          })
          expect(refused.status()).toBe(403)
          expect((await refused.json())._tag).toBe("Forbidden")
          const apps = await (await page.request.get("/portal/api/apps")).json()
          expect(apps.data.map((a: { name: string }) => a.name)).not.toContain("made by a viewer")
        })
      }).pipe(Effect.scoped))
  })
})
