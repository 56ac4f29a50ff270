/**
 * `npm run bench`: the full PulseBridge server against a minimal node:https + pg baseline, both on one fresh
 * database (the embedded PGlite, or a database created for the run on the PostgreSQL of `DATABASE_URL` and dropped
 * after it), measured with autocannon over HTTPS on `GET /api/v1/users/:id` and `POST /api/v1/users`. Prints the
 * table and rewrites `docs/benchmarks.md` (see `bench/Report.ts`). `BENCH_DURATION` sets the measured seconds of
 * each run (default 8), `BENCH_CONNECTIONS` the concurrent connections (default 10).
 */
import { HttpServer } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Apps } from "@pulsebridge/server/Apps"
import { ServeLive } from "@pulsebridge/server/Main"
import { ServerConfig } from "@pulsebridge/server/ServerConfig"
import { freshDatabase } from "@pulsebridge/testing/TestDatabase"
import * as Console from "effect/Console"
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
import { startBaseline } from "./bench/Baseline.js"
import type { LoadSettings, Measurement, Target } from "./bench/Load.js"
import { BenchError, measure, requestOnce } from "./bench/Load.js"
import { fileConsole } from "./bench/LogSink.js"
import type { DatabaseKind, RouteResult } from "./bench/Report.js"
import { currentMachine, databaseTitle, problems, terminalTable, writeMarkdown } from "./bench/Report.js"

const docsFile = fileURLToPath(new URL("../docs/benchmarks.md", import.meta.url))

/** A whole number from the environment, `fallback` when unset. */
const positiveFromEnv = (name: string, fallback: number) =>
  Effect.suspend(() => {
    const raw = process.env[name]
    const value = raw === undefined || raw === "" ? fallback : Number(raw)
    return Number.isInteger(value) && value >= 1
      ? Effect.succeed(value)
      : Effect.fail(new BenchError({ message: `${name} must be a whole number >= 1, not "${raw}"` }))
  })

const readSettings = Effect.gen(function*() {
  const durationSeconds = yield* positiveFromEnv("BENCH_DURATION", 8)
  return {
    connections: yield* positiveFromEnv("BENCH_CONNECTIONS", 10),
    pipelining: 1,
    warmupSeconds: durationSeconds >= 4 ? 2 : 1,
    durationSeconds
  } satisfies LoadSettings
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

const routes = (apiKey: string, userId: string) => [
  {
    route: "GET /api/v1/users/:id",
    description: "API key lookup by hash, then the user row by id and app.",
    target: (base: string, ca: string): Target => ({
      url: `${base}/api/v1/users/${userId}`,
      method: "GET",
      headers: { authorization: `Bearer ${apiKey}` },
      ca
    })
  },
  {
    route: "POST /api/v1/users",
    description: "API key lookup by hash, then a transaction: upsert of an existing user and insert of a new token.",
    target: (base: string, ca: string): Target => ({
      url: `${base}/api/v1/users`,
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ externalUserId: "bench-user" }),
      ca
    })
  }
]

const parseJson = (text: string, what: string) =>
  Effect.try({
    try: () => JSON.parse(text) as Record<string, unknown>,
    catch: () => new BenchError({ message: `${what}: the body is not JSON: ${text}` })
  })

/** Both servers answer 200 with the same body (the fresh token aside) before any load is sent. */
const preflight = (route: string, pulsebridge: Target, baseline: Target) =>
  Effect.gen(function*() {
    const answers = yield* Effect.all([requestOnce(pulsebridge), requestOnce(baseline)])
    const [ours, theirs] = yield* Effect.forEach(answers, (answer, i) =>
      answer.status === 200
        ? parseJson(answer.body, route)
        : new BenchError({
          message: `${route} on ${i === 0 ? "PulseBridge" : "the baseline"}: ${answer.status} ${answer.body}`
        }))
    const { token: _ours, ...oursWithoutToken } = ours!
    const { token: _theirs, ...theirsWithoutToken } = theirs!
    if (JSON.stringify(oursWithoutToken) !== JSON.stringify(theirsWithoutToken)) {
      return yield* new BenchError({
        message: `${route}: the baseline answers differently:\n  PulseBridge: ${JSON.stringify(ours)}\n` +
          `  baseline:    ${JSON.stringify(theirs)}`
      })
    }
  })

/** Progress, straight to stdout: the server's layers set their own console and loggers on the fibers building them. */
const say = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

const describe = (name: string, route: string, m: Measurement) =>
  say(
    `  ${name.padEnd(11)} ${route.padEnd(22)} ${Math.round(m.requestsPerSecond).toString().padStart(6)} req/s` +
      `  p50 ${m.p50} ms  p99 ${m.p99} ms${m.problems.length === 0 ? "" : `  INVALID: ${m.problems.join("; ")}`}`
  )

const shutdownSeconds = 20

/**
 * Runs `use` with the server built in a scope of its own. The server's console (banner, logs) is `console`: it is
 * set while the layer is built, which is where the listener captures the runtime its requests run with. The scope
 * is closed within `shutdownSeconds`, so that a server whose shutdown hangs (requests stuck on a database that
 * stopped answering) still lets the benchmark report and drop its database; `shutdown.finished` tells.
 */
const withServer = <A, E, ROut, E2>(
  layer: Layer.Layer<ROut, E2>,
  console: Console.Console,
  shutdown: { finished: boolean },
  use: Effect.Effect<A, E, ROut>
) =>
  Effect.acquireUseRelease(
    Scope.make(),
    (scope) =>
      Layer.buildWithScope(layer, scope).pipe(
        Console.withConsole(console),
        Effect.flatMap((context) => Effect.provide(use, context))
      ),
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
  const settings = yield* readSettings
  const adminUrl = process.env["DATABASE_URL"]
  const kind: DatabaseKind = adminUrl !== undefined && adminUrl !== "" ? "postgres" : "pglite"
  const dataDir = yield* tempDir
  const logFile = path.join(os.tmpdir(), `pulsebridge-bench-${kind}.log`)
  const serverConsole = yield* fileConsole(logFile)
  yield* say(`Benchmark on ${databaseTitle[kind]}; server logs go to ${logFile}`)

  const database = yield* setupDatabase(kind)
  const ConfigLive = ServerConfig.layerWith({
    port: 0,
    host: "127.0.0.1",
    publicUrl: Option.none(),
    databaseUrl: database.databaseUrl,
    dataDir,
    tlsCertFile: Option.none(),
    tlsKeyFile: Option.none(),
    trustProxy: false
  })
  // Exactly what `pulsebridge serve` runs (its logging included), configured like `serve` from the environment
  // but for the listener, the data dir and the database.
  const ServerLive = ServeLive.pipe(Layer.provideMerge(ConfigLive))

  const run = Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const sql = yield* SqlClient.SqlClient
    const port = server.address._tag === "TcpAddress" ? server.address.port : 0
    const cert = fs.readFileSync(path.join(dataDir, "tls", "cert.pem"), "utf8")
    const key = fs.readFileSync(path.join(dataDir, "tls", "key.pem"), "utf8")
    const [{ version }] = yield* sql<{ version: string }>`select current_setting('server_version') as version`
    const databaseVersion = `PostgreSQL ${version}`

    const { apiKey } = yield* Effect.flatMap(Apps, (apps) => apps.create("Benchmark app"))
    const pulsebridgeBase = `https://127.0.0.1:${port}`
    const created = yield* requestOnce({
      url: `${pulsebridgeBase}/api/v1/users`,
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ externalUserId: "bench-user" }),
      ca: cert
    })
    if (created.status !== 201) {
      return yield* new BenchError({ message: `creating the user answered ${created.status} ${created.body}` })
    }
    const userId = String((yield* parseJson(created.body, "POST /api/v1/users"))["id"])

    const baseline = yield* Effect.acquireRelease(
      Effect.promise(() => startBaseline({ cert, key, pool: database.pool(dataDir) })),
      // Bounded, as a database that stopped answering would keep the pool's connections checked out.
      (baseline) => Effect.promise(() => baseline.close()).pipe(Effect.interruptible, Effect.timeoutOption("5 seconds"))
    )
    const baselineBase = `https://127.0.0.1:${baseline.port}`

    const results: Array<RouteResult> = []
    for (const route of routes(apiKey, userId)) {
      const ours = route.target(pulsebridgeBase, cert)
      const theirs = route.target(baselineBase, cert)
      yield* preflight(route.route, ours, theirs)
      const pulsebridge = yield* measure(ours, settings)
      yield* describe("PulseBridge", route.route, pulsebridge)
      const base = yield* measure(theirs, settings)
      yield* describe("baseline", route.route, base)
      results.push({ route: route.route, description: route.description, pulsebridge, baseline: base })
    }
    return { databaseVersion, results }
  }).pipe(Effect.scoped)

  const shutdown = { finished: true }
  const { databaseVersion, results } = yield* withServer(ServerLive, serverConsole, shutdown, run)
  const benchRun = {
    kind,
    databaseDetail: database.detail,
    databaseVersion,
    machine: currentMachine(),
    date: new Date(),
    settings,
    routes: results
  }
  yield* say(`\n${terminalTable(benchRun)}\n`)
  writeMarkdown(docsFile, benchRun)
  yield* say(`Wrote the ${databaseTitle[kind]} section of docs/benchmarks.md`)
  const invalid = problems(results)
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
