/**
 * `npm run tokens:mcp`: how many tokens the MCP tools' answers cost an assistant, for the questions a user asks.
 *
 * A real sandbox server (the test harness's: embedded PostgreSQL, or a fresh database on `DATABASE_URL`'s server)
 * gets a test user connected to every simulated provider through the portal's sandbox page, waits for their
 * backfills, and logs a day of meals and coffees in the journal. Then the SDK's own MCP client asks each typical
 * question as an assistant would (`get_sleep` over the last 7 days for "how did I sleep last week", ...), once
 * with `format: "json"`, which answers exactly as the server did before the compact text (its JSON as
 * structured content and again as text), and once as it answers now (compact text). Each whole tool result as
 * the client receives it (text and structured content) is counted with the o200k_base tokenizer (`js-tiktoken`,
 * whose ranks ship in the package, so no download), and so is its text alone. A markdown table goes to stdout.
 */
import * as Undici from "@effect/platform-node/Undici"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import { CreateUserPayload } from "@pulsebridge/domain"
import { Users } from "@pulsebridge/server"
import {
  createApp,
  createOperator,
  makeTestServer,
  portalClient,
  portalLogin,
  portalRequest,
  TestServer
} from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { Tiktoken } from "js-tiktoken/lite"
import o200kBase from "js-tiktoken/ranks/o200k_base"

const tokenizer = new Tiktoken(o200kBase)
const tokens = (text: string) => tokenizer.encode(text).length

const DAY = 86_400_000
const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString()
    .slice(0, 10)

const program = Effect.gen(function*() {
  const { baseUrl, ca } = yield* TestServer
  yield* createOperator("tokens@example.com", "a long enough password 1")
  const portal = portalClient(baseUrl, yield* portalLogin(baseUrl, "tokens@example.com", "a long enough password 1"))
  const { app } = yield* createApp("token count")
  const made = yield* portal.post("/portal/api/sandbox/test-users", {
    json: { appId: app.id, externalUserId: "token-count" }
  })
  if (made.status !== 201) return yield* Effect.dieMessage(`test user: ${made.status} ${made.text}`)
  // Creating an existing user again issues a further token of that user, as `POST /api/v1/users` does.
  const { token, user: { id: userId } } = yield* Effect.flatMap(
    Users,
    (users) => users.create(app.id, new CreateUserPayload({ externalUserId: "token-count" }))
  )
  const connected = yield* portal.post(`/portal/api/sandbox/apps/${app.id}/test-users/${userId}/connect-all`)
  if (connected.status !== 200) return yield* Effect.dieMessage(`connect: ${connected.status} ${connected.text}`)
  console.error(`connected ${connected.body.connected.join(", ")}; waiting for the backfills`)
  yield* portal.get(`/portal/api/sandbox/apps/${app.id}/test-users/${userId}`).pipe(
    Effect.filterOrFail((reply) =>
      reply.body.connections.length > 0 &&
      reply.body.connections.every((c: any) => c.syncState === "Idle" && c.lastSyncedAt !== null)
    ),
    Effect.retry({ schedule: Schedule.spaced("1 second"), times: 300 }),
    Effect.orDieWith(() => new Error("the backfills did not finish in 5 minutes"))
  )

  const fetch: FetchLike = (url, init) =>
    Undici.fetch(url, {
      ...(init as unknown as Undici.RequestInit),
      dispatcher: new Undici.Agent({ connect: { ca } })
    }) as unknown as Promise<Response>
  const client = new Client({ name: "token-count", version: "1.0.0" })
  yield* Effect.promise(() =>
    client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
        fetch,
        requestInit: { headers: { authorization: `Bearer ${token}` } }
      })
    )
  )
  yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
  yield* Effect.promise(() => client.listTools())
  const call = (name: string, args: Record<string, unknown>) =>
    Effect.promise(() => client.callTool({ name, arguments: args }))
  const profile = yield* call("get_profile", { format: "json" })
  const today = (profile.structuredContent as { today: string }).today

  // A day of the journal, as an app's user logs it: breakfast, coffees, lunch, a snack and dinner.
  const entries = [
    ["Meal", "07:30", "Oat porridge with berries", { caloriesKcal: 380, proteinGrams: 12, carbsGrams: 62 }],
    ["Coffee", "08:15", "Flat white", { caloriesKcal: 110, caffeineMg: 130, volumeMl: 180 }],
    ["Meal", "12:30", "Chicken salad, bread", { caloriesKcal: 620, proteinGrams: 42, carbsGrams: 48, fatGrams: 24 }],
    ["Coffee", "14:00", "Espresso", { caloriesKcal: 2, caffeineMg: 75, volumeMl: 30 }],
    ["Drink", "16:00", "Orange juice", { caloriesKcal: 110, carbsGrams: 26, volumeMl: 250 }],
    ["Meal", "19:00", "Pasta with tomato sauce", { caloriesKcal: 720, proteinGrams: 24, carbsGrams: 118 }]
  ] as const
  for (const [entryKind, time, title, nutrients] of entries) {
    const reply = yield* portalRequest(baseUrl, "POST", `/api/v1/users/${userId}/journal-entries`, {
      headers: { authorization: `Bearer ${token}` },
      json: { entryKind, consumedAtUtc: `${today}T${time}:00Z`, timezone: "UTC", title, nutrients }
    })
    if (reply.status !== 201) return yield* Effect.dieMessage(`journal: ${reply.status} ${reply.text}`)
  }

  const yesterday = addDays(today, -1)
  const questions: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
    ["How did I sleep last week?", "get_sleep", { from: addDays(today, -7), to: yesterday }],
    ["My glucose yesterday", "get_glucose_summary", { from: yesterday, to: yesterday }],
    ["My daily scores this week", "get_daily_scores", { from: addDays(today, -6), to: today }],
    ["My activity over the last 30 days", "get_daily_activity", { from: addDays(today, -30), to: yesterday }],
    ["My workouts this month", "get_workouts", { from: addDays(today, -30), to: today }],
    ["What's in my journal today?", "list_journal_entries", { from: today, to: today }],
    ["How recovered was I last week?", "get_recovery", { from: addDays(today, -7), to: yesterday }],
    ["My strain last week", "get_daily_load", { from: addDays(today, -7), to: yesterday }],
    ["What data is missing this week?", "get_coverage", { from: addDays(today, -6), to: today }],
    ["Which devices are connected?", "list_connections", {}]
  ]
  const rows: Array<ReadonlyArray<string>> = []
  const totals = [0, 0, 0, 0]
  for (const [question, name, args] of questions) {
    const before = yield* call(name, { ...args, format: "json" })
    const after = yield* call(name, args)
    if (before.isError === true || after.isError === true) {
      return yield* Effect.dieMessage(`${name}: ${JSON.stringify(after.content)}`)
    }
    const textOf = (result: typeof before) => (result.content as Array<{ text: string }>)[0]!.text
    const counted = [
      tokens(JSON.stringify(before)),
      tokens(JSON.stringify(after)),
      tokens(textOf(before)),
      tokens(textOf(after))
    ]
    counted.forEach((n, i) => totals[i]! += n)
    rows.push([
      question,
      `\`${name}\``,
      ...counted.map(String),
      `${Math.round((1 - counted[3]! / counted[2]!) * 100)} %`
    ])
    if (process.env.SHOW_TEXT !== undefined) console.error(`\n## ${name}\n${textOf(after)}\n`)
  }
  rows.push([
    "All ten",
    "",
    ...totals.map(String),
    `${Math.round((1 - totals[3]! / totals[2]!) * 100)} %`
  ])
  const header = [
    "Question",
    "Tool call",
    "Whole result before",
    "Whole result now",
    "Text before",
    "Text now",
    "Text saved"
  ]
  console.log([header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n"))
})

Effect.runPromise(program.pipe(Effect.provide(makeTestServer({ sandbox: true })), Effect.scoped)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
