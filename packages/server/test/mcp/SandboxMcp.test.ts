/**
 * The MCP tools over real synced data in the sandbox: a user connects the simulated Fitbit, Garmin, WHOOP and
 * Dexcom and logs a meal; each tool, called through the SDK's client and followed page by page, answers what
 * the REST endpoint of the same data answers, and the glucose summary equals statistics computed here from
 * the raw readings the REST API serves.
 */
import { expect, layer } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Provider } from "@pulsebridge/domain"
import { McpMaxAnswerChars } from "@pulsebridge/domain"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { json, preview, send } from "../fixtures/Http.js"
import { callTool, mcpClient, validatedAgainst } from "../fixtures/Mcp.js"
import { waitForSync } from "../fixtures/Sync.js"

const DAY = 86_400_000
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Every page of a range tool, its list `key` concatenated; each page within the bound. */
const allPages = (client: Client, name: string, args: { from: string; to: string }, key: string) =>
  Effect.gen(function*() {
    const items: Array<any> = []
    let from: string | null = args.from
    let pages = 0
    while (from !== null) {
      const page: Record<string, any> = yield* callTool(client, name, { ...args, from })
      expect(JSON.stringify(page).length).toBeLessThanOrEqual(McpMaxAnswerChars)
      expect(page.partialDay).toBeNull()
      items.push(...page[key])
      from = page.continueFrom
      pages++
    }
    return { items, pages }
  })

const restGet = (path: string, token: string) =>
  Effect.gen(function*() {
    const reply = yield* send("GET", path, { bearer: token })
    expect(reply.status, preview(reply)).toBe(200)
    return json(reply)
  })

const round1 = (x: number) => Math.round(x * 10) / 10

layer(makeTestServer({ sandbox: true }), { timeout: "300 seconds", excludeTestServices: true })(
  "mcp in the sandbox",
  (it) => {
    it.scoped("each tool answers what the REST API answers for the same data", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser(`mcp-sandbox-${Date.now()}`)
        const providers: ReadonlyArray<Provider> = ["Fitbit", "Garmin", "WHOOP", "Dexcom"]
        const connections: Record<string, string> = {}
        for (const provider of providers) {
          connections[provider] =
            (yield* connect(user.id, token, provider, simulatedUser(`mcp-${provider}`))).connectionId
        }
        for (const provider of providers) yield* waitForSync(user.id, token, connections[provider]!)
        const to = dateOf(Date.now() - DAY)
        const from = dateOf(Date.now() - 30 * DAY)
        const lunch = dateOf(Date.now() - 3 * DAY)
        const meal = yield* send("POST", `/api/v1/users/${user.id}/journal-entries`, {
          bearer: token,
          json: { entryKind: "Meal", consumedAtUtc: `${lunch}T12:30:00Z`, timezone: "UTC", title: "Pasta lunch" }
        })
        expect(meal.status, preview(meal)).toBe(201)
        const client = yield* mcpClient(token)
        const { tools } = yield* Effect.promise(() => client.listTools())
        const query = `from=${from}&to=${to}`
        const base = `/api/v1/users/${user.id}`

        // A background sync may run between the two reads: its bookkeeping is left out of the comparison.
        const settled = ({ lastSyncedAt: _, syncProgress: __, syncState: ___, updatedAt: ____, ...rest }: any) => rest
        const listed = yield* callTool(client, "list_connections")
        expect(listed.connections.map(settled)).toEqual((yield* restGet(`${base}/connections`, token)).map(settled))
        expect(listed.connections.map((c: any) => c.provider).sort()).toEqual([...providers].sort())

        const activity = yield* allPages(client, "get_daily_activity", { from, to }, "days")
        expect(activity.items).toEqual(yield* restGet(`${base}/connections/activity?${query}`, token))
        expect(new Set(activity.items.map((d: any) => d.provider))).toEqual(new Set(["Fitbit", "Garmin"]))

        const load = yield* allPages(client, "get_daily_load", { from, to }, "days")
        expect(load.items).toEqual(yield* restGet(`${base}/connections/activity-load?${query}`, token))
        expect(load.items.length).toBeGreaterThan(20)

        // Sleep, workouts, recovery and body: the REST answers, item for item.
        for (
          const [tool, route, key] of [
            ["get_sleep", "sleep", "sleep"],
            ["get_workouts", "workouts", "workouts"],
            ["get_recovery", "recovery", "days"],
            ["get_body", "body", "measurements"]
          ] as const
        ) {
          const answer = yield* allPages(client, tool, { from, to }, key)
          expect(answer.items, tool).toEqual(yield* restGet(`${base}/connections/${route}?${query}`, token))
          expect(answer.items.length, tool).toBeGreaterThan(0)
        }

        const journalRange = { from: lunch, to: lunch }
        const entries = yield* callTool(client, "list_journal_entries", journalRange)
        expect(entries.entries).toEqual(yield* restGet(`${base}/journal-entries?date=${lunch}`, token))

        const responses = yield* callTool(client, "get_meal_responses", journalRange)
        expect(responses.responses).toEqual(
          yield* restGet(`${base}/insights/meal-responses?from=${lunch}&to=${lunch}`, token)
        )
        expect(responses.responses).toHaveLength(1)
        // Settled three days ago: computed, or insufficient where the simulated sensor had a gap then.
        expect(["Complete", "Insufficient"]).toContain(responses.responses[0].glucoseResponse.status)
        const { groupsLeftOut, ...compared } = yield* callTool(client, "compare_meals", journalRange)
        expect(groupsLeftOut).toBe(0)
        expect(compared).toEqual(
          yield* restGet(`${base}/meal-comparisons?from=${lunch}&to=${lunch}`, token)
        )
        expect(compared.entries).toBe(1)

        // Oldest first here; the REST API answers most recent first.
        const daily = yield* allPages(client, "get_daily_scores", { from, to }, "days")
        expect(daily.items).toEqual((yield* restGet(`/api/v1/scores/daily?${query}`, token)).reverse())
        expect(daily.items.some((d: any) => d.overallScore !== null)).toBe(true)
        expect(daily.items[0].components.sleep.factors.length).toBeGreaterThan(0)
        const weekly = yield* allPages(client, "get_weekly_scores", { from, to }, "weeks")
        expect(weekly.items).toEqual((yield* restGet(`/api/v1/scores/weekly?${query}`, token)).reverse())

        // A month of coverage is over one answer's bound: the pages together are the REST answer's days.
        const coverage = yield* allPages(client, "get_coverage", { from, to: dateOf(Date.now() - 2 * DAY) }, "days")
        const restCoverage = yield* restGet(`${base}/coverage?from=${from}&to=${dateOf(Date.now() - 2 * DAY)}`, token)
        expect(coverage.items).toEqual(restCoverage.days)
        expect(coverage.pages).toBeGreaterThan(1)

        // The glucose summary against statistics of the raw readings (mg/dL; Low and High at the bounds 40 and 400).
        const glucose = yield* callTool(client, "get_glucose_summary", { from, to })
        const raw = (yield* restGet(`${base}/connections/glucose?${query}`, token)).readings as Array<any>
        const values = new Map<string, Array<number>>()
        for (const r of raw) {
          if (r.value === null) continue
          const list = values.get(r.date) ?? []
          list.push(Math.min(400, Math.max(40, r.value)))
          values.set(r.date, list)
        }
        expect(glucose.days.map((d: any) => d.date)).toEqual([...values.keys()].sort())
        const statsOf = (list: ReadonlyArray<number>, days: number) => {
          const mean = list.reduce((a, b) => a + b, 0) / list.length
          const sd = Math.sqrt(list.reduce((a, b) => a + (b - mean) ** 2, 0) / list.length)
          const share = (p: (v: number) => boolean) => round1((list.filter(p).length / list.length) * 100)
          return {
            readings: list.length,
            coveragePercent: Math.min(100, round1((list.length / (288 * days)) * 100)),
            meanMgDl: round1(mean),
            sdMgDl: round1(sd),
            cvPercent: round1((sd / mean) * 100),
            minMgDl: Math.min(...list),
            maxMgDl: Math.max(...list),
            gmiPercent: round1(3.31 + 0.02392 * mean),
            timeInRanges: {
              veryLow: share((v) => v < 54),
              low: share((v) => v >= 54 && v < 70),
              inRange: share((v) => v >= 70 && v <= 180),
              high: share((v) => v > 180 && v <= 250),
              veryHigh: share((v) => v > 250)
            }
          }
        }
        for (const day of glucose.days) {
          expect(day, day.date).toMatchObject({ provider: "Dexcom", connectionId: connections["Dexcom"] })
          expect(day.stats, day.date).toEqual(statsOf(values.get(day.date)!, 1))
        }
        const all = [...values.values()].flat()
        expect(glucose.connections).toEqual([{
          connectionId: connections["Dexcom"],
          provider: "Dexcom",
          days: values.size,
          stats: statsOf(all, 30) // from and to inclusive: 30 days
        }])
        expect(glucose.connections[0].stats.timeInRanges.inRange).toBeGreaterThan(50)
        // A summary, not the readings: a month of five-minute readings in a few kilobytes.
        expect(JSON.stringify(glucose).length).toBeLessThan(JSON.stringify(raw).length / 20)

        // Every tool's structured answers over real data went through the SDK's validator against its output schema.
        for (const tool of tools) {
          if (tool.name === "get_profile") continue
          expect(validatedAgainst(client, tool.outputSchema), tool.name).toBeGreaterThan(0)
        }
      }), { timeout: 180_000 }) // most of it is four providers' backfills, slow on a loaded machine
  }
)
