/**
 * The portal in Chromium, operator and app side: logging in and out, apps, an API key shown once that
 * works against the public API until it is revoked in the portal, provider credentials whose secret is
 * never shown again, webhook endpoints, and the audit log. Every page passes axe-core and is
 * screenshotted.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Operators } from "@pulsebridge/server"
import { TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { Browser, chromiumAvailable, chromiumPath, logIn, openPage, phone, screenshot } from "./fixtures/Browser.js"
import {
  checkPage,
  createAppInPortal,
  createKeyInPortal,
  expectClean,
  PortalTestLive,
  runScenario
} from "./fixtures/Portal.js"

if (!chromiumAvailable) {
  console.warn(`portal browser tests skipped: no Chromium at ${chromiumPath} (apt-get install -y chromium)`)
}

describe.skipIf(!chromiumAvailable)("portal in a browser: operators and apps", () => {
  layer(PortalTestLive, { timeout: "180 seconds", excludeTestServices: true })((it) => {
    it.effect("an operator logs in with the keyboard, sees who they are, and logs out", () =>
      runScenario(async (session) => {
        const { page } = session
        const missing: Array<string> = []
        page.on("response", (response) => {
          if (response.status() === 404) missing.push(response.url())
        })
        await expect.poll(() => page.getByTestId("operator").textContent()).toBe(session.email)
        await checkPage(session, "apps-empty")
        await page.getByRole("button", { name: "Log out" }).click()
        await page.getByLabel("Password").waitFor()
        await page.reload()
        await page.getByLabel("Password").waitFor()
        // The page names its own icon, so no load asks for a /favicon.ico that is not there.
        expect(await page.locator("link[rel=\"icon\"]").getAttribute("href")).toMatch(/^data:image\/svg\+xml,/)
        expect(missing).toEqual([])
        await checkPage(session, "login")
        // A wrong password: one message that does not say which of the two was wrong.
        session.expectFailures({ status: 401, path: "/portal/api/login" }, { status: 429, path: "/portal/api/login" })
        // The page's clock stands still, so a throttle's message (it counts down by the page's clock) stays up
        // until it is read, however slowly the machine answers.
        await page.clock.setFixedTime(Date.now())
        await page.getByLabel("Email").fill(session.email)
        await page.getByLabel("Password").fill("not the password at all")
        await page.getByRole("button", { name: "Log in" }).click()
        await expect.poll(() => page.getByRole("alert").textContent()).toMatch(
          /The email or the password is wrong|Too many attempts/
        )
        await screenshot(page, "login-failed")
      }))

    it.effect("a new operator sets a password through the one-time setup link, then logs in with it", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const browser = yield* Browser
        const email = `setup-${Date.now()}@example.com`
        const { setupToken } = yield* Effect.flatMap(
          Operators,
          (operators) => operators.create(email, undefined, { operator: null, address: null, via: "cli" })
        )
        const opened = yield* Effect.acquireRelease(
          Effect.promise(() => openPage(browser, baseUrl)),
          (opened) => Effect.promise(() => opened.context.close())
        )
        yield* Effect.promise(async () => {
          const { page } = opened
          await page.goto(`/portal/setup#${setupToken}`)
          await page.getByLabel("New password").fill("a new password of mine")
          await page.getByLabel("Repeat the password").fill("a new password of mine")
          await checkPage(opened, "setup")
          await page.getByRole("button", { name: "Set password" }).click()
          await page.getByText("Your password is set").waitFor()
          expect(page.url()).not.toContain(setupToken!)
          await logIn(page, email, "a new password of mine")
          await expect.poll(() => page.getByTestId("operator").textContent()).toBe(email)
          expectClean(opened, "the setup and login pages")
        })
      }).pipe(Effect.scoped))

    it.effect("a key is shown once; it creates a user over the API; revoked in the portal, the API answers 401", () =>
      runScenario(async (session) => {
        const { api, page } = session
        const appId = await createAppInPortal(session, "Key test app")
        const key = await createKeyInPortal(session, appId)
        await expect.poll(() => page.getByText("shown only this once").count()).toBeGreaterThan(0)
        await checkPage(session, "api-key-created")

        const created = await api.post("/api/v1/users", {
          headers: { authorization: `Bearer ${key}` },
          data: { externalUserId: "made-with-portal-key" }
        })
        expect(created.status()).toBe(201)

        // After a reload only the prefix is left, and it is a prefix of the key.
        await page.reload()
        await page.getByRole("heading", { name: "API keys" }).waitFor()
        expect(await page.getByTestId("new-api-key").count()).toBe(0)
        expect(await page.content()).not.toContain(key)
        const prefix = await page.locator("tr[data-key-prefix]").first().getAttribute("data-key-prefix")
        expect(prefix).not.toBeNull()
        expect(key.startsWith(prefix!)).toBe(true)
        expect(prefix!.length).toBeLessThan(key.length)
        await checkPage(session, "api-keys")

        await page.getByRole("button", { name: `Revoke key ${prefix}` }).click()
        const dialog = page.getByRole("dialog", { name: "Revoke this key?" })
        await checkPage(session, "api-key-revoke-dialog")
        await dialog.getByRole("button", { name: "Revoke key" }).click()
        await expect.poll(() => page.locator("tr[data-key-prefix]").first().textContent()).toContain("revoked")

        const refused = await api.get("/api/v1/users?external_user_id=made-with-portal-key", {
          headers: { authorization: `Bearer ${key}` }
        })
        expect(refused.status()).toBe(401)
      }))

    it.effect("provider credentials are set with the URLs to register beside them, and the secret is never shown", () =>
      runScenario(async (session) => {
        const { page } = session
        const appId = await createAppInPortal(session, "Credentials app")
        await page.goto(`/portal/apps/${appId}/providers`)
        const card = page.locator("article.provider", { hasText: "Fitbit" })
        await card.getByText("Callback URL", { exact: true }).waitFor()
        expect(await card.locator("code").first().textContent()).toMatch(/^https:\/\//)
        await checkPage(session, "provider-credentials")

        const secret = "fitbit-client-secret-0123456789"
        await card.getByRole("button", { name: "Set credentials" }).click()
        await card.getByLabel("Client id").fill("FITBIT123")
        await card.getByLabel("Client secret").fill(secret)
        expect(await card.getByLabel("Client secret").getAttribute("type")).toBe("password")
        await card.getByRole("button", { name: "Save credentials" }).click()
        await card.getByText("configured", { exact: true }).waitFor()
        expect(await card.textContent()).toContain("FITBIT123")

        await page.reload()
        await card.getByText("configured", { exact: true }).waitFor()
        expect(await page.content()).not.toContain(secret)
        await card.getByRole("button", { name: "Replace credentials" }).click()
        expect(await card.getByLabel("Client secret").inputValue()).toBe("")
        expect(await card.getByLabel("Client id").inputValue()).toBe("")
      }))

    it.effect("a webhook endpoint is created with its secret shown once, then disabled and enabled", () =>
      runScenario(async (session) => {
        const { page } = session
        const appId = await createAppInPortal(session, "Webhook app")
        await page.goto(`/portal/apps/${appId}/webhooks`)
        await page.getByLabel("URL", { exact: true }).fill("https://hooks.example.com/pulsebridge")
        await page.getByRole("button", { name: "Add endpoint" }).click()
        const secret = (await page.locator("code.secret").textContent()) ?? ""
        expect(secret).toMatch(/^whsec_/)
        const endpoint = page.locator("article", { hasText: "https://hooks.example.com/pulsebridge" })
        await endpoint.getByRole("button", { name: "Disable" }).click()
        await endpoint.getByText("disabled", { exact: true }).waitFor()
        await checkPage(session, "webhook-endpoints")
        await page.reload()
        await endpoint.getByText("disabled", { exact: true }).waitFor()
        expect(await page.content()).not.toContain(secret)
        await endpoint.getByRole("button", { name: "Enable" }).click()
        await endpoint.getByText("enabled", { exact: true }).waitFor()

        // A test event through the public API makes a delivery (to an address that does not answer); retry it.
        const key = await createKeyInPortal(session, appId)
        const listed = await session.api.get("/api/v1/webhook-endpoints", {
          headers: { authorization: `Bearer ${key}` }
        })
        const endpointId = ((await listed.json()) as Array<{ id: string }>)[0]!.id
        const sent = await session.api.post(`/api/v1/webhook-endpoints/${endpointId}/test`, {
          headers: { authorization: `Bearer ${key}` }
        })
        expect(sent.status(), await sent.text()).toBeLessThan(300)
        await page.goto(`/portal/apps/${appId}/webhooks`)
        await endpoint.getByRole("link", { name: "Deliveries and settings of https://hooks.example.com/pulsebridge" })
          .click()
        const delivery = page.locator("tbody tr", { hasText: "webhook.test" })
        await delivery.waitFor()
        await delivery.getByRole("button", { name: /^Retry webhook\.test/ }).click()
        await expect.poll(() => delivery.textContent()).toMatch(/Pending|Failed/)
        expect(await page.getByRole("alert").count()).toBe(0)
        await checkPage(session, "webhook-deliveries")
      }))

    it.effect("the audit log shows who created and renamed an app", () =>
      runScenario(async (session) => {
        const { page } = session
        const appId = await createAppInPortal(session, "Audited app")
        await page.getByRole("button", { name: "Rename" }).click()
        await page.getByLabel("New name").fill("Audited app, renamed")
        await page.getByRole("button", { name: "Save name" }).click()
        await page.getByRole("heading", { level: 1, name: "Audited app, renamed" }).waitFor()
        await page.getByRole("link", { name: "Audit log" }).click()
        // Newest first: the rename, then the creation, both by this operator and naming this app.
        const rows = page.locator("tbody tr", { has: page.locator(`a[href="/portal/apps/${appId}"]`) })
        await expect.poll(() => rows.count()).toBe(2)
        expect(await rows.nth(0).textContent()).toContain("app.rename")
        expect(await rows.nth(1).textContent()).toContain("app.create")
        for (const row of await rows.all()) expect(await row.textContent()).toContain(session.email)
        // This operator was created with the CLI (by the test's helper): the CLI is named as its author.
        const created = page.locator("tbody tr").filter({ hasText: "operator.create" }).filter({
          hasText: session.email
        })
        expect(await created.locator("td").nth(1).textContent()).toBe("CLI")
        await checkPage(session, "audit-log")
      }))

    it.effect("on a phone the apps page fits the screen's width", () =>
      runScenario(async (session) => {
        const { page } = session
        await createAppInPortal(session, "Phone app")
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Apps" }).click()
        await page.getByRole("link", { name: "Phone app" }).waitFor()
        await checkPage(session, "phone-apps")
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        expect(overflow).toBeLessThanOrEqual(0)
      }, phone))
  })

  // Its own server: failed logins from this address slow down every later login from it.
  layer(PortalTestLive, { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect("after repeated failed logins the form says how long to wait and counts down", () =>
      runScenario(async (session) => {
        const { page } = session
        session.expectFailures({ status: 401, path: "/portal/api/login" }, { status: 429, path: "/portal/api/login" })
        await page.getByRole("button", { name: "Log out" }).click()
        // The page's clock stands still while the timers run: the form counts down by that clock, so its message
        // stays up until the test moves the clock on. Otherwise a wait of 1 s could come and go between two looks.
        const frozenAt = Date.now()
        await page.clock.setFixedTime(frozenAt)
        await page.getByLabel("Email").fill(session.email)
        const throttled = page.getByText(/Too many attempts, try again in \d+ s/)
        for (let attempt = 0; attempt < 10 && (await throttled.count()) === 0; attempt++) {
          await page.getByRole("button", { name: "Log in" }).waitFor({ state: "visible" })
          await expect.poll(() => page.getByRole("button", { name: "Log in" }).isEnabled()).toBe(true)
          await page.getByLabel("Password").fill(`wrong password ${attempt}`)
          await page.getByRole("button", { name: "Log in" }).click()
          await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/wrong|Too many attempts/)
        }
        await throttled.waitFor()
        expect(await page.getByRole("button", { name: "Log in" }).isDisabled()).toBe(true)
        await checkPage(session, "login-throttled")
        // When the page's clock has passed the wait, the next tick of the countdown takes the message away and
        // lets the form be sent again.
        const seconds = Number(/in (\d+) s/.exec((await throttled.textContent()) ?? "")?.[1])
        expect(seconds).toBeGreaterThan(0)
        await page.clock.setFixedTime(frozenAt + (seconds + 1) * 1000)
        await throttled.waitFor({ state: "detached" })
        await expect.poll(() => page.getByRole("button", { name: "Log in" }).isEnabled()).toBe(true)
      }))
  })
})
