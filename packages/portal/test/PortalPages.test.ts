/**
 * Every page of the portal in Chromium, one after the other: each address of `loggedInPages` (the navigation's
 * entries, an app's tabs, a user page, the sandbox page, an unknown address) for a logged-in operator, and the
 * pages without a session (login, a setup link). Each must show no console error, script error, failed request
 * or error answer, name its icon, and pass axe-core. The navigation's entries and an app's tabs must all be in the list, so a new
 * page is one line here.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Operators } from "@pulsebridge/server"
import { TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import { Browser, chromiumAvailable, openPage, phone } from "./fixtures/Browser.js"
import {
  checkPage,
  createAppInPortal,
  createKeyInPortal,
  expectClean,
  PortalTestLive,
  runScenario
} from "./fixtures/Portal.js"

/** What the addresses are made of: an app with a user and a sandbox test user. */
interface World {
  readonly appId: string
  readonly appName: string
  readonly userId: string
  readonly externalUserId: string
  readonly testUserId: string
}

/** A page: its address, and the level-1 heading that says it has loaded. */
interface PortalPage {
  readonly name: string
  readonly path: (world: World) => string
  readonly heading: (world: World) => string | RegExp
}

/** Every page a logged-in operator reaches. A new page is one line. */
const loggedInPages: ReadonlyArray<PortalPage> = [
  { name: "overview", path: () => "/portal/overview", heading: () => "Overview" },
  { name: "apps", path: () => "/portal", heading: () => "Apps" },
  { name: "app-keys", path: (w) => `/portal/apps/${w.appId}/keys`, heading: (w) => w.appName },
  { name: "app-providers", path: (w) => `/portal/apps/${w.appId}/providers`, heading: (w) => w.appName },
  { name: "app-webhooks", path: (w) => `/portal/apps/${w.appId}/webhooks`, heading: (w) => w.appName },
  { name: "app-users", path: (w) => `/portal/apps/${w.appId}/users`, heading: (w) => w.appName },
  { name: "user", path: (w) => `/portal/apps/${w.appId}/users/${w.userId}`, heading: (w) => w.externalUserId },
  { name: "audit", path: () => "/portal/audit", heading: () => "Audit log" },
  { name: "operators", path: () => "/portal/operators", heading: () => "Operators" },
  { name: "account", path: () => "/portal/account", heading: () => "Your account" },
  { name: "sandbox", path: (w) => `/portal/sandbox?app=${w.appId}`, heading: () => "Sandbox" },
  {
    name: "sandbox-test-user",
    path: (w) => `/portal/sandbox?app=${w.appId}&user=${w.testUserId}`,
    heading: () => "Sandbox"
  },
  { name: "not-found", path: () => "/portal/no-such-page", heading: () => "Not found" }
]

const pathOf = (address: string) => new URL(address, "https://portal.test").pathname

/** The paths the page links to from the navigation named `name`. */
const linkedPaths = (page: Page, name: string) =>
  page.getByRole("navigation", { name }).getByRole("link").evaluateAll((links) =>
    links.map((link) => new URL((link as HTMLAnchorElement).href).pathname)
  )

describe.skipIf(!chromiumAvailable)("portal in a browser: every page", () => {
  layer(PortalTestLive, { timeout: "300 seconds", excludeTestServices: true })((it) => {
    it.effect(
      "every page of a logged-in operator, opened by its address and from the navigation, logs no error and passes axe-core",
      () =>
        runScenario(async (session) => {
          const { api, page } = session
          const appName = "Every page app"
          const appId = await createAppInPortal(session, appName)
          const key = await createKeyInPortal(session, appId)
          const externalUserId = "every-page-user"
          const created = await api.post("/api/v1/users", {
            headers: { authorization: `Bearer ${key}` },
            data: { externalUserId, timezone: "UTC" }
          })
          expect(created.status(), await created.text()).toBe(201)
          await page.goto(`/portal/sandbox?app=${appId}`)
          await page.getByRole("button", { name: "Make test user" }).click()
          await page.getByRole("region", { name: /^Test user sandbox-/ }).waitFor()
          const world: World = {
            appId,
            appName,
            userId: ((await created.json()) as { id: string }).id,
            externalUserId,
            testUserId: new URL(page.url()).searchParams.get("user") ?? ""
          }
          expect(world.testUserId).toMatch(/^[0-9a-f-]{36}$/)

          for (const entry of loggedInPages) {
            await page.goto(entry.path(world))
            await page.getByRole("heading", { level: 1, name: entry.heading(world) }).waitFor()
            // Each page names its icon (inline, so no request for it can fail).
            expect(await page.locator("link[rel=\"icon\"]").getAttribute("href")).toMatch(/^data:image\/svg\+xml,/)
            await checkPage(session, `page-${entry.name}`)
          }
          // Pages that name none (the API's documentation) get the same icon at /favicon.ico.
          const icon = await api.get("/favicon.ico")
          expect(icon.status()).toBe(200)
          expect(icon.headers()["content-type"]).toMatch(/^image\/svg\+xml/)

          // The navigation and an app's tabs link to no page the list leaves out.
          const listed = new Set(loggedInPages.map((entry) => pathOf(entry.path(world))))
          await page.goto(`/portal/apps/${appId}/keys`)
          await page.getByRole("heading", { level: 1, name: appName }).waitFor()
          for (const path of [...(await linkedPaths(page, "Main")), ...(await linkedPaths(page, "App sections"))]) {
            expect(listed, `${path} is in the list of pages`).toContain(path)
          }

          // From page to page as an operator goes: by the navigation's links, without loading the portal again.
          const nav = page.getByRole("navigation", { name: "Main" })
          for (const link of await nav.getByRole("link").all()) {
            const name = (await link.textContent()) ?? ""
            await link.click()
            await expect.poll(() => link.getAttribute("aria-current"), { message: name }).toBe("page")
            await page.getByRole("heading", { level: 1 }).waitFor()
            await page.waitForLoadState("networkidle")
            expectClean(session, `${name}, from the navigation`)
          }
        }),
      300_000
    )

    it.effect("on a 390-pixel phone the operators and account pages read without the page scrolling sideways", () =>
      runScenario(async (session) => {
        const { page } = session
        for (
          const entry of [
            { path: "/portal/operators", heading: "Operators", name: "operators-phone" },
            { path: "/portal/account", heading: "Your account", name: "account-phone" }
          ]
        ) {
          await page.goto(entry.path)
          await page.getByRole("heading", { level: 1, name: entry.heading }).waitFor()
          await checkPage(session, entry.name)
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
          expect(overflow, entry.path).toBeLessThanOrEqual(0)
        }
      }, phone))

    it.effect("the pages without a session, the login page and a setup link, log no error and pass axe-core", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const browser = yield* Browser
        const { setupToken } = yield* Effect.flatMap(
          Operators,
          (operators) =>
            operators.create(`every-page-${Date.now()}@example.com`, undefined, {
              operator: null,
              address: null,
              via: "cli"
            })
        )
        const opened = yield* Effect.acquireRelease(
          Effect.promise(() => openPage(browser, baseUrl)),
          (opened) => Effect.promise(() => opened.context.close())
        )
        yield* Effect.promise(async () => {
          const { page } = opened
          for (const address of ["/portal", "/portal/login", "/portal/apps"]) {
            await page.goto(address)
            await page.getByRole("button", { name: "Log in" }).waitFor()
            await checkPage(opened, `page-login${pathOf(address).replaceAll("/", "-")}`)
          }
          await page.goto(`/portal/setup#${setupToken}`)
          await page.getByRole("heading", { level: 1, name: "Set your password" }).waitFor()
          await checkPage(opened, "page-setup")
        })
      }).pipe(Effect.scoped))
  })
})
