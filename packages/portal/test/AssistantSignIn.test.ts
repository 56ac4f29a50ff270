/**
 * An assistant's sign-in in Chromium: the app's assistant sign-in URL set and cleared on its page (admin), then the
 * OAuth flow as a person goes through it in the sandbox: the authorization request sends the browser to the
 * sandbox's demo sign-in page (the app has no sign-in URL of its own), a test user signs in, the consent page names
 * the assistant, the app and the data, and Approve sends the browser back to the assistant with a code that the
 * token endpoint exchanges for a read-only token of the app's MCP URL. Every page passes axe-core and is
 * screenshotted.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as crypto from "node:crypto"
import * as http from "node:http"
import { chromiumAvailable } from "./fixtures/Browser.js"
import { checkPage, createAppInPortal, PortalTestLive, runScenario } from "./fixtures/Portal.js"

const base64url = (bytes: Buffer) => bytes.toString("base64url")

describe.skipIf(!chromiumAvailable)("portal in a browser: an assistant's sign-in", () => {
  layer(PortalTestLive, { timeout: "300 seconds", excludeTestServices: true })((it) => {
    it.effect(
      "the app's sign-in URL is set and cleared on its page; the sandbox's demo sign-in, the consent page and Approve give the assistant a code",
      () =>
        runScenario(async (session) => {
          const { api, baseUrl, page } = session
          const appId = await createAppInPortal(session, "Assistant app")

          // The sign-in URL on the app's page: saved, shown after a reload, then cleared.
          const form = page.getByRole("form", { name: "Assistant sign-in" })
          const field = form.getByLabel("Assistant sign-in URL")
          await field.fill("https://app.example.com/assistant-sign-in")
          await form.getByRole("button", { name: "Save sign-in URL" }).click()
          await form.getByRole("status").getByText("Saved").waitFor()
          await page.reload()
          await expect.poll(() => field.inputValue()).toBe("https://app.example.com/assistant-sign-in")
          await checkPage(session, "app-assistant-sign-in")
          await field.fill("")
          await form.getByRole("button", { name: "Save sign-in URL" }).click()
          await form.getByRole("status").getByText("Saved").waitFor()
          await page.reload()
          await expect.poll(() => field.inputValue()).toBe("")

          // A sandbox test user of the app, made on the sandbox page.
          const nav = page.getByRole("navigation", { name: "Main" })
          await nav.getByRole("link", { name: "Sandbox" }).click()
          await page.getByLabel("App", { exact: true }).selectOption({ label: "Assistant app" })
          await page.getByLabel("External id (optional)").fill("assistant-user")
          await page.getByRole("button", { name: "Make test user" }).click()
          await page.getByRole("region", { name: "Test user assistant-user" }).waitFor()

          // The assistant registers itself (dynamic client registration), as its backend would.
          // The assistant's callback: a page of its own on a loopback port, as a desktop assistant serves it.
          const callbackServer = http.createServer((_request, response) => {
            response.writeHead(200, { "content-type": "text/html" })
            response.end("<!doctype html><html lang=\"en\"><title>Assistant</title><main><h1>Back</h1></main></html>")
          })
          await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve))
          const port = (callbackServer.address() as { port: number }).port
          const redirectUri = `http://127.0.0.1:${port}/assistant/callback`
          const registered = await api.post("/oauth/register", {
            data: { client_name: "Browser Assistant", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }
          })
          expect(registered.status()).toBe(201)
          const clientId = String((await registered.json()).client_id)
          const verifier = base64url(crypto.randomBytes(32))
          const challenge = base64url(crypto.createHash("sha256").update(verifier).digest())
          const state = base64url(crypto.randomBytes(12))
          // The MCP URL's protected resource metadata names the resource and its authorization server.
          const metadata = await (await api.get(`/.well-known/oauth-protected-resource/mcp/apps/${appId}`)).json()
          const resource = String(metadata.resource)
          expect(resource).toMatch(new RegExp(`/mcp/apps/${appId}$`))
          const issuer = String(metadata.authorization_servers[0])
          const authorize = new URL("/oauth/authorize", baseUrl)
          expect(new URL(issuer).pathname).toBe("/")
          for (
            const [name, value] of Object.entries({
              response_type: "code",
              client_id: clientId,
              redirect_uri: redirectUri,
              code_challenge: challenge,
              code_challenge_method: "S256",
              state,
              scope: "sleep glucose",
              resource
            })
          ) authorize.searchParams.set(name, value)
          await page.goto(authorize.toString())

          // The sandbox's demo of the app's sign-in: the app's test users.
          await page.getByRole("heading", { level: 1, name: "Sign in to Assistant app" }).waitFor()
          await checkPage(session, "mcp-sandbox-sign-in")
          await page.getByRole("radio", { name: "assistant-user" }).check()
          await page.getByRole("button", { name: "Sign in" }).click()

          // The consent page: who asks, for which app, which data, read-only.
          await page.getByRole("heading", {
            level: 1,
            name: "Allow Browser Assistant to read your Assistant app data?"
          }).waitFor()
          const consent = (await page.locator("main").textContent()) ?? ""
          expect(consent).toMatch(/Sleep/)
          expect(consent).toMatch(/[Gg]lucose/)
          expect(consent).not.toMatch(/Workouts/)
          await checkPage(session, "mcp-consent")
          const callback = page.waitForRequest((request) => request.url().startsWith(redirectUri))
          await page.getByRole("button", { name: "Approve" }).click()
          const back = new URL((await callback).url())
          expect(back.searchParams.get("state")).toBe(state)
          expect(back.searchParams.get("iss")).toBe(issuer)
          const code = back.searchParams.get("code")
          expect(code).toBeTruthy()

          // The code is the assistant's read-only token of the app's MCP URL, for the approved data only.
          const token = await api.post("/oauth/token", {
            form: {
              grant_type: "authorization_code",
              code: code!,
              redirect_uri: redirectUri,
              client_id: clientId,
              code_verifier: verifier,
              resource
            }
          })
          expect(token.status()).toBe(200)
          const tokens = await token.json()
          expect(tokens.access_token).toMatch(/^pb_mt_/)
          expect(String(tokens.scope).split(" ").sort()).toEqual(["glucose", "sleep"])
          const listed = await api.post(`/mcp/apps/${appId}`, {
            headers: {
              authorization: `Bearer ${tokens.access_token}`,
              accept: "application/json, text/event-stream",
              "content-type": "application/json"
            },
            data: { jsonrpc: "2.0", id: 1, method: "tools/list" }
          })
          expect(listed.status()).toBe(200)
          const names = (await listed.json()).result.tools.map((tool: { name: string }) => tool.name)
          expect(names).toContain("get_sleep")
          expect(names).toContain("get_glucose_summary")
          expect(names).not.toContain("get_workouts")
          // and it is no key to the REST API
          const rest = await api.get("/api/v1/users", { headers: { authorization: `Bearer ${tokens.access_token}` } })
          expect(rest.status()).toBe(401)
          await new Promise((resolve) => callbackServer.close(resolve))
        })
    )
  })
})
