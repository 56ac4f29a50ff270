/**
 * Data coverage through HTTP in the sandbox: a user connects the simulated Fitbit, Garmin, WHOOP and Dexcom;
 * a settled day is complete for every data type with each provider named, a day whose records are deleted is
 * missing (and so are its scores, for no data), today is still running, and the oldest backfilled days have
 * no recovery score while the baselines calibrate. Also the range validation, the credential rules and the
 * typed client.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { Provider } from "@pulsebridge/domain"
import { apiClient, createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import {
  expectError,
  expectOwnTokenOnly,
  expectUserRangeReadDocumented,
  json,
  preview,
  send
} from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"

const DAY = 86_400_000
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const coveragePath = (userId: string, query: string) => `/api/v1/users/${userId}/coverage?${query}`

const recordTables = ["daily_activity", "daily_load", "sleep_sessions", "recoveries", "workouts", "glucose_readings"]

// The user's time zone is UTC (the default), so its today is the UTC date. No periodic sync: the test deletes
// a day's records and must not see them read again.
layer(makeTestServer({ sandbox: true, syncCron: "0 0 1 1 *" }), { timeout: "300 seconds", excludeTestServices: true })(
  "sandbox coverage",
  (it) => {
    it.effect("every provider connected: complete days name their provider, a deleted day is missing, today runs", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`coverage-sandbox-${Date.now()}`)
        const providers: ReadonlyArray<Provider> = ["Fitbit", "Garmin", "WHOOP", "Dexcom"]
        const connections: Record<string, string> = {}
        for (const provider of providers) {
          const { connectionId } = yield* connect(user.id, token, provider, simulatedUser(`coverage-${provider}`))
          connections[provider] = connectionId
        }
        for (const provider of providers) yield* waitForSync(user.id, token, connections[provider]!)

        const now = Date.now()
        const today = dateOf(now)
        const settled = dateOf(now - 3 * DAY)
        const missing = dateOf(now - 4 * DAY)
        const oldest = dateOf(now - 29 * DAY)
        if (today !== dateOf(Date.now())) return // midnight passed while syncing: the dates above are stale

        const entry = yield* send("POST", `/api/v1/users/${user.id}/journal-entries`, {
          bearer: token,
          json: { entryKind: "Meal", consumedAtUtc: `${settled}T12:30:00Z`, timezone: "UTC", title: "Lunch" }
        })
        expect(entry.status, preview(entry)).toBe(201)
        const sql = yield* SqlClient.SqlClient
        for (const table of recordTables) {
          yield* sql`delete from ${sql(table)} where user_id = ${user.id} and date = ${missing}`
        }

        const reply = yield* send("GET", coveragePath(user.id, `from=${oldest}&to=${today}`), { bearer: token })
        expect(reply.status, preview(reply)).toBe(200)
        const body = json(reply)
        expect(body).toMatchObject({ from: oldest, to: today, timezone: "UTC", today })
        expect(body.days.map((d: any) => d.date)).toHaveLength(30)
        const day = (date: string) => body.days.find((d: any) => d.date === date)

        // A settled day: every type complete, from the provider that supplies it. About one WHOOP cycle in 30 is
        // one WHOOP cannot score (too little data that day, `UNSCORABLE`, no strain): the simulated account is new
        // each run, and for such a day the load is held but incomplete.
        const full = day(settled).data
        // The stored cycles of the day as WHOOP sent them (the load reads serve scored cycles only).
        const cycles = yield* sql<{ readonly rawJson: string }>`
          select raw_json from daily_load where connection_id = ${connections["WHOOP"]!} and date = ${settled}
        `
        expect(cycles.length).toBeGreaterThan(0)
        const unscorable = cycles.every((cycle) => JSON.parse(cycle.rawJson).score_state !== "SCORED")
        if (unscorable) {
          expect(full.dailyLoad).toMatchObject({ status: "partial", reason: "incomplete", provider: "WHOOP" })
        }
        const expected: Record<string, Provider | null> = {
          dailyActivity: "Garmin", // both wearables have it; the scores prefer Garmin's steps
          ...(unscorable ? {} : { dailyLoad: "WHOOP" }),
          sleep: "WHOOP",
          recovery: "WHOOP",
          glucose: "Dexcom",
          journal: null
        }
        for (const [dataType, provider] of Object.entries(expected)) {
          expect(full[dataType], `${dataType}: ${JSON.stringify(full[dataType])}`).toMatchObject({
            status: "complete",
            reason: null,
            provider,
            connectionId: provider === null ? null : connections[provider]
          })
        }
        expect(full.dailyActivity.sources).toEqual([
          expect.objectContaining({ provider: "Fitbit", connectionId: connections["Fitbit"], status: "complete" }),
          expect.objectContaining({ provider: "Garmin", connectionId: connections["Garmin"], status: "complete" })
        ])
        expect(full.dailyActivity.sources[1].dayFraction).toBeGreaterThanOrEqual(0.95)
        expect(full.glucose.sources).toEqual([
          expect.objectContaining({ provider: "Dexcom", status: "complete", dayFraction: expect.any(Number) })
        ])
        expect(full.glucose.sources[0].dayFraction).toBeGreaterThanOrEqual(0.9)
        expect(full.journal.sources).toEqual([])
        expect(day(settled).scores.sleep).toMatchObject({ score: expect.any(Number), nullReason: null, factors: [] })

        // The day whose records are gone: missing for each type, though its suppliers are connected.
        const gone = day(missing)
        for (const dataType of ["dailyActivity", "dailyLoad", "sleep", "recovery", "glucose", "journal"]) {
          expect(gone.data[dataType], dataType).toMatchObject({ status: "missing", reason: "noData" })
        }
        expect(gone.data.glucose).toMatchObject({ provider: "Dexcom", connectionId: connections["Dexcom"] })
        expect(gone.data.dailyActivity.sources.map((s: any) => s.status)).toEqual(["missing", "missing"])
        expect(gone.scores).toEqual({
          sleep: { score: null, nullReason: "noData", factors: [] },
          recovery: { score: null, nullReason: "noData", factors: [] },
          activity: { score: null, nullReason: "noData", factors: [] },
          overall: { score: null, nullReason: "noData", factors: [] }
        })

        // Today: whatever has come is partial, the rest is pending; the journal has nothing yet.
        const running = day(today).data
        for (const dataType of ["dailyActivity", "glucose"]) {
          // Glucose and Garmin days are the device's own: a simulated account whose clock is hours ahead of UTC
          // may have ended the date already (at 15:00 UTC it is past midnight at UTC+9), and what it sent covers
          // the day. Complete then, but only from a source that says it covers the day.
          if (running[dataType].status === "complete") {
            const best = running[dataType].sources.find((s: any) => s.connectionId === running[dataType].connectionId)
            expect(best.dayFraction, `${dataType}: ${JSON.stringify(running[dataType])}`).toBeGreaterThanOrEqual(0.9)
            continue
          }
          expect(["partial", "pending"], `${dataType}: ${JSON.stringify(running[dataType])}`).toContain(
            running[dataType].status
          )
          expect(running[dataType].reason).toBe("dayInProgress")
        }
        expect(running.journal).toMatchObject({ status: "pending", reason: "dayInProgress", provider: null })

        // The first backfilled day: WHOOP's HRV, resting heart rate, respiratory rate and skin temperature wait
        // for 14 nights of baseline, so recovery is null for calibrating; with one pillar fewer, overall too.
        const first = day(oldest).scores
        expect(first.recovery).toMatchObject({ score: null, nullReason: "calibrating" })
        expect(first.recovery.factors).toEqual(
          expect.arrayContaining(["hrv", "restingHeartRate", "respiratoryRate", "skinTemperature"])
        )
        if (first.overall.score === null) expect(first.overall.nullReason).toBe("fewerThanTwoPillars")
        // Only a null score has a reason.
        for (const d of body.days) {
          for (const s of Object.values(d.scores) as Array<any>) {
            expect(s.nullReason === null, JSON.stringify(s)).toBe(s.score !== null)
          }
        }

        // The typed client decodes the same answer.
        const client = yield* apiClient(token)
        const typed = yield* client.coverage.coverage({
          path: { userId: user.id },
          urlParams: { from: settled, to: settled }
        })
        expect(typed.days[0]!.data.glucose.provider).toBe("Dexcom")
        expect(typed.days[0]!.data.dailyLoad.status).toBe(unscorable ? "partial" : "complete")
      }))

    it.effect("a user without connections: every provider type missing for notConnected, the journal is the app's", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`coverage-none-${Date.now()}`)
        const yesterday = dateOf(Date.now() - DAY)
        const reply = yield* send("GET", coveragePath(user.id, `from=${yesterday}&to=${yesterday}`), { bearer: token })
        expect(reply.status, preview(reply)).toBe(200)
        const [day] = json(reply).days
        for (const dataType of ["dailyActivity", "dailyLoad", "sleep", "recovery", "glucose"]) {
          expect(day.data[dataType]).toEqual({
            status: "missing",
            reason: "notConnected",
            provider: null,
            connectionId: null,
            sources: []
          })
        }
        expect(day.data.journal).toMatchObject({ status: "missing", reason: "noData" })
        expect(day.scores.overall).toEqual({ score: null, nullReason: "noData", factors: [] })
      }))

    it.effect("the range is validated: 400 JSON for bad dates, from after to, over 92 days, after the user's today", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`coverage-validation-${Date.now()}`)
        const today = dateOf(Date.now())
        const tomorrow = dateOf(Date.now() + DAY)
        for (
          const query of [
            "from=2026-03-02&to=2026-03-01",
            "from=2026-01-01&to=2026-04-03",
            "from=2026-02-30&to=2026-03-01",
            "from=yesterday&to=2026-03-01",
            "from=2026-03-01",
            ""
          ]
        ) {
          const reply = yield* send("GET", coveragePath(user.id, query), { bearer: token })
          expect(reply.status, `${query}: ${preview(reply)}`).toBe(400)
          expect(typeof json(reply)._tag).toBe("string")
        }
        const late = expectError(
          yield* send("GET", coveragePath(user.id, `from=${today}&to=${tomorrow}`), { bearer: token }),
          400,
          "BadRequest"
        )
        // near midnight the user's today may have moved on while the request was on its way
        if (dateOf(Date.now()) === today) expect(late.message).toContain(today)
        // 92 days inclusive is the longest range
        const longest = yield* send("GET", coveragePath(user.id, "from=2026-01-01&to=2026-04-02"), { bearer: token })
        expect(longest.status, preview(longest)).toBe(200)
        expect(json(longest).days).toHaveLength(92)
        expectError(
          yield* send("GET", `/api/v1/users/not-a-uuid/coverage?from=2026-01-01&to=2026-01-02`, { bearer: token }),
          400
        )
      }))

    it.effect("coverage needs the user's own token: 401 without one, with a bad one or an API key, 403 for another user", () =>
      Effect.gen(function*() {
        const { apiKey, token, user } = yield* createUser(`coverage-credentials-${Date.now()}`)
        const other = yield* createUser(`coverage-credentials-other-${Date.now()}`)
        yield* expectOwnTokenOnly(
          { apiKey, token, userId: user.id, otherId: other.user.id },
          (userId) => coveragePath(userId, "from=2026-01-01&to=2026-01-31")
        )
      }))

    it.effect("the OpenAPI document carries the read and its schemas", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/openapi.json")
        expect(reply.status).toBe(200)
        const doc = json(reply)
        expectUserRangeReadDocumented(doc, "/api/v1/users/{userId}/coverage")
        expect(Object.keys(doc.components.schemas)).toEqual(
          expect.arrayContaining([
            "Coverage",
            "CoverageDay",
            "DataTypeCoverage",
            "CoverageSource",
            "CoverageStatus",
            "CoverageReason",
            "ScoreCoverage",
            "ScoreNullReason"
          ])
        )
      }))
  }
)
