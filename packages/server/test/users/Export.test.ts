/**
 * The export through HTTP (`GET /api/v1/users/{id}/export`): NDJSON, one `{type, data}` line per
 * record, whose counts equal what the read endpoints answer; `includeRaw=true` adds the provider's
 * JSON; no token or secret is in it; another app's key finds nothing and `users:read` is needed.
 */
import { expect, layer } from "@effect/vitest"
import { createApp, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { Apps } from "../../src/apps/Apps.js"
import { addDays } from "../../src/platform/Calendar.js"
import { expectError, json, preview, send, unknownId } from "../fixtures/Http.js"
import { userWithEverything } from "./fixtures.js"

interface Line {
  readonly type: string
  readonly data: Record<string, any>
}

/** The reply as NDJSON lines, each parsed on its own. */
const linesOf = (text: string): Array<Line> => {
  expect(text.endsWith("\n"), "the last line ends with a newline").toBe(true)
  return text.slice(0, -1).split("\n").map((line) => {
    const parsed = JSON.parse(line)
    expect(Object.keys(parsed).sort()).toEqual(["data", "type"])
    return parsed as Line
  })
}

const ofType = (lines: ReadonlyArray<Line>, type: string) => lines.filter((line) => line.type === type)

layer(makeTestServer({ sandbox: true, analyzer: "sandbox", syncCron: "0 0 1 1 *" }), {
  timeout: "300 seconds",
  excludeTestServices: true
})("export", (it) => {
  it.effect(
    "the export holds the user, its connections, every record, its journal and its daily scores, as the reads do",
    () =>
      Effect.gen(function*() {
        const u = yield* userWithEverything("export")
        const path = `/api/v1/users/${u.userId}/export`
        const reply = yield* send("GET", path, { bearer: u.apiKey })
        expect(reply.status, preview(reply)).toBe(200)
        expect(reply.headers["content-type"]).toMatch(/^application\/x-ndjson/)
        const lines = linesOf(reply.text)

        expect(lines[0]!.type).toBe("user")
        expect(lines[0]!.data).toMatchObject({
          id: u.userId,
          externalUserId: u.externalUserId,
          metadata: { plan: u.metadataValue }
        })
        const connections = ofType(lines, "connection")
        expect(connections.map((c) => c.data.id).sort()).toEqual(u.connections.map((c) => c.connectionId).sort())
        expect(connections.map((c) => c.data.providerUserId).sort()).toEqual([...u.providerUserIds].sort())

        // No credential of any kind, and no sealed column.
        for (const secret of [u.token, u.apiKey, "sealed", "accessToken", "refreshToken", "tokenSecret", "token_"]) {
          expect(reply.text).not.toContain(secret)
        }

        // Counts equal the reads of endpoints 10 and 14 over the whole span of the records.
        const dates = lines.filter((l) => typeof l.data.date === "string" && l.type !== "dailyScore").map((l) =>
          l.data.date as string
        ).sort()
        const from = dates[0]!
        const to = dates[dates.length - 1]!
        expect(to <= addDays(from, 365)).toBe(true)
        const range = `from=${from}&to=${to}`
        const activity = yield* send("GET", `/api/v1/users/${u.userId}/connections/activity?${range}`, {
          bearer: u.token
        })
        expect(activity.status, preview(activity)).toBe(200)
        expect(ofType(lines, "dailyActivity").length).toBe(json(activity).length)
        expect(ofType(lines, "dailyActivity").length).toBeGreaterThan(0)
        const glucose = yield* send("GET", `/api/v1/users/${u.userId}/connections/glucose?${range}`, {
          bearer: u.token
        })
        const glucoseBody = json(glucose)
        expect(ofType(lines, "glucoseReading").length).toBe(glucoseBody.readings.length)
        expect(ofType(lines, "glucoseReading").length).toBeGreaterThan(1000)
        expect(ofType(lines, "glucoseCalibration").length).toBe(glucoseBody.calibrations.length)
        // The export keeps events the provider marked deleted, which endpoint 14 leaves out.
        expect(ofType(lines, "glucoseEvent").length).toBeGreaterThanOrEqual(glucoseBody.events.length)
        // Same values as the read, reading by reading.
        const byRecord = new Map(ofType(lines, "glucoseReading").map((l) => [l.data.recordId, l.data]))
        for (const reading of glucoseBody.readings.slice(0, 50)) {
          expect(byRecord.get(reading.recordId)).toMatchObject({ ...reading })
        }
        const load = ofType(lines, "dailyLoad")
        expect(load.length).toBeGreaterThan(0)
        expect(ofType(lines, "sleepSession").length).toBeGreaterThan(0)

        const entries = ofType(lines, "journalEntry")
        expect(entries.map((e) => e.data.id).sort()).toEqual([...u.entryIds].sort())
        for (const entry of entries) {
          const read = yield* send("GET", `/api/v1/users/${u.userId}/journal-entries/${entry.data.id}`, {
            bearer: u.token
          })
          expect(entry.data).toEqual(json(read))
        }
        expect(entries.some((e) => e.data.image !== null && e.data.items.length > 0)).toBe(true)

        const scoreDates = ofType(lines, "dailyScore").map((l) => l.data.date as string)
        const scoresRead = yield* send("GET", `/api/v1/scores/daily?${range}`, { bearer: u.token })
        expect(scoresRead.status, preview(scoresRead)).toBe(200)
        expect(scoreDates).toEqual((json(scoresRead) as Array<any>).map((s) => s.date).reverse())
        expect(scoreDates.length).toBeGreaterThan(0)
        expect(ofType(lines, "dailyScore")[0]!.data).toEqual(
          (json(scoresRead) as Array<any>).find((s) => s.date === scoreDates[0])
        )

        // Without includeRaw no record carries raw JSON; with it every canonical record does.
        const recordTypes = ["dailyActivity", "dailyLoad", "sleepSession", "glucoseReading"]
        for (const type of recordTypes) {
          for (const line of ofType(lines, type)) expect(line.data).not.toHaveProperty("raw")
        }
        const withRaw = yield* send("GET", `${path}?includeRaw=true`, { bearer: u.apiKey })
        expect(withRaw.status, preview(withRaw)).toBe(200)
        const rawLines = linesOf(withRaw.text)
        expect(rawLines.length).toBe(lines.length)
        for (const type of recordTypes) {
          for (const line of ofType(rawLines, type)) {
            expect(typeof line.data.raw === "object" && line.data.raw !== null, `${type} raw`).toBe(true)
          }
        }
        expect(ofType(rawLines, "user")[0]!.data).not.toHaveProperty("raw")
        expectError(yield* send("GET", `${path}?includeRaw=yes`, { bearer: u.apiKey }), 400)

        // Another app's key finds nothing; users:read is needed; a user token is not an API key.
        const other = yield* createApp("other app")
        expectError(yield* send("GET", path, { bearer: other.apiKey }), 404, "NotFound")
        const writeOnly = yield* Effect.flatMap(Apps, (apps) => apps.createApiKey(u.appId, ["users:write"]))
        expectError(yield* send("GET", path, { bearer: writeOnly.apiKey }), 403, "Forbidden")
        expectError(yield* send("GET", path, { bearer: u.token }), 401)
        expectError(yield* send("GET", path), 401)
        expectError(yield* send("GET", `/api/v1/users/${unknownId()}/export`, { bearer: u.apiKey }), 404)

        // An Inactive (soft-deleted) user still exports.
        const deleted = yield* send("DELETE", `/api/v1/users/${u.userId}`, { bearer: u.apiKey })
        expect(deleted.status).toBe(204)
        const afterDelete = linesOf((yield* send("GET", path, { bearer: u.apiKey })).text)
        expect(afterDelete[0]!.data.status).toBe("Inactive")
        expect(afterDelete.length).toBe(lines.length)
      }),
    280_000
  )
})
