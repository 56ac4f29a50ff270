/**
 * OAuth for the MCP server, end to end on the sandbox: the official SDK's client discovers the authorization
 * server from an app's MCP URL, registers (client ID metadata document served from a local https server, or
 * dynamic registration), sends the browser through the app's sign-in (followed here with fetch; the app's
 * backend calls the assertion API with its API key, or the sandbox's demo page stands in), consents, gets its
 * tokens, calls a tool, refreshes and is revoked. The wire is the subject (redirects, forms, OAuth bodies,
 * `WWW-Authenticate`), so these tests speak HTTP. Then each refusal: a token at another app's MCP URL, an MCP
 * token on REST routes, a replayed code, a wrong verifier, an unregistered redirect, an expired assertion, and
 * another app's or user's data.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens
} from "@modelcontextprotocol/sdk/shared/auth.js"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import { CreateUserPayload } from "@pulsebridge/domain"
import { createApp, createUser, makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as https from "node:https"
import * as path from "node:path"
import { Users } from "../../src/users/Users.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { trustingFetch } from "../fixtures/Mcp.js"

const redirectUri = "http://127.0.0.1:9/callback"
const mcpHeaders = { accept: "application/json, text/event-stream" }
const rpc = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: 1, method, params })

/** An assistant's OAuth state, in memory, as the SDK's client asks for it. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ""
  authorizationUrl: URL | undefined
  clientMetadataUrl?: string
  constructor(clientMetadataUrl?: string) {
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl
  }
  get redirectUrl() {
    return redirectUri
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Test Assistant",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none"
    }
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

/** `fetch` trusting the test server's certificate, never following redirects (the test follows them). */
const browser = Effect.map(trustingFetch, (fetch) => (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, { ...init, redirect: "manual" })
    return { status: response.status, headers: response.headers, text: await response.text() }
  }))

const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1]

const appUrl = (port: number, appId: string) => `https://localhost:${port}/mcp/apps/${appId}`

/** The sign-in URL of the test apps: never fetched; the test plays the app's backend. */
const appSignIn = "https://app.example/assistant-sign-in"

const setSignIn = (appId: string, url: string | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`update apps set assistant_sign_in_url = ${url} where id = ${appId}`)

/**
 * The browser's part from the authorization URL to the client's redirect: the authorize redirect to the app's
 * sign-in, the app's assertion (its backend with `apiKey`), the consent page and its form. Answers the client's
 * redirect (with `code` or `error`).
 */
const signInAndConsent = (
  authorizationUrl: string,
  app: { readonly apiKey: string; readonly userId: string },
  decision: "approve" | "deny" = "approve"
) =>
  Effect.gen(function*() {
    const get = yield* browser
    const authorize = yield* get(authorizationUrl)
    expect(authorize.status, authorize.text).toBe(302)
    const signIn = new URL(authorize.headers.get("location")!)
    expect(signIn.origin + signIn.pathname).toBe(appSignIn)
    const request = signIn.searchParams.get("pb_request")!
    const assertion = yield* send("POST", "/api/v1/mcp/sign-in-assertions", {
      bearer: app.apiKey,
      json: { request, userId: app.userId }
    })
    expect(assertion.status, preview(assertion)).toBe(201)
    return yield* consent(json(assertion).redirectUrl, decision)
  })

/** Opens the consent page and answers it: the client's redirect URL. */
const consent = (consentUrl: string, decision: "approve" | "deny" = "approve") =>
  Effect.gen(function*() {
    const get = yield* browser
    const page = yield* get(consentUrl)
    expect(page.status, page.text).toBe(200)
    expect(page.headers.get("x-frame-options")).toBe("DENY")
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    expect(page.headers.get("cache-control")).toBe("no-store")
    const posted = yield* get(new URL("/oauth/consent", consentUrl).toString(), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        assertion: hidden(page.text, "assertion")!,
        csrf: hidden(page.text, "csrf")!,
        decision
      }).toString()
    })
    expect(posted.status, posted.text).toBe(302)
    return new URL(posted.headers.get("location")!)
  })

/** An MCP client over `url` with `provider`; its connection is attempted (and may need authorization). */
const sdkClient = (url: string, provider: MemoryProvider) =>
  Effect.gen(function*() {
    const fetch: FetchLike = yield* trustingFetch
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch })
    const client = new Client({ name: "oauth-test", version: "1.0.0" })
    return { transport, client }
  })

const pkcePair = () => {
  const verifier = crypto.randomBytes(32).toString("base64url")
  return { verifier, challenge: crypto.createHash("sha256").update(verifier).digest("base64url") }
}

const form = (values: Record<string, string>) => ({
  body: new URLSearchParams(values).toString(),
  contentType: "application/x-www-form-urlencoded"
})

/** A flow by hand up to the code: a registered client, PKCE, the app's sign-in and consent. */
const codeFor = (app: { readonly apiKey: string; readonly userId: string; readonly appId: string }) =>
  Effect.gen(function*() {
    const { port } = yield* TestServer
    const registered = yield* send("POST", "/oauth/register", {
      json: { client_name: "Manual client", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }
    })
    expect(registered.status, preview(registered)).toBe(201)
    const clientId: string = json(registered).client_id
    const pkce = pkcePair()
    const resource = appUrl(port, app.appId)
    const url = new URL(`https://localhost:${port}/oauth/authorize`)
    for (
      const [name, value] of Object.entries({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: pkce.challenge,
        code_challenge_method: "S256",
        state: "xyz",
        scope: "activity scores",
        resource
      })
    ) url.searchParams.set(name, value)
    const back = yield* signInAndConsent(url.toString(), app)
    expect(back.searchParams.get("state")).toBe("xyz")
    expect(back.searchParams.get("iss")).toBe(`https://localhost:${port}`)
    return { code: back.searchParams.get("code")!, clientId, pkce, resource }
  })

const exchange = (code: string, clientId: string, verifier: string, resource: string) =>
  send(
    "POST",
    "/oauth/token",
    form({
      grant_type: "authorization_code",
      code,
      client_id: clientId,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      resource
    })
  )

/** A raw `tools/list` at an MCP URL path with `token`. */
const listTools = (mcpPath: string, token: string) =>
  send("POST", mcpPath, { bearer: token, headers: mcpHeaders, json: rpc("tools/list") })

/** An app whose assistant sign-in URL is the test's, with a user. */
const appWithUser = (externalUserId: string) =>
  Effect.gen(function*() {
    const made = yield* createUser(externalUserId)
    yield* setSignIn(made.app.id, appSignIn)
    return { ...made, appId: made.app.id, userId: made.user.id }
  })

/** An https server on a free port serving `body` at `/client.json`, with the test server's certificate. */
const metadataServer = (body: (url: string) => unknown) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const { dataDir } = yield* TestServer
      const server = https.createServer({
        cert: fs.readFileSync(path.join(dataDir, "tls", "cert.pem")),
        key: fs.readFileSync(path.join(dataDir, "tls", "key.pem"))
      })
      let fetched = 0
      yield* Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      })
      const port = (server.address() as { port: number }).port
      const url = `https://localhost:${port}/client.json`
      server.on("request", (_req, res) => {
        fetched++
        res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" })
        res.end(JSON.stringify(body(url)))
      })
      return { url, server, fetches: () => fetched }
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )

layer(makeTestServer({ sandbox: true }), { timeout: "120 seconds", excludeTestServices: true })("mcp oauth", (it) => {
  it.scoped("the SDK's client completes the flow: discovery, registration, sign-in, consent, tool, refresh, revocation", () =>
    Effect.gen(function*() {
      const { port } = yield* TestServer
      const app = yield* appWithUser("oauth-sdk")
      const url = appUrl(port, app.appId)
      const provider = new MemoryProvider()
      const first = yield* sdkClient(url, provider)
      // The first connection meets the 401, discovers, registers and sends the browser to authorize.
      const refused = yield* Effect.promise(() =>
        first.client.connect(first.transport).then(() => "connected", (e) => e)
      )
      expect(String(refused)).toMatch(/Unauthorized/i)
      expect(provider.client?.client_id).toMatch(/^pbc_/)
      const authorizationUrl = provider.authorizationUrl!
      expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256")
      expect(authorizationUrl.searchParams.get("resource")).toBe(url)
      const back = yield* signInAndConsent(authorizationUrl.toString(), app)
      yield* Effect.promise(() => first.transport.finishAuth(back.searchParams.get("code")!))
      expect(provider.saved?.access_token).toMatch(/^pb_mt_/)
      expect(provider.saved?.refresh_token).toMatch(/^pb_mr_/)

      const { client, transport } = yield* sdkClient(url, provider)
      yield* Effect.promise(() => client.connect(transport))
      const profile = yield* Effect.promise(() => client.callTool({ name: "get_profile", arguments: {} }))
      expect(profile.structuredContent).toMatchObject({ userId: app.userId })

      // The app sees the grant.
      const grants = json(yield* send("GET", `/api/v1/users/${app.userId}/mcp-grants`, { bearer: app.apiKey }))
      expect(grants).toHaveLength(1)
      expect(grants[0]).toMatchObject({ kind: "oauth", clientName: "Test Assistant", resource: url })
      expect(grants[0].scopes).toContain("glucose")

      // The access token revoked: the next call meets a 401 and the SDK refreshes (rotation) on its own.
      const before = provider.saved!
      const revoked = yield* send("POST", "/oauth/revoke", form({ token: before.access_token }))
      expect(revoked.status).toBe(200)
      expectError(yield* listTools(`/mcp/apps/${app.appId}`, before.access_token), 401)
      const tools = yield* Effect.promise(() => client.listTools())
      expect(tools.tools.length).toBeGreaterThan(5)
      expect(provider.saved!.access_token).not.toBe(before.access_token)
      expect(provider.saved!.refresh_token).not.toBe(before.refresh_token)
      // The rotated refresh token used again: the grant ends, the current access token with it.
      const reused = yield* send(
        "POST",
        "/oauth/token",
        form({
          grant_type: "refresh_token",
          refresh_token: before.refresh_token!,
          client_id: provider.client!.client_id
        })
      )
      expect(reused.status).toBe(400)
      expect(json(reused).error).toBe("invalid_grant")
      expectError(yield* listTools(`/mcp/apps/${app.appId}`, provider.saved!.access_token), 401)
      yield* Effect.promise(() => client.close())
    }))

  it.scoped("a client ID metadata document names the client; the sandbox's demo page signs the user in", () =>
    Effect.gen(function*() {
      const { port } = yield* TestServer
      const { app, user } = yield* createUser("oauth-cimd")
      const sql = yield* SqlClient.SqlClient
      // The sandbox page's test users: the demo sign-in lists them. An app without a sign-in URL uses the demo.
      yield* sql`insert into sandbox_test_users (user_id, app_id) values (${user.id}, ${app.id})`
      const documentServer = yield* metadataServer((url) => ({
        client_id: url,
        client_name: "Metadata Assistant",
        client_uri: "https://assistant.example",
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: "none"
      }))
      const url = appUrl(port, app.id)
      const provider = new MemoryProvider(documentServer.url)
      const first = yield* sdkClient(url, provider)
      yield* Effect.promise(() => first.client.connect(first.transport).then(() => "connected", (e) => e))
      expect(provider.client?.client_id).toBe(documentServer.url)
      const get = yield* browser
      const authorize = yield* get(provider.authorizationUrl!.toString())
      expect(authorize.status, authorize.text).toBe(302)
      const demo = new URL(authorize.headers.get("location")!)
      expect(demo.pathname).toBe("/sandbox/mcp-sign-in")
      const page = yield* get(demo.toString())
      expect(page.status, page.text).toBe(200)
      expect(page.text).toContain("oauth-cimd")
      const signedIn = yield* get(new URL("/sandbox/mcp-sign-in", demo).toString(), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ pb_request: hidden(page.text, "pb_request")!, userId: user.id }).toString()
      })
      expect(signedIn.status, signedIn.text).toBe(302)
      const consentUrl = signedIn.headers.get("location")!
      const consentPage = yield* get(consentUrl)
      expect(consentPage.text).toContain("Metadata Assistant")
      expect(consentPage.text).toContain("https://assistant.example")
      const back = yield* consent(consentUrl)
      yield* Effect.promise(() => first.transport.finishAuth(back.searchParams.get("code")!))
      const { client, transport } = yield* sdkClient(url, provider)
      yield* Effect.promise(() => client.connect(transport))
      const profile = yield* Effect.promise(() => client.callTool({ name: "get_profile", arguments: {} }))
      expect(profile.structuredContent).toMatchObject({ userId: user.id })
      // Fetched once, then served from the cache within its lifetime.
      expect(documentServer.fetches()).toBe(1)
      yield* Effect.promise(() => client.close())
    }))

  it.scoped("metadata: the resource of an app's MCP URL, the authorization server, and 401s that point at them", () =>
    Effect.gen(function*() {
      const { port } = yield* TestServer
      const app = yield* appWithUser("oauth-metadata")
      const resource = json(yield* send("GET", `/.well-known/oauth-protected-resource/mcp/apps/${app.appId}`))
      expect(resource).toMatchObject({
        resource: appUrl(port, app.appId),
        authorization_servers: [`https://localhost:${port}`]
      })
      const server = json(yield* send("GET", "/.well-known/oauth-authorization-server"))
      expect(server).toMatchObject({
        issuer: `https://localhost:${port}`,
        code_challenge_methods_supported: ["S256"],
        client_id_metadata_document_supported: true
      })
      const missing = yield* send("POST", `/mcp/apps/${app.appId}`, { headers: mcpHeaders, json: rpc("tools/list") })
      expect(missing.status).toBe(401)
      expect(missing.headers["www-authenticate"]).toBe(
        `Bearer resource_metadata="https://localhost:${port}/.well-known/oauth-protected-resource/mcp/apps/${app.appId}"`
      )
      const plain = yield* send("POST", "/mcp", { headers: mcpHeaders, json: rpc("tools/list") })
      expect(plain.headers["www-authenticate"]).toContain(
        `resource_metadata="https://localhost:${port}/.well-known/oauth-protected-resource"`
      )
      expectError(yield* send("GET", `/.well-known/oauth-protected-resource/mcp/apps/${crypto.randomUUID()}`), 404)
    }))

  it.scoped("a token for another app's MCP URL, or for /mcp, is refused with invalid_token", () =>
    Effect.gen(function*() {
      const app = yield* appWithUser("oauth-resource")
      const other = yield* appWithUser("oauth-resource-other")
      const { clientId, code, pkce, resource } = yield* codeFor(app)
      const tokens = json(yield* exchange(code, clientId, pkce.verifier, resource))
      expect((yield* listTools(`/mcp/apps/${app.appId}`, tokens.access_token)).status).toBe(200)
      for (const path of [`/mcp/apps/${other.appId}`, "/mcp"]) {
        const reply = yield* listTools(path, tokens.access_token)
        expect(reply.status, path).toBe(401)
        expect(reply.headers["www-authenticate"], path).toContain("error=\"invalid_token\"")
      }
      // A user token is no credential at an app's MCP URL.
      expect((yield* listTools(`/mcp/apps/${app.appId}`, app.token)).status).toBe(401)
    }))

  it.scoped("MCP tokens are refused by every REST route; an API-issued token reads only its scopes at /mcp", () =>
    Effect.gen(function*() {
      const app = yield* appWithUser("oauth-rest")
      const issued = yield* send("POST", `/api/v1/users/${app.userId}/mcp-tokens`, {
        bearer: app.apiKey,
        json: { scopes: ["sleep"], expiresInSeconds: 3600 }
      })
      expect(issued.status, preview(issued)).toBe(201)
      const { scopes, token } = json(issued)
      expect(token).toMatch(/^pb_mt_/)
      expect(scopes).toEqual(["sleep"])
      for (
        const path of [
          `/api/v1/users/${app.userId}`,
          `/api/v1/users/${app.userId}/connections`,
          "/api/v1/scores/daily?from=2026-01-01&to=2026-01-02",
          "/portal/api/apps"
        ]
      ) {
        const refused = expectError(yield* send("GET", path, { bearer: token }), 401)
        expect(refused.message, path).toContain("only for the MCP server")
      }
      const listed = json(yield* listTools("/mcp", token))
      expect(listed.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(
        ["get_coverage", "get_profile", "get_sleep", "list_connections"]
      )
      const call = json(
        yield* send("POST", "/mcp", {
          bearer: token,
          headers: mcpHeaders,
          json: rpc("tools/call", { name: "get_glucose_summary", arguments: { from: "2026-01-01", to: "2026-01-02" } })
        })
      )
      expect(call.result.isError).toBe(true)
      expect(call.result.content[0].text).toContain("scopes")
      // Refused scopes and lifetimes; another app's user.
      expectError(
        yield* send("POST", `/api/v1/users/${app.userId}/mcp-tokens`, {
          bearer: app.apiKey,
          json: { scopes: ["write"] }
        }),
        400
      )
      expectError(
        yield* send("POST", `/api/v1/users/${app.userId}/mcp-tokens`, {
          bearer: app.apiKey,
          json: { expiresInSeconds: 10 * 365 * 86400 }
        }),
        400
      )
      const other = yield* createApp("oauth-rest-other")
      expectError(
        yield* send("POST", `/api/v1/users/${app.userId}/mcp-tokens`, { bearer: other.apiKey, json: {} }),
        404
      )
      // Revoked through its grant.
      const grants = json(yield* send("GET", `/api/v1/users/${app.userId}/mcp-grants`, { bearer: app.apiKey }))
      expect(grants.map((g: { kind: string }) => g.kind)).toEqual(["api"])
      expectError(
        yield* send("DELETE", `/api/v1/users/${app.userId}/mcp-grants/${grants[0].id}`, { bearer: other.apiKey }),
        404
      )
      expect(
        (yield* send("DELETE", `/api/v1/users/${app.userId}/mcp-grants/${grants[0].id}`, { bearer: app.apiKey })).status
      ).toBe(204)
      expect((yield* listTools("/mcp", token)).status).toBe(401)
    }))

  it.scoped("a replayed code is refused and revokes the tokens issued for it", () =>
    Effect.gen(function*() {
      const app = yield* appWithUser("oauth-replay")
      const { clientId, code, pkce, resource } = yield* codeFor(app)
      const first = yield* exchange(code, clientId, pkce.verifier, resource)
      expect(first.status, preview(first)).toBe(200)
      expect(first.headers["cache-control"]).toBe("no-store")
      const tokens = json(first)
      expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "activity scores" })
      const replay = yield* exchange(code, clientId, pkce.verifier, resource)
      expect(replay.status).toBe(400)
      expect(json(replay).error).toBe("invalid_grant")
      expect((yield* listTools(`/mcp/apps/${app.appId}`, tokens.access_token)).status).toBe(401)
    }))

  it.scoped("a wrong code verifier is refused", () =>
    Effect.gen(function*() {
      const app = yield* appWithUser("oauth-verifier")
      const { clientId, code, resource } = yield* codeFor(app)
      const reply = yield* exchange(code, clientId, pkcePair().verifier, resource)
      expect(reply.status).toBe(400)
      expect(json(reply)).toMatchObject({ error: "invalid_grant" })
      expect(json(reply).error_description).toContain("code_verifier")
    }))

  it.scoped("an unregistered redirect URI, an unknown client, plain PKCE and an unknown scope are refused; a denial goes back", () =>
    Effect.gen(function*() {
      const { port } = yield* TestServer
      const app = yield* appWithUser("oauth-redirect")
      const registered = json(
        yield* send("POST", "/oauth/register", {
          json: { client_name: "Client", redirect_uris: [redirectUri] }
        })
      )
      const base = {
        response_type: "code",
        client_id: registered.client_id,
        code_challenge: pkcePair().challenge,
        code_challenge_method: "S256",
        resource: appUrl(port, app.appId)
      }
      const authorize = (params: Record<string, string>) =>
        send("GET", `/oauth/authorize?${new URLSearchParams(params).toString()}`)
      const elsewhere = yield* authorize({ ...base, redirect_uri: "https://attacker.example/callback" })
      expect(elsewhere.status).toBe(400)
      expect(elsewhere.headers["location"]).toBeUndefined()
      expect(elsewhere.text).toContain("redirect URI is not one the client registered")
      const unknown = yield* authorize({ ...base, client_id: "pbc_unknown", redirect_uri: redirectUri })
      expect(unknown.status).toBe(400)
      expect(unknown.headers["location"]).toBeUndefined()
      // Later errors go back to the client, with state and iss.
      const plain = yield* authorize({
        ...base,
        redirect_uri: redirectUri,
        code_challenge_method: "plain",
        state: "s1"
      })
      expect(plain.status).toBe(302)
      const back = new URL(plain.headers["location"]!)
      expect(back.searchParams.get("error")).toBe("invalid_request")
      expect(back.searchParams.get("state")).toBe("s1")
      const scope = yield* authorize({ ...base, redirect_uri: redirectUri, scope: "sleep write" })
      expect(new URL(scope.headers["location"]!).searchParams.get("error")).toBe("invalid_scope")
      // Registration refuses a redirect URI that is neither https nor loopback http.
      const bad = yield* send("POST", "/oauth/register", { json: { redirect_uris: ["http://example.com/cb"] } })
      expect(bad.status).toBe(400)
      expect(json(bad).error).toBe("invalid_redirect_uri")
      // Denied on the consent page: back to the client with access_denied, state and iss, and no grant.
      const denied = yield* signInAndConsent(
        `https://localhost:${port}/oauth/authorize?${
          new URLSearchParams({ ...base, redirect_uri: redirectUri, state: "s2" }).toString()
        }`,
        app,
        "deny"
      )
      expect(denied.searchParams.get("error")).toBe("access_denied")
      expect(denied.searchParams.get("state")).toBe("s2")
      expect(denied.searchParams.get("code")).toBeNull()
      expect(json(yield* send("GET", `/api/v1/users/${app.userId}/mcp-grants`, { bearer: app.apiKey }))).toEqual([])
    }))

  it.scoped("an expired assertion, a used assertion and a used request are refused", () =>
    Effect.gen(function*() {
      const { port } = yield* TestServer
      const app = yield* appWithUser("oauth-expired")
      const sql = yield* SqlClient.SqlClient
      const registered = json(yield* send("POST", "/oauth/register", { json: { redirect_uris: [redirectUri] } }))
      const url = new URL(`https://localhost:${port}/oauth/authorize`)
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: registered.client_id,
        redirect_uri: redirectUri,
        code_challenge: pkcePair().challenge,
        code_challenge_method: "S256",
        resource: appUrl(port, app.appId)
      }).toString()
      const get = yield* browser
      const request = new URL((yield* get(url.toString())).headers.get("location")!).searchParams.get("pb_request")!
      const made = json(
        yield* send("POST", "/api/v1/mcp/sign-in-assertions", {
          bearer: app.apiKey,
          json: { request, userId: app.userId }
        })
      )
      // The request answered once cannot be answered again.
      expectError(
        yield* send("POST", "/api/v1/mcp/sign-in-assertions", {
          bearer: app.apiKey,
          json: { request, userId: app.userId }
        }),
        409
      )
      // Five minutes pass: the assertion's expiry moved into the past.
      const assertion = new URL(made.redirectUrl).searchParams.get("assertion")!
      yield* sql`
        update mcp_assertions set expires_at = now() - interval '1 second'
        where assertion_hash = ${crypto.createHash("sha256").update(assertion).digest("hex")}
      `
      const page = yield* get(made.redirectUrl)
      expect(page.status).toBe(400)
      expect(page.text).toContain("expired")
      // An altered request is refused.
      expectError(
        yield* send("POST", "/api/v1/mcp/sign-in-assertions", {
          bearer: app.apiKey,
          json: { request: request.replace(/.$/, (c) => (c === "A" ? "B" : "A")), userId: app.userId }
        }),
        400
      )
    }))

  it.scoped("another app's user cannot be asserted, and a grant of one user never reads another", () =>
    Effect.gen(function*() {
      const { port } = yield* TestServer
      const app = yield* appWithUser("oauth-tenancy")
      const other = yield* appWithUser("oauth-tenancy-other")
      const second = yield* Effect.flatMap(
        Users,
        (users) => users.create(app.app.id, new CreateUserPayload({ externalUserId: "oauth-tenancy-b" }))
      )
      const registered = json(yield* send("POST", "/oauth/register", { json: { redirect_uris: [redirectUri] } }))
      const pkce = pkcePair()
      const url = new URL(`https://localhost:${port}/oauth/authorize`)
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: registered.client_id,
        redirect_uri: redirectUri,
        code_challenge: pkce.challenge,
        code_challenge_method: "S256",
        resource: appUrl(port, app.appId)
      }).toString()
      const get = yield* browser
      const request = new URL((yield* get(url.toString())).headers.get("location")!).searchParams.get("pb_request")!
      // Another app's user, by this app's key: unknown. This app's request, by another app's key: refused.
      expectError(
        yield* send("POST", "/api/v1/mcp/sign-in-assertions", {
          bearer: app.apiKey,
          json: { request, userId: other.userId }
        }),
        404
      )
      expectError(
        yield* send("POST", "/api/v1/mcp/sign-in-assertions", {
          bearer: other.apiKey,
          json: { request, userId: other.userId }
        }),
        400
      )
      const made = json(
        yield* send("POST", "/api/v1/mcp/sign-in-assertions", {
          bearer: app.apiKey,
          json: { request, userId: app.userId }
        })
      )
      const back = yield* consent(made.redirectUrl)
      const tokens = json(
        yield* exchange(back.searchParams.get("code")!, registered.client_id, pkce.verifier, appUrl(port, app.appId))
      )
      const profile = json(
        yield* send("POST", `/mcp/apps/${app.appId}`, {
          bearer: tokens.access_token,
          headers: mcpHeaders,
          json: rpc("tools/call", { name: "get_profile", arguments: { userId: second.user.id } })
        })
      )
      expect(profile.result.isError).toBe(true)
      const own = json(
        yield* send("POST", `/mcp/apps/${app.appId}`, {
          bearer: tokens.access_token,
          headers: mcpHeaders,
          json: rpc("tools/call", { name: "get_profile", arguments: {} })
        })
      )
      expect(own.result.structuredContent.userId).toBe(app.userId)
      // Another app's key sees none of the user's grants.
      expectError(yield* send("GET", `/api/v1/users/${app.userId}/mcp-grants`, { bearer: other.apiKey }), 404)
    }))
})
