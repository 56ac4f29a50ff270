/**
 * The MCP server at `/mcp`, exercised by the official SDK's client: the tool listing, the credential rules
 * and the protocol's refusals over HTTP, arguments refused as tool errors, one user never reading another's
 * data, the size bound of an answer followed page by page (`continueFrom`, `partialDay`), and generated
 * hostile messages and arguments (seeded, as the fuzz test): never a 5xx, always JSON-RPC, nothing changed.
 */
import { expect, layer } from "@effect/vitest"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import { McpMaxAnswerChars } from "@pulsebridge/domain"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { badDates, changedTables, digest, fuzzRuns, samples } from "../fixtures/Fuzz.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { callTool, callToolText, mcpClient, toolError, validatedAgainst } from "../fixtures/Mcp.js"
import { toolNames } from "../fixtures/McpTools.js"

const rpc = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: 1, method, params })
const mcpHeaders = { accept: "application/json, text/event-stream" }

const DAY = 86_400_000
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

layer(makeTestServer(), { timeout: "120 seconds", excludeTestServices: true })("mcp server", (it) => {
  it.scoped("lists its read-only, idempotent tools with a title, a format argument and JSON Schemas", () =>
    Effect.gen(function*() {
      const { token } = yield* createUser("mcp-list")
      const client = yield* mcpClient(token)
      expect(client.getServerVersion()).toMatchObject({ name: "pulsebridge" })
      expect(client.getServerCapabilities()?.tools).toBeDefined()
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name)).toEqual(toolNames)
      const ajv = new AjvJsonSchemaValidator()
      for (const tool of tools) {
        expect(tool.description!.length, tool.name).toBeGreaterThan(40)
        expect(tool.description, tool.name).toContain("format: \"json\"")
        expect(tool.inputSchema.type).toBe("object")
        expect(tool.inputSchema.properties?.["format"], tool.name).toMatchObject({
          type: "string",
          enum: ["compact", "json"]
        })
        expect(tool.outputSchema?.type).toBe("object")
        // An output schema that holds anything would validate nothing.
        expect(ajv.getValidator(tool.outputSchema as any)({}).valid, tool.name).toBe(false)
        expect(tool.title, tool.name).toBeDefined()
        expect(tool.annotations, tool.name).toEqual({
          title: tool.title,
          readOnlyHint: true,
          idempotentHint: true,
          destructiveHint: false,
          openWorldHint: false
        })
      }
      const activity = tools.find((t) => t.name === "get_daily_activity")!
      expect(activity.inputSchema).toMatchObject({
        required: ["from", "to"],
        properties: { from: { type: "string", format: "date" }, to: { type: "string", format: "date" } }
      })
    }))

  it.scoped("every tool answers a user without data, within the answer's schema", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("mcp-empty")
      const client = yield* mcpClient(token)
      // The SDK's client checks each structured answer against the tool's output schema.
      const { tools } = yield* Effect.promise(() => client.listTools())
      const profile = yield* callTool(client, "get_profile")
      const today = dateOf(Date.now())
      expect(profile).toEqual({ userId: user.id, timezone: "UTC", today: profile.today })
      expect([today, dateOf(Date.now() - DAY)]).toContain(profile.today)
      const range = { from: dateOf(Date.now() - 6 * DAY), to: profile.today }
      expect(yield* callTool(client, "list_connections")).toEqual({ connections: [] })
      const bound = { ...range, continueFrom: null, partialDay: null }
      expect(yield* callTool(client, "get_daily_activity", range)).toEqual({ ...bound, days: [] })
      expect(yield* callTool(client, "get_daily_load", range)).toEqual({ ...bound, days: [] })
      expect(yield* callTool(client, "get_sleep", range)).toEqual({ ...bound, sleep: [] })
      expect(yield* callTool(client, "get_workouts", range)).toEqual({ ...bound, workouts: [] })
      expect(yield* callTool(client, "get_recovery", range)).toEqual({ ...bound, days: [] })
      expect(yield* callTool(client, "get_body", range)).toEqual({ ...bound, measurements: [] })
      expect(yield* callTool(client, "get_glucose_summary", range)).toEqual({
        ...bound,
        unit: "mg/dL",
        targetRange: { lowMgDl: 70, highMgDl: 180 },
        connections: [],
        days: []
      })
      expect(yield* callTool(client, "list_journal_entries", range)).toEqual({ ...bound, entries: [] })
      expect(yield* callTool(client, "get_meal_responses", range)).toEqual({ ...bound, responses: [] })
      expect(yield* callTool(client, "compare_meals", range)).toMatchObject({
        ...range,
        entries: 0,
        groups: [],
        groupsLeftOut: 0
      })
      // Scores are answered for the days and weeks with data, as the REST API does.
      expect(yield* callTool(client, "get_daily_scores", range)).toEqual({ ...bound, days: [] })
      expect(yield* callTool(client, "get_weekly_scores", range)).toEqual({ ...bound, weeks: [] })
      const coverage = yield* callTool(client, "get_coverage", range)
      expect(coverage).toMatchObject({ ...bound, timezone: "UTC" })
      expect(coverage.days).toHaveLength(7)
      expect(coverage.days[0].data.glucose).toMatchObject({ status: "missing", reason: "notConnected" })
      // Each tool's structured answer went through the SDK's validator against its output schema.
      for (const tool of tools) {
        expect(validatedAgainst(client, tool.outputSchema), tool.name).toBeGreaterThan(0)
      }
    }))

  it.scoped("answers compact text by default, the JSON as text on format json, and refuses another format", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("mcp-format")
      const date = dateOf(Date.now() - 2 * DAY)
      const created = yield* send("POST", `/api/v1/users/${user.id}/journal-entries`, {
        bearer: token,
        json: {
          entryKind: "Coffee",
          consumedAtUtc: `${date}T07:15:00Z`,
          timezone: "UTC",
          title: "Flat white, oat",
          nutrients: { caloriesKcal: 110.4, caffeineMg: 130 }
        }
      })
      expect(created.status, preview(created)).toBe(201)
      const client = yield* mcpClient(token)
      const range = { from: date, to: date }
      const compact = yield* callToolText(client, "list_journal_entries", range)
      const full = yield* callToolText(client, "list_journal_entries", { ...range, format: "json" })
      expect(compact.json).toEqual(full.json)
      expect(full.text).toBe(JSON.stringify(full.json))
      expect(full.json.entries[0].nutrients).toMatchObject({ caloriesKcal: 110.4, caffeineMg: 130 })
      expect(compact.text).toBe([
        `Nutrition journal, ${date} (1 day): 1 entry on 1 day (Coffee 1).`,
        `Per day: ${date} 110 kcal, 130 mg caffeine (sums of the entries whose nutrients are known).`,
        "Time is the entry's local clock; notes cut to 100 characters (format json for all).",
        "date,time,kind,title,kcal,caffeine mg,items,photo,analysis",
        `${date},07:15,Coffee,"Flat white, oat",110,130,0,no,None`
      ].join("\n"))
      const profile = yield* callToolText(client, "get_profile", { format: "compact" })
      expect(profile.text).toMatch(
        new RegExp(`^User ${user.id}; time zone UTC; today is \\d{4}-\\d{2}-\\d{2} \\(\\w+day\\)\\.$`)
      )
      for (const format of ["xml", "JSON", 1, null]) {
        const message = yield* toolError(client, "get_daily_scores", { ...range, format })
        expect(message, String(format)).toContain("format")
      }
      expect(yield* toolError(client, "get_profile", { format: "yaml" })).toContain("format")
      // Every tool: `format: "json"` answers its structured content's JSON as its text.
      for (const name of toolNames) {
        const args = ["get_profile", "list_connections"].includes(name) ? {} : range
        const answer = yield* callToolText(client, name, { ...args, format: "json" })
        expect(answer.text, name).toBe(JSON.stringify(answer.json))
      }
    }))

  it.scoped("bad arguments are tool errors the assistant can read; an unknown tool is a protocol error", () =>
    Effect.gen(function*() {
      const { token } = yield* createUser("mcp-arguments")
      const client = yield* mcpClient(token)
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        ["get_daily_activity", {}, "from"],
        ["get_daily_activity", { from: "2026-01-01", to: "2026-06-01" }, "at most 92 days"],
        ["get_glucose_summary", { from: "2026-02-30", to: "2026-03-01" }, "calendar date"],
        ["get_meal_responses", { from: "2026-03-02", to: "2026-03-01" }, "must not be after"],
        ["list_journal_entries", { from: "2026-01-01", to: "2026-03-01" }, "at most 31 days"],
        ["get_daily_load", { from: "2026-01-01", to: "2026-01-02", provider: "Nokia" }, "no provider named Nokia"],
        ["get_weekly_scores", { from: "9999-12-20", to: "9999-12-31" }, "9999-12-26"],
        ["get_coverage", { from: "2099-01-01", to: "2099-01-02" }, "not be after today"],
        ["get_profile", { userId: "someone-else" }, "userId"],
        ["get_daily_scores", { from: 20260101, to: "2026-01-02" }, "from"]
      ]
      for (const [name, args, fragment] of cases) {
        const message = yield* toolError(client, name, args)
        expect(message, `${name} ${JSON.stringify(args)}`).toContain(fragment)
      }
      const unknown = yield* Effect.promise(() =>
        client.callTool({ name: "delete_everything", arguments: {} }).then(() => "answered", (e: Error) => e.message)
      )
      expect(unknown).toContain("Unknown tool")
    }))

  it.scoped("only a valid user token opens it; the protocol's refusals are JSON-RPC errors with a 4xx", () =>
    Effect.gen(function*() {
      const { apiKey, token, user } = yield* createUser("mcp-credentials")
      const init = rpc("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" }
      })
      for (const bearer of [undefined, "pb_ut_nope", apiKey]) {
        const reply = yield* send("POST", "/mcp", {
          json: init,
          headers: mcpHeaders,
          ...(bearer === undefined ? {} : { bearer })
        })
        expectError(reply, 401, "Unauthorized")
        expect(reply.headers["www-authenticate"]).toMatch(/^Bearer/)
      }
      const ok = yield* send("POST", "/mcp", { json: init, headers: mcpHeaders, bearer: token })
      expect(ok.status, preview(ok)).toBe(200)
      expect(json(ok).result.serverInfo.name).toBe("pulsebridge")

      // A rotated token no longer opens it.
      const rotated = yield* send("POST", `/api/v1/users/${user.id}/rotate-token`, { bearer: apiKey })
      expect(rotated.status, preview(rotated)).toBe(200)
      expectError(yield* send("POST", "/mcp", { json: init, headers: mcpHeaders, bearer: token }), 401, "Unauthorized")
      const fresh = json(rotated).token as string

      const refused = [
        [yield* send("POST", "/mcp", { body: "{not json", headers: mcpHeaders, bearer: fresh }), 400, -32700],
        [yield* send("POST", "/mcp", { json: "a string", headers: mcpHeaders, bearer: fresh }), 400, -32600],
        [
          yield* send("POST", "/mcp", {
            json: { deep: JSON.parse("[".repeat(40) + "]".repeat(40)) },
            headers: mcpHeaders,
            bearer: fresh
          }),
          400,
          -32600
        ],
        [
          yield* send("POST", "/mcp", { body: "x".repeat(300 * 1024), headers: mcpHeaders, bearer: fresh }),
          413,
          -32000
        ],
        [yield* send("POST", "/mcp", { json: init, headers: { accept: "text/html" }, bearer: fresh }), 406, -32000],
        [
          yield* send("POST", "/mcp", { body: "a=b", contentType: "text/plain", headers: mcpHeaders, bearer: fresh }),
          415,
          -32000
        ],
        [yield* send("GET", "/mcp", { headers: mcpHeaders, bearer: fresh }), 405, -32000],
        [yield* send("DELETE", "/mcp", { bearer: fresh }), 405, -32000]
      ] as const
      for (const [reply, status, code] of refused) {
        expect(reply.status, preview(reply)).toBe(status)
        expect(json(reply)).toMatchObject({ jsonrpc: "2.0", error: { code } })
      }
      expect(refused[6]![0].headers["allow"]).toBe("POST")
      // The service's root names the endpoint.
      expect(json(yield* send("GET", "/"))).toMatchObject({ mcp: "/mcp" })
    }))

  it.scoped("each user reads only their own data, whatever the arguments say", () =>
    Effect.gen(function*() {
      const a = yield* createUser("mcp-owner")
      const b = yield* createUser("mcp-other")
      const date = dateOf(Date.now() - 2 * DAY)
      const created = yield* send("POST", `/api/v1/users/${a.user.id}/journal-entries`, {
        bearer: a.token,
        json: { entryKind: "Meal", consumedAtUtc: `${date}T12:00:00Z`, timezone: "UTC", title: "Owner's lunch" }
      })
      expect(created.status, preview(created)).toBe(201)
      const range = { from: date, to: date }
      const clientA = yield* mcpClient(a.token)
      const clientB = yield* mcpClient(b.token)
      const own = yield* callTool(clientA, "list_journal_entries", range)
      expect(own.entries.map((e: any) => e.title)).toEqual(["Owner's lunch"])
      expect(yield* callTool(clientB, "list_journal_entries", range)).toMatchObject({ entries: [] })
      expect((yield* callTool(clientB, "get_profile")).userId).toBe(b.user.id)
      // No tool takes a user: naming one is refused, not obeyed.
      const message = yield* toolError(clientB, "list_journal_entries", { ...range, userId: a.user.id })
      expect(message).toContain("userId")
    }))

  it.scoped("an answer over the size bound is cut at a day and continues from there, each entry once", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("mcp-bound")
      // 08:00 UTC of a day 20 days ago: the entries of a day (30 minutes at most) stay on its date.
      const base = Date.parse(`${dateOf(Date.now() - 20 * DAY)}T08:00:00Z`)
      const notes = (i: number) => `${i} `.padEnd(1_990, "note ")
      const post = (day: number, i: number) =>
        Effect.flatMap(
          send("POST", `/api/v1/users/${user.id}/journal-entries`, {
            bearer: token,
            json: {
              entryKind: "Meal",
              consumedAtUtc: new Date(base + day * DAY + i * 60_000).toISOString(),
              timezone: "UTC",
              title: `Meal ${day}-${i}`,
              notes: notes(i)
            }
          }),
          (reply) => Effect.sync(() => expect(reply.status, preview(reply)).toBe(201))
        )
      // Day 0 alone is over the bound; days 1-5 hold 8 entries each (about 18,000 characters a day).
      const plan: Array<readonly [number, number]> = []
      for (let i = 0; i < 30; i++) plan.push([0, i])
      for (let day = 1; day <= 5; day++) for (let i = 0; i < 8; i++) plan.push([day, i])
      yield* Effect.forEach(plan, ([day, i]) => post(day, i), { concurrency: 4, discard: true })
      const client = yield* mcpClient(token)
      const from = dateOf(base)
      const to = dateOf(base + 5 * DAY)

      const first = yield* callTool(client, "list_journal_entries", { from, to })
      expect(JSON.stringify(first).length).toBeLessThanOrEqual(McpMaxAnswerChars)
      expect(first.partialDay).toMatchObject({ date: from, total: 30 })
      expect(first.partialDay.shown).toBeGreaterThan(0)
      expect(first.partialDay.shown).toBeLessThan(30)
      expect(first.entries).toHaveLength(first.partialDay.shown)
      expect(first.continueFrom).toBe(dateOf(base + DAY))

      const seen: Array<string> = []
      let next: string | null = first.continueFrom
      let pages = 0
      while (next !== null) {
        const page = yield* callTool(client, "list_journal_entries", { from: next, to })
        expect(JSON.stringify(page).length).toBeLessThanOrEqual(McpMaxAnswerChars)
        expect(page.partialDay).toBeNull()
        expect(page.entries.length).toBeGreaterThan(0)
        seen.push(...page.entries.map((e: any) => e.title))
        if (page.continueFrom !== null) expect(page.continueFrom > page.entries.at(-1).journalDate).toBe(true)
        next = page.continueFrom
        pages++
      }
      expect(pages).toBeGreaterThan(1)
      const expected = plan.filter(([day]) => day > 0).map(([day, i]) => `Meal ${day}-${i}`)
      expect([...seen].sort()).toEqual([...expected].sort())
      expect(new Set(seen).size).toBe(seen.length)
    }))

  it.scoped("generated hostile messages and tool arguments get no 5xx, a JSON-RPC answer, and change nothing", () =>
    Effect.gen(function*() {
      const { token, user } = yield* createUser("mcp-fuzz")
      const created = yield* send("POST", `/api/v1/users/${user.id}/journal-entries`, {
        bearer: token,
        json: { entryKind: "Coffee", consumedAtUtc: "2026-01-02T08:00:00Z", timezone: "UTC", title: "Espresso" }
      })
      expect(created.status, preview(created)).toBe(201)
      const day = fc.oneof(
        fc.constantFrom(...badDates.map((d) => d.text), "2026-01-01", "2026-01-02", "1970-01-01"),
        fc.string({ maxLength: 20 }),
        fc.anything()
      )
      const args = fc.oneof(
        fc.record({ from: day, to: day }, { requiredKeys: [] }),
        fc.record({ from: day, to: day, provider: fc.oneof(fc.string(), fc.anything()) }, { requiredKeys: [] }),
        fc.dictionary(fc.string({ maxLength: 10 }), fc.anything(), { maxKeys: 4 }),
        fc.anything()
      )
      const calls = fc.record({
        name: fc.oneof(fc.constantFrom(...toolNames), fc.string({ maxLength: 30 })),
        arguments: args
      }).map((params) => rpc("tools/call", params))
      const messages = fc.oneof(
        fc.record({
          jsonrpc: fc.oneof(fc.constant("2.0"), fc.anything()),
          id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.anything()),
          method: fc.oneof(
            fc.constantFrom("initialize", "tools/list", "tools/call", "ping", "resources/list", "prompts/get"),
            fc.string({ maxLength: 20 })
          ),
          params: fc.anything()
        }, { requiredKeys: [] }),
        fc.array(calls, { maxLength: 3 }),
        fc.constantFrom(rpc("notifications/initialized"), { jsonrpc: "2.0", method: "notifications/cancelled" })
      )
      const cases = [
        ...samples("mcp tools/call", calls, fuzzRuns * 2),
        ...samples("mcp messages", messages, fuzzRuns)
      ]
      const before = yield* digest
      const statuses = new Map<number, number>()
      for (const body of cases) {
        const reply = yield* send("POST", "/mcp", { json: body, headers: mcpHeaders, bearer: token })
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
        expect(reply.status, `${JSON.stringify(body).slice(0, 300)} -> ${preview(reply)}`).toBeLessThan(500)
        if (reply.text !== "") {
          const answer = json(reply)
          const answers = Array.isArray(answer) ? answer : [answer]
          for (const a of answers) expect(a, JSON.stringify(body).slice(0, 300)).toMatchObject({ jsonrpc: "2.0" })
        }
      }
      expect(changedTables(before, yield* digest)).toEqual([])
      // The generated calls reached the tools: some answered data, some were refused as tool errors.
      expect(statuses.get(200)).toBeGreaterThan(fuzzRuns)
    }))
})
