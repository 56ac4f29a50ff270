/**
 * What the erasure and export tests share: a user with data from every sandbox provider and the
 * journal, and a raw dump of every table of the database.
 */
import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import type { Provider } from "@pulsebridge/domain"
import { createUser, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
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
    return {
      apiKey,
      appId: app.id as string,
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
