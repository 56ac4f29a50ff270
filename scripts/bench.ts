/**
 * `npm run bench`: the full PulseBridge server against a minimal node:https + pg baseline, both on one fresh
 * database (the embedded PGlite, or a database created for the run on the PostgreSQL of `DATABASE_URL` and dropped
 * after it). First a year-long Dexcom backfill from the simulator (see `bench/Backfill.ts`), then autocannon over
 * HTTPS on `GET /api/v1/users/:id/connections/glucose` (30 days of that backfill), the MCP glucose summary of the
 * same days (`POST /mcp`), `GET /api/v1/users/:id` and `POST /api/v1/users`. Prints the figures and rewrites `docs/benchmarks.md` (see `bench/Report.ts`).
 * `BENCH_DURATION` sets the measured seconds of each run (default 8), `BENCH_CONNECTIONS` the concurrent
 * connections (default 10), `BENCH_SLICES` the runs each server's measured time is cut into, taken in turn by the
 * servers of a route (default 4), `BENCH_BACKFILL_DAYS` the days of the backfill (default 365; 33 for a quick check of the
 * routes); `BENCH_ONLY=backfill` runs the backfill alone (`BENCH_ONLY=requests` the request path alone) and leaves
 * `docs/benchmarks.md` as it is.
 */
import { HttpServer } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Apps, defaultRateLimits, ServerConfig } from "@pulsebridge/server"
import { ServeLive } from "@pulsebridge/server/Main"
import { freshDatabase } from "@pulsebridge/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type pg from "pg"
import { measureBackfill } from "./bench/Backfill.js"
import { startBaseline } from "./bench/Baseline.js"
import { startEffectFloor } from "./bench/EffectFloor.js"
import type { LoadSettings, Measurement, Target } from "./bench/Load.js"
import { BenchError, measure, measureSideBySide, positiveFromEnv, requestOnce } from "./bench/Load.js"
import { fileConsole } from "./bench/LogSink.js"
import type { DatabaseKind, RouteResult, RouteSummary } from "./bench/Report.js"
import { currentMachine, databaseTitle, rate, runProblems, terminalTable, writeMarkdown } from "./bench/Report.js"
import { describeRouteMemory, measureRouteMemory, routeMemorySummary } from "./bench/RouteMemory.js"
import { measureStartup } from "./bench/Startup.js"

const docsFile = fileURLToPath(new URL("../docs/benchmarks.md", import.meta.url))

const readSettings = Effect.gen(function*() {
  const durationSeconds = yield* positiveFromEnv("BENCH_DURATION", 8)
  const backfillDays = yield* positiveFromEnv("BENCH_BACKFILL_DAYS", 365)
  if (backfillDays < glucoseDays + 3 || backfillDays > 365) {
    return yield* new BenchError({
      message: `BENCH_BACKFILL_DAYS must be between ${glucoseDays + 3} and 365 (the glucose read needs its days)`
    })
  }
  return {
    backfillDays,
    connections: yield* positiveFromEnv("BENCH_CONNECTIONS", 10),
    pipelining: 1,
    warmupSeconds: durationSeconds >= 4 ? 2 : 1,
    durationSeconds,
    slices: yield* positiveFromEnv("BENCH_SLICES", 4)
  } satisfies LoadSettings & { readonly backfillDays: number }
})

/** A temporary data dir (TLS certificate, embedded database), removed with the scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-bench-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

interface Database {
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /** The baseline's pool; once the server is up, as the embedded database's port is only known then. */
  readonly pool: (dataDir: string) => pg.PoolConfig
  readonly detail: string
}

/**
 * The database of the run. The baseline's pool gets as many connections as PulseBridge's own pool: 8 on the
 * embedded database (`pgClientFromEndpoint`), pg's default of 10 with a URL (`pgClientFromUrl`).
 */
const setupDatabase = (kind: DatabaseKind) =>
  Effect.gen(function*() {
    if (kind === "postgres") {
      const url = yield* freshDatabase(process.env["DATABASE_URL"]!)
      return {
        databaseUrl: Option.some(Redacted.make(url)),
        pool: () => ({ connectionString: url, max: 10 }),
        detail: "a fresh database on the server of DATABASE_URL, dropped after the run"
      } satisfies Database
    }
    return {
      databaseUrl: Option.none(),
      // The server records the loopback port of its embedded database in DATA_DIR/pg.lock (see Database.ts).
      pool: (dataDir: string) => ({
        host: "127.0.0.1",
        port: (JSON.parse(fs.readFileSync(path.join(dataDir, "pg.lock"), "utf8")) as { port: number }).port,
        user: "postgres",
        database: "postgres",
        // One connection, as the server uses: PGlite has a single session and its socket server
        // mixes up the statements of concurrent connections.
        max: 1
      }),
      detail: "persisted in a temporary data dir and served on a loopback port, as `pulsebridge serve` runs it"
    } satisfies Database
  })

/** Days of glucose read per request, and the smallest acceptable req/s of PulseBridge over the baseline's. */
const glucoseDays = 30
const glucoseTargetRatio = 0.7
/** `BENCH_ONLY=backfill`: the backfill alone, for profiling it; the routes are not loaded and no section is written. */
const backfillOnly = process.env["BENCH_ONLY"] === "backfill"
/**
 * `BENCH_ONLY=requests`: the request path alone (`GET` and `POST /api/v1/users`), after a short backfill, for profiling
 * it; no start-up runs and no section is written.
 */
const requestsOnly = process.env["BENCH_ONLY"] === "requests"
/** `BENCH_ONLY=memory`: the memory of the route load alone, after the backfill; no section is written. */
const memoryOnly = process.env["BENCH_ONLY"] === "memory"

interface Route {
  readonly route: string
  readonly description: string
  readonly target: (base: string, ca: string) => Target
  /** What of an answer must be the same on both servers. */
  readonly comparable: (body: string) => Effect.Effect<string, BenchError>
  readonly targetRatio?: number
  /** The load of this route's runs, where it differs from the other routes'. */
  readonly load?: (settings: LoadSettings) => LoadSettings
  /** Measured against the stronger baseline (`bench/Baseline.ts`) instead of the plain one. */
  readonly baseline?: "strong"
  /** The row of the summary table at the top of docs/benchmarks.md this route measures. */
  readonly summary?: RouteSummary
  /** Also measured on the Effect floor (`bench/EffectFloor.ts`), which serves this route only. */
  readonly floor?: boolean
}

/** The request path's goal: at least 0.7× the baseline's req/s with a p99 at most twice the baseline's. */
const requestPathGoal = { goal: ">= 0.7×, p99 <= 2×", minRatio: 0.7, maxP99Ratio: 2 } as const

const parseJson = (text: string, what: string) =>
  Effect.try({
    try: () => JSON.parse(text) as Record<string, unknown>,
    catch: () => new BenchError({ message: `${what}: the body is not JSON: ${text.slice(0, 500)}` })
  })

/** The body as JSON without the fresh token of a created user. */
const withoutToken = (route: string) => (body: string) =>
  Effect.map(parseJson(body, route), ({ token: _token, ...rest }) => JSON.stringify(rest))

/** `from`..`to` of the glucose reads: whole days ending the day before yesterday, well inside the backfill. */
const glucoseRange = (today: string) => {
  const day = (offset: number) => new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString()
  return { from: day(-(glucoseDays + 1)).slice(0, 10), to: day(-2).slice(0, 10) }
}

const glucoseRoute = (userId: string, userToken: string, range: { from: string; to: string }): Route => ({
  route: "GET /api/v1/users/:id/connections/glucose",
  description: `User token lookup by hash, then ${glucoseDays} days (${range.from} to ${range.to}) of the Dexcom ` +
    "backfill in three queries (readings, events, calibrations, each joined to connections), answered as one " +
    "JSON document.",
  target: (base: string, ca: string): Target => ({
    url: `${base}/api/v1/users/${userId}/connections/glucose?${new URLSearchParams(range)}`,
    method: "GET",
    headers: { authorization: `Bearer ${userToken}` },
    ca
  }),
  // Byte for byte: the same fields in the same order with the same value formats.
  comparable: Effect.succeed,
  targetRatio: glucoseTargetRatio,
  // Informative: this baseline runs the same SQL; the goal is judged against the stronger baseline's rows.
  summary: { key: "glucose-30d", goal: "see the stronger baseline" },
  // An answer takes a good part of a second of one CPU: two connections keep both servers busy without measuring
  // mostly the wait in a queue, and a longer run gives the percentiles enough answers.
  load: (settings) => ({
    ...settings,
    connections: Math.min(2, settings.connections),
    durationSeconds: 2 * settings.durationSeconds
  })
})

/** The goal of the glucose read against the stronger baseline: within 1.25x, i.e. at least 0.8x its req/s. */
const strongGlucoseTargetRatio = 0.8

/** The glucose read against the stronger baseline, as it is and compressed (`Accept-Encoding: br, gzip`). */
const strongGlucoseRoutes = (plain: Route): ReadonlyArray<Route> =>
  [undefined, "br, gzip"].map((acceptEncoding) => ({
    ...plain,
    route: `${plain.route}${
      acceptEncoding === undefined ? "" : `, Accept-Encoding: ${acceptEncoding}`
    }, stronger baseline`,
    description: `${plain.description} The baseline here is the stronger one: the best hand-written read, with the ` +
      `timestamps formatted as text in SQL${
        acceptEncoding === undefined ? "" : " and the body compressed as PulseBridge compresses it (brotli quality 4)"
      }.`,
    target: (base: string, ca: string): Target => {
      const target = plain.target(base, ca)
      return acceptEncoding === undefined
        ? target
        : { ...target, headers: { ...target.headers, "accept-encoding": acceptEncoding } }
    },
    targetRatio: strongGlucoseTargetRatio,
    baseline: "strong",
    summary: {
      key: acceptEncoding === undefined ? "glucose-30d-strong" : "glucose-30d-strong-compressed",
      goal: "within 1.25× (>= 0.8× req/s)",
      minRatio: strongGlucoseTargetRatio,
      baselineName: `hand-written, timestamps as text${acceptEncoding === undefined ? "" : ", same compression"}`
    }
  }))

/**
 * The first page of the same read, of 100 and of 1,000 items (`limit`), against the stronger baseline reading the same
 * page: priced as a page, each is judged against the whole 30-day read of the same run (the page of 100 must reach
 * 10× its req/s at 1/20 of its CPU; the page of 1,000 is reported).
 */
const pagedGlucoseRoutes = (plain: Route): ReadonlyArray<Route> =>
  [100, 1000].map((limit): Route => ({
    route: `${plain.route}?limit=${limit}, stronger baseline`,
    description: `The first page of ${limit.toLocaleString("en-US")} items of the same read (\`limit=${limit}\`): ` +
      "one keyset statement of the page's rows (one more tells whether a next page follows), its ETag a digest of " +
      "the page itself. The baseline is the stronger one running the same statement.",
    target: (base: string, ca: string): Target => {
      const target = plain.target(base, ca)
      return { ...target, url: `${target.url}&limit=${limit}` }
    },
    comparable: Effect.succeed,
    baseline: "strong",
    summary: {
      key: `glucose-page-${limit}`,
      goal: limit === 100 ? ">= 10× its req/s, <= 1/20 of its CPU" : "reported",
      baselineName: "hand-written, the same page",
      versus: {
        key: "glucose-30d-strong",
        name: "the 30-day read",
        minRatio: limit === 100 ? 10 : 0,
        maxCpuRatio: limit === 100 ? 1 / 20 : 1
      }
    }
  }))

/** JSON with every object's keys sorted: what two answers of the same content but another key order share. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
      : v)

/** The MCP glucose summary of the same days as the glucose read: what an assistant asks instead of the readings. */
const mcpGlucoseRoute = (userToken: string, range: { from: string; to: string }): Route => ({
  route: "POST /mcp, tools/call get_glucose_summary",
  description: `User token lookup by hash, then one JSON-RPC message: the ${glucoseDays}-day glucose summary ` +
    `(${range.from} to ${range.to}) of the same backfill, one aggregate statement over the readings and the ` +
    "statistics in JS, answered as a JSON-RPC result (the summary as structured content and again as text). " +
    "PulseBridge builds the MCP SDK's server and stateless transport for each request and decodes the arguments " +
    "with their schema; the baseline parses the message by hand.",
  target: (base: string, ca: string): Target => ({
    url: `${base}/mcp`,
    method: "POST",
    headers: {
      authorization: `Bearer ${userToken}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json"
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_glucose_summary", arguments: range }
    }),
    ca
  }),
  // The summary itself; the envelope's key order is the SDK's.
  comparable: (body) =>
    Effect.map(
      parseJson(body, "POST /mcp"),
      (answer) => canonical((answer["result"] as Record<string, unknown> | undefined)?.["structuredContent"] ?? answer)
    )
})

const routes = (apiKey: string, userId: string): ReadonlyArray<Route> => [
  {
    route: "GET /api/v1/users/:id",
    description: "API key lookup by hash, then the user row by id and app.",
    target: (base: string, ca: string): Target => ({
      url: `${base}/api/v1/users/${userId}`,
      method: "GET",
      headers: { authorization: `Bearer ${apiKey}` },
      ca
    }),
    comparable: withoutToken("GET /api/v1/users/:id"),
    summary: { key: "get-user", ...requestPathGoal },
    floor: true
  },
  {
    route: "POST /api/v1/users",
    description: "API key lookup by hash, then one statement: upsert of an existing user and insert of a new token.",
    target: (base: string, ca: string): Target => ({
      url: `${base}/api/v1/users`,
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ externalUserId: "bench-user" }),
      ca
    }),
    comparable: withoutToken("POST /api/v1/users"),
    summary: { key: "post-user", ...requestPathGoal }
  }
]

/** Where two texts first differ, with some context of both. */
const firstDifference = (ours: string, theirs: string) => {
  let at = 0
  while (at < ours.length && at < theirs.length && ours[at] === theirs[at]) at++
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 160))
  return `at character ${at} of ${ours.length} (PulseBridge) and ${theirs.length} (baseline):\n` +
    `  PulseBridge: ${around(ours)}\n  baseline:    ${around(theirs)}`
}

/**
 * Both servers answer 200 with the same body (`comparable` of each) before any load is sent; the answer of
 * PulseBridge is returned.
 */
const preflight = (route: Route, pulsebridge: Target, baseline: Target) =>
  Effect.gen(function*() {
    const answers = yield* Effect.all([requestOnce(pulsebridge), requestOnce(baseline)])
    const [ours, theirs] = yield* Effect.forEach(answers, (answer, i) =>
      answer.status === 200
        ? route.comparable(answer.body)
        : new BenchError({
          message: `${route.route} on ${i === 0 ? "PulseBridge" : "the baseline"}: ${answer.status} ` +
            answer.body.slice(0, 500)
        }))
    if (ours !== theirs) {
      return yield* new BenchError({
        message: `${route.route}: the baseline answers differently, ${firstDifference(ours!, theirs!)}`
      })
    }
    if (answers[0].headers["content-encoding"] !== answers[1].headers["content-encoding"]) {
      return yield* new BenchError({
        message:
          `${route.route}: PulseBridge answers with content encoding ${answers[0].headers["content-encoding"]}, ` +
          `the baseline with ${answers[1].headers["content-encoding"]}`
      })
    }
    return answers[0].body
  })

/** A route as part of a file name: `GET /api/v1/users/:id` -> `get-users-id`. */
const profileSlug = (route: string) =>
  route.replace("/api/v1/", "/").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

/** A bucket no load of the benchmark empties. */
const unlimited = { perSecond: 1_000_000, burst: 1_000_000 }

/** Progress, straight to stdout: the server's layers set their own console and loggers on the fibers building them. */
const say = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

const describe = (name: string, route: string, m: Measurement) =>
  say(
    `  ${name.padEnd(11)} ${route.padEnd(41)} ${rate(m.requestsPerSecond).padStart(6)} req/s` +
      `  p50 ${m.p50} ms  p99 ${m.p99} ms  CPU ${m.cpuMsPerRequest?.toFixed(2)} ms/request` +
      `  (server ${m.serverCpuMsPerRequest?.toFixed(2) ?? "-"} ms, database ${
        m.databaseCpuMsPerRequest?.toFixed(2) ?? "-"
      } ms)` +
      `${m.problems.length === 0 ? "" : `  INVALID: ${m.problems.join("; ")}`}`
  )

/** What one glucose answer holds, e.g. "Each answer: 8,640 readings, 151 events, 9 calibrations, 3.1 MB.". */
const answerSize = (body: string) => {
  const data = JSON.parse(body) as Record<"readings" | "events" | "calibrations", Array<unknown>>
  const count = (n: number) => n.toLocaleString("en-US")
  return `Each answer: ${count(data.readings.length)} readings, ${count(data.events.length)} events, ` +
    `${count(data.calibrations.length)} calibrations, ${(Buffer.byteLength(body) / 1e6).toFixed(1)} MB.`
}

const shutdownSeconds = 20

/**
 * Runs `use` with the server built in a scope of its own. The server writes its banner and logs through the global
 * `console`, which `fileConsole` points at the log file for the whole run. The scope
 * is closed within `shutdownSeconds`, so that a server whose shutdown hangs (requests stuck on a database that
 * stopped answering) still lets the benchmark report and drop its database; `shutdown.finished` tells.
 */
const withServer = <A, E, ROut, E2>(
  layer: Layer.Layer<ROut, E2>,
  shutdown: { finished: boolean },
  use: Effect.Effect<A, E, ROut>
) =>
  Effect.acquireUseRelease(
    Scope.make(),
    (scope) => Layer.buildWithScope(layer, scope).pipe(Effect.flatMap((context) => Effect.provide(use, context))),
    (scope, exit) =>
      Scope.close(scope, exit).pipe(
        Effect.disconnect,
        Effect.interruptible,
        Effect.timeoutOption(`${shutdownSeconds} seconds`),
        Effect.flatMap((closed) =>
          Option.isSome(closed) ? Effect.void : Effect.sync(() => {
            shutdown.finished = false
          })
        )
      )
  )

const program = Effect.gen(function*() {
  const { backfillDays, ...settings } = yield* readSettings
  // Before any work of the run: the load average then tells what else the machine was doing.
  const machine = currentMachine()
  const adminUrl = process.env["DATABASE_URL"]
  const kind: DatabaseKind = adminUrl !== undefined && adminUrl !== "" ? "postgres" : "pglite"
  const dataDir = yield* tempDir
  const logFile = path.join(os.tmpdir(), `pulsebridge-bench-${kind}.log`)
  yield* fileConsole(logFile)
  yield* say(`Benchmark on ${databaseTitle[kind]}; server logs go to ${logFile}`)

  const database = yield* setupDatabase(kind)
  const ConfigLive = ServerConfig.DefaultWith({
    port: 0,
    host: "127.0.0.1",
    publicUrl: Option.none(),
    databaseUrl: database.databaseUrl,
    dataDir,
    tlsCertFile: Option.none(),
    tlsKeyFile: Option.none(),
    trustProxy: false,
    backfillDays,
    // Yearly, so that no periodic sync runs into the measurements.
    syncCron: "0 0 1 1 *",
    // On, as `serve` runs, so that every request pays for its bucket; too large to refuse any of the load.
    rateLimits: { ...defaultRateLimits, apiKey: unlimited, userToken: unlimited }
  })
  // Exactly what `pulsebridge serve` runs (its logging included), configured like `serve` from the environment
  // but for the listener, the data dir, the database, the backfill span and the periodic sync's schedule.
  const ServerLive = ServeLive.pipe(Layer.provideMerge(ConfigLive))

  const run = Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const sql = yield* SqlClient.SqlClient
    const port = server.address._tag === "TcpAddress" ? server.address.port : 0
    const cert = fs.readFileSync(path.join(dataDir, "tls", "cert.pem"), "utf8")
    const key = fs.readFileSync(path.join(dataDir, "tls", "key.pem"), "utf8")
    const [{ version }] = yield* sql<{ version: string }>`select current_setting('server_version') as version`
    const databaseVersion = `PostgreSQL ${version}`

    const { apiKey, app } = yield* Effect.flatMap(Apps, (apps) => apps.create("Benchmark app"))
    const pulsebridgeBase = `https://127.0.0.1:${port}`
    const createUser = (externalUserId: string) =>
      Effect.gen(function*() {
        const created = yield* requestOnce({
          url: `${pulsebridgeBase}/api/v1/users`,
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ externalUserId }),
          ca: cert
        })
        if (created.status !== 201) {
          return yield* new BenchError({ message: `creating a user answered ${created.status} ${created.body}` })
        }
        const body = yield* parseJson(created.body, "POST /api/v1/users")
        return { id: String(body["id"]), token: String(body["token"]) }
      })
    const user = yield* createUser("bench-user")
    const glucoseUser = yield* createUser("bench-glucose-user")

    const baseline = yield* Effect.acquireRelease(
      Effect.promise(() => startBaseline({ cert, key, pool: database.pool(dataDir) })),
      // Bounded, as a database that stopped answering would keep the pool's connections checked out.
      (baseline) => Effect.promise(() => baseline.close()).pipe(Effect.interruptible, Effect.timeoutOption("5 seconds"))
    )
    const baselineBase = `https://127.0.0.1:${baseline.port}`
    const floor = yield* Effect.acquireRelease(
      Effect.promise(() => startEffectFloor({ cert, key, pool: database.pool(dataDir) })),
      (floor) => Effect.promise(() => floor.close()).pipe(Effect.interruptible, Effect.timeoutOption("5 seconds"))
    )

    yield* say(`  Dexcom backfill of ${backfillDays} days from the simulator...`)
    const backfill = yield* measureBackfill({
      serverBase: pulsebridgeBase,
      cert,
      appId: app.id,
      userId: glucoseUser.id,
      userToken: glucoseUser.token,
      days: backfillDays,
      providerUser: "BenchUser",
      timeoutSeconds: 600,
      profileName: `backfill-${kind}`
    })
    yield* say(
      `  PulseBridge Dexcom backfill: ${backfill.seconds.toFixed(1)} s, ${backfill.readings} readings ` +
        `(simulator: ${backfill.expectedReadings}), CPU ${backfill.cpuSeconds.server.toFixed(1)} s server, ` +
        `${backfill.cpuSeconds.simulator?.toFixed(1) ?? "unknown"} s simulator` +
        `${
          backfill.cpuSeconds.database === undefined ? "" : `, ${backfill.cpuSeconds.database.toFixed(1)} s database`
        }${backfill.problems.length === 0 ? "" : `  INVALID: ${backfill.problems.join("; ")}`}`
    )

    // The tables' statistics as the database's own maintenance has them a minute after a backfill (autovacuum on
    // PostgreSQL, the server's round on the embedded database, `platform/EmbeddedMaintenance.ts`), so that the
    // routes are planned as they are in a running deployment rather than with the estimates of empty tables.
    yield* sql`analyze`

    const results: Array<RouteResult> = []
    const glucose = glucoseRoute(glucoseUser.id, glucoseUser.token, glucoseRange(backfill.to))
    const allRoutes = [
      glucose,
      ...strongGlucoseRoutes(glucose),
      ...pagedGlucoseRoutes(glucose),
      mcpGlucoseRoute(glucoseUser.token, glucoseRange(backfill.to)),
      ...routes(apiKey, user.id)
    ]
    const measured = backfillOnly || memoryOnly ? [] : requestsOnly ? routes(apiKey, user.id) : allRoutes
    const loadRoutes = Effect.forEach(measured, (route) =>
      Effect.gen(function*() {
        const ours = route.target(pulsebridgeBase, cert)
        const theirs = route.target(route.baseline === "strong" ? `${baselineBase}/strong` : baselineBase, cert)
        const answer = yield* preflight(route, ours, theirs)
        const load = route.load?.(settings) ?? settings
        const floorTarget = route.floor === true ? route.target(`https://127.0.0.1:${floor.port}`, cert) : undefined
        if (floorTarget !== undefined) yield* preflight(route, floorTarget, theirs)
        const slug = profileSlug(route.route)
        const [pulsebridge, base, floorRun] = yield* measureSideBySide([
          { target: ours, profileName: `${slug}-${kind}` },
          { target: theirs },
          ...(floorTarget === undefined ? [] : [{ target: floorTarget, profileName: `floor-${slug}-${kind}` }])
        ], load)
        yield* describe("PulseBridge", route.route, pulsebridge!)
        yield* describe("baseline", route.route, base!)
        if (floorRun !== undefined) yield* describe("floor", route.route, floorRun)
        results.push({
          route: route.route,
          description: route.load === undefined ? route.description : `${route.description} ${answerSize(answer)}`,
          pulsebridge: pulsebridge!,
          baseline: base!,
          floor: floorRun,
          targetRatio: route.targetRatio,
          load,
          summary: route.summary
        })
      }), { discard: true })
    if (!memoryOnly) yield* loadRoutes
    // PulseBridge's memory under the same routes, loaded on it alone (the baselines idle), each for the run's time.
    const memoryRoutes = memoryOnly ? allRoutes : measured
    const memory = memoryRoutes.length === 0 || requestsOnly ? undefined : yield* Effect.gen(function*() {
      yield* say("  Memory of the route load (PulseBridge alone, each route once more)...")
      const { memory } = yield* measureRouteMemory(Effect.forEach(memoryRoutes, (route) => {
        const load = route.load?.(settings) ?? settings
        return measure(route.target(pulsebridgeBase, cert), { ...load, warmupSeconds: 0 })
      }, { discard: true }))
      yield* say(`  Memory of the route load: ${describeRouteMemory(memory)}`)
      return memory
    })
    return { databaseVersion, results, backfill, memory }
  }).pipe(Effect.scoped)

  const shutdown = { finished: true }
  const { backfill, databaseVersion, memory, results } = yield* withServer(ServerLive, shutdown, run)
  const partial = requestsOnly || backfillOnly || memoryOnly
  if (!partial) yield* say("  Start-up and CLI...")
  const startup = partial
    ? undefined
    : yield* measureStartup(adminUrl !== undefined && adminUrl !== "" ? adminUrl : undefined)
  const benchRun = {
    kind,
    databaseDetail: database.detail,
    databaseVersion,
    machine,
    date: new Date(),
    settings,
    backfill,
    routes: results,
    startup,
    routeMemory: memory,
    extraSummary: memory === undefined ? undefined : [routeMemorySummary(memory)]
  }
  yield* say(`\n${terminalTable(benchRun)}\n`)
  if (!partial) {
    writeMarkdown(docsFile, benchRun)
    yield* say(`Wrote the ${databaseTitle[kind]} section of docs/benchmarks.md`)
  }
  const invalid = runProblems(benchRun)
  if (invalid.length > 0 || !shutdown.finished) {
    return yield* new BenchError({
      message: [
        ...(invalid.length === 0 ? [] : [`the benchmark is invalid: not every answer was 2xx (see ${logFile}):`]),
        ...invalid.map((problem) => `  ${problem}`),
        ...(shutdown.finished ? [] : [`the server did not shut down within ${shutdownSeconds} s`])
      ].join("\n")
    })
  }
}).pipe(Effect.scoped)

// Without the pretty logger, as `pulsebridge` itself runs (packages/cli/src/bin.ts): the server then logs with exactly
// the loggers its own `LoggingLive` sets up.
NodeRuntime.runMain(program, { disablePrettyLogger: true })
