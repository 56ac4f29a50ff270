/**
 * The portal in Chromium, account side: an operator changes its password, sets up TOTP by reading the secret from
 * the page and computing the code as an authenticator app does (the otpauth library), keeps its recovery codes,
 * and logs in again with the password and a code. With the second factor required, an operator without one is
 * shown only the account page until it sets one up.
 */
import { describe, expect, layer } from "@effect/vitest"
import { createOperator, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as OTPAuth from "otpauth"
import { Browser, chromiumAvailable, chromiumPath, logIn, openPage } from "./fixtures/Browser.js"
import { checkPage, PortalTestLive, runScenario } from "./fixtures/Portal.js"

if (!chromiumAvailable) {
  console.warn(`portal browser tests skipped: no Chromium at ${chromiumPath} (apt-get install -y chromium)`)
}

/** The code an authenticator app shows for `secret` at `ms`. */
const codeAt = (secret: string, ms: number) =>
  new OTPAuth.TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate({
    timestamp: ms
  })

describe.skipIf(!chromiumAvailable)("portal in a browser: the operator's account", () => {
  layer(PortalTestLive, { timeout: "180 seconds", excludeTestServices: true })((it) => {
    it.effect("an operator changes its password, sets up TOTP from the page, and logs in with a code", () =>
      runScenario(async (session) => {
        const { page } = session
        await page.getByRole("link", { name: "Account" }).click()
        await page.getByRole("heading", { level: 1, name: "Your account" }).waitFor()

        const newPassword = `new-${crypto.randomUUID()}`
        await page.getByLabel("Current password").fill(session.password)
        await page.getByLabel("New password", { exact: true }).fill(newPassword)
        await page.getByLabel("Repeat the new password").fill(newPassword)
        await page.getByRole("button", { name: "Change password" }).click()
        await page.getByText("Password changed").waitFor()

        await page.getByRole("button", { name: "Set up second factor" }).click()
        const qr = page.getByRole("img", { name: "QR code of the second factor's secret" })
        await qr.waitFor()
        expect(await qr.getAttribute("src")).toMatch(/^data:image\/svg\+xml/)
        expect(await qr.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0)
        const secret = (await page.getByTestId("totp-secret").textContent()) ?? ""
        expect(secret).toMatch(/^[A-Z2-7]{32}$/)
        await checkPage(session, "account-second-factor-setup")
        await page.getByLabel("Code from the app").fill(codeAt(secret, Date.now()))
        await page.getByRole("button", { name: "Turn on second factor" }).click()
        const codes = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem")
        await expect.poll(() => codes.count()).toBe(10)
        await checkPage(session, "account-recovery-codes")

        await page.getByRole("button", { name: "Log out" }).click()
        await page.getByLabel("Email").fill(session.email)
        await page.getByLabel("Password").fill(newPassword)
        await page.getByRole("button", { name: "Log in" }).click()
        const code = page.getByLabel("Code")
        await code.waitFor()
        await checkPage(session, "login-second-factor")
        // The confirming code's step is spent: an app a step ahead shows the next one.
        await code.fill(codeAt(secret, Date.now() + 30_000))
        await page.getByRole("button", { name: "Verify" }).click()
        await page.getByRole("button", { name: "Log out" }).waitFor()
        await expect.poll(() => page.getByTestId("operator").textContent()).toBe(session.email)
      }))

    it.effect("with a second factor required, an operator without one sees only its account page", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const browser = yield* Browser
        const email = `must-${crypto.randomUUID().slice(0, 8)}@example.com`
        const password = `pw-${crypto.randomUUID()}`
        yield* createOperator(email, password, "viewer")
        const opened = yield* Effect.acquireRelease(
          Effect.promise(() => openPage(browser, baseUrl)),
          (opened) => Effect.promise(() => opened.context.close())
        )
        yield* runScenario(async (admin) => {
          await admin.page.goto("/portal/operators")
          const required = admin.page.getByRole("checkbox", { name: /Require a second factor/ })
          await required.check()
          // The admin itself has none yet: it is sent to its account page too.
          await admin.page.getByText("Every operator must log in with a second factor").waitFor()
          const { page } = opened
          await logIn(page, email, password)
          await page.getByText("Every operator must log in with a second factor").waitFor()
          await page.goto("/portal/apps")
          await page.getByRole("heading", { level: 1, name: "Your account" }).waitFor()
          await checkPage(opened, "account-second-factor-required")
          await page.getByRole("button", { name: "Set up second factor" }).click()
          const secret = (await page.getByTestId("totp-secret").textContent()) ?? ""
          await page.getByLabel("Code from the app").fill(codeAt(secret, Date.now()))
          await page.getByRole("button", { name: "Turn on second factor" }).click()
          await page.getByRole("list", { name: "Recovery codes" }).waitFor()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Apps" }).click()
          await page.getByRole("heading", { level: 1, name: "Apps" }).waitFor()
          // Nor may the admin who required it change anything else, the setting included, before it sets one up.
          const csrf = (await (await admin.page.request.get("/portal/api/session")).json()).csrfToken as string
          const off = await admin.page.request.put("/portal/api/settings", {
            headers: { "x-csrf-token": csrf },
            data: { secondFactorRequired: false }
          })
          expect(off.status()).toBe(403)
        })
      }).pipe(Effect.scoped))
  })
})
