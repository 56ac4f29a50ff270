/**
 * What the erasure and export tests share: a user with data from every sandbox provider and the
 * journal, and a raw dump of every table of the database.
 */
import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import type { Provider } from "@pulsebridge/domain"
import { createUser, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"
import { makePng } from "../journal/fixtures/Images.js"
import { awaitProcessed, entriesPath, scan, scanForm } from "../journal/fixtures/Journal.js"

export const providers: ReadonlyArray<Provider> = ["Fitbit", "Garmin", "WHOOP", "Dexcom"]

/** Every table of the schema with each row as JSON text. */
export const dumpAll = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ tableName: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'
    order by table_name
  `
  const dump: Record<string, Array<string>> = {}
  for (const { tableName } of tables) {
    const rows = yield* sql.unsafe<{ j: string }>(`select row_to_json(t)::text as j from "${tableName}" t`)
    dump[tableName] = rows.map((row) => row.j)
  }
  return dump
})

/** The files under the server's blob directory. */
export const blobFiles = Effect.map(TestServer, ({ dataDir }) => {
  const root = path.join(dataDir, "blobs")
  if (!fs.existsSync(root)) return [] as Array<string>
  return (fs.readdirSync(root, { recursive: true }) as Array<string>)
    .filter((f) => fs.statSync(path.join(root, f)).isFile())
})

/**
 * A new app's user with metadata, connected to the four sandbox providers (each synced), a manual
 * journal entry and an analysed meal photo; returns what identifies the user anywhere.
 */
/**
 * MCP access of the user: a token the app issued, and an assistant's OAuth grant through the sandbox's default
 * sign-in (registration, authorization request, the app's assertion, consent, code, tokens). The grants' ids.
 */
const mcpAccess = (apiKey: string, userId: string, appId: string) =>
  Effect.gen(function*() {
    const issued = yield* send("POST", `/api/v1/users/${userId}/mcp-tokens`, { bearer: apiKey, json: {} })
    expect(issued.status, preview(issued)).toBe(201)
    const redirectUri = "http://127.0.0.1:9/callback"
    const client = json(yield* send("POST", "/oauth/register", { json: { redirect_uris: [redirectUri] } }))
    const verifier = crypto.randomBytes(32).toString("base64url")
    const { port } = yield* TestServer
    const query = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: crypto.createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      resource: `https://localhost:${port}/mcp/apps/${appId}`
    })
    const authorize = yield* send("GET", `/oauth/authorize?${query.toString()}`)
    const request = new URL(authorize.headers["location"]!).searchParams.get("pb_request")!
    const assertion = json(
      yield* send("POST", "/api/v1/mcp/sign-in-assertions", { bearer: apiKey, json: { request, userId } })
    )
    const consentUrl = new URL(assertion.redirectUrl)
    const page = yield* send("GET", `${consentUrl.pathname}${consentUrl.search}`)
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)![1]!
    const approved = yield* send("POST", "/oauth/consent", {
      body: new URLSearchParams({ assertion: field("assertion"), csrf: field("csrf"), decision: "approve" }).toString(),
      contentType: "application/x-www-form-urlencoded"
    })
    const code = new URL(approved.headers["location"]!).searchParams.get("code")!
    const tokens = yield* send("POST", "/oauth/token", {
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        client_id: client.client_id,
        code_verifier: verifier,
        redirect_uri: redirectUri
      }).toString(),
      contentType: "application/x-www-form-urlencoded"
    })
    expect(tokens.status, preview(tokens)).toBe(200)
    const grants = json(yield* send("GET", `/api/v1/users/${userId}/mcp-grants`, { bearer: apiKey }))
    expect(grants).toHaveLength(2)
    return grants.map((grant: { id: string }) => grant.id) as Array<string>
  })

export const userWithEverything = (label: string) =>
  Effect.gen(function*() {
    const externalUserId = `${label}-${simulatedUser("ext")}`
    const { apiKey, app, token, user } = yield* createUser(externalUserId)
    const metadataValue = `meta-${simulatedUser("value")}`
    const patched = yield* send("PATCH", `/api/v1/users/${user.id}`, {
      bearer: apiKey,
      json: { metadata: { plan: metadataValue } }
    })
    expect(patched.status, preview(patched)).toBe(200)
    const connections: Array<{ provider: Provider; connectionId: string }> = []
    for (const provider of providers) {
      const { connectionId } = yield* connect(user.id, token, provider, simulatedUser(provider.toLowerCase()))
      connections.push({ provider, connectionId })
    }
    for (const { connectionId } of connections) {
      yield* waitForSync(user.id, token, connectionId, { timeout: "120 seconds" })
    }
    const sql = yield* SqlClient.SqlClient
    const providerUserIds = (yield* sql<{ providerUserId: string }>`
      select provider_user_id from connections where user_id = ${user.id}
    `).map((row) => row.providerUserId)
    expect(providerUserIds).toHaveLength(4)
    const noteText = `note-${simulatedUser("journal")}`
    const manual = yield* send("POST", entriesPath(user.id), {
      bearer: token,
      json: { entryKind: "Meal", consumedAtUtc: "2026-01-05T12:30:00Z", notes: noteText, title: `title ${noteText}` }
    })
    expect(manual.status, preview(manual)).toBe(201)
    const photo = yield* scan(
      token,
      user.id,
      scanForm({ bytes: makePng(32, 24, 77), type: "image/png", name: "dinner.png" }, {
        entryKind: "Meal",
        consumedAtUtc: "2026-01-06T19:00:00Z",
        timezone: "UTC",
        notes: `photo ${noteText}`
      })
    )
    yield* awaitProcessed(photo.id)
    const mcpGrantIds = yield* mcpAccess(apiKey, user.id, app.id)
    return {
      apiKey,
      appId: app.id as string,
      mcpGrantIds,
      token,
      userId: user.id as string,
      externalUserId,
      metadataValue,
      noteText,
      connections,
      providerUserIds,
      entryIds: [json(manual).id as string, photo.id as string]
    }
  })
