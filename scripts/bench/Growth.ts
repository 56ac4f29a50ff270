/**
 * `npm run bench:growth`: many users connecting every provider at once. `BENCH_USERS` users (default 1,000) each
 * connect the four sandbox providers (Fitbit, Garmin, WHOOP, Dexcom) through the hosted connect flow over HTTPS,
 * and each connection backfills `BACKFILL_DAYS=30` days from the provider simulators, each simulator in a process
 * of its own. Measured: the time from the first user's creation to the last backfill's end, records stored per
 * second, CPU time and peak resident memory of every process (servers, simulators, and on PostgreSQL the database
 * backends of the run), the database pool's waiting queries, the database's size, and every error: a connection
 * not ending `Idle`, a 5xx of a server, a failed provider call, a non-2xx answer to the benchmark's requests.
 *
 * Layouts: one `ROLE=all` process on the embedded database (`DATABASE_URL` unset) or on PostgreSQL; and on
 * PostgreSQL also one `ROLE=api` process with two `ROLE=worker` processes, whose speed-up over the one process is
 * reported. The servers run compiled (`npm run build` first, which `npm run bench:growth` does). Writes its own
 * sections of `docs/benchmarks.md` (see `Report.ts`). Knobs: `BENCH_USERS`, `BENCH_GROWTH_CONCURRENCY` (users
 * connecting at once, default 8), `BENCH_GROWTH_LAYOUTS` (`single,split`; `split` needs PostgreSQL),
 * `BENCH_GROWTH_TIMEOUT` (seconds to wait for the backfills, default 7200).
 */
import { NodeRuntime } from "@effect/platform-node"
import type { BuiltinProvider } from "@pulsebridge/domain"
import { dexcomRecords } from "@pulsebridge/sandbox"
import { freshDatabase } from "@pulsebridge/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import type { Child, Sample } from "./GrowthProcesses.js"
import {
  cpuSeconds,
  directoryBytes,
  freePort,
  getText,
  parseMetrics,
  requireCompiled,
  runCommand,
  serveArgs,
  spawnChild,
  statusBytes,
  sumOf
} from "./GrowthProcesses.js"
import type { GrowthProcess, GrowthResult } from "./GrowthReport.js"
import { growthLines, writeGrowth } from "./GrowthReport.js"
import type { GrowthSimulatorSettings, SimulatorAnswers } from "./GrowthSimulator.js"
import type { Response } from "./Load.js"
import { BenchError, positiveFromEnv, requestOnce } from "./Load.js"
import type { DatabaseKind } from "./Report.js"
import { currentMachine, databaseTitle } from "./Report.js"

const docsFile = fileURLToPath(new URL("../../docs/benchmarks.md", import.meta.url))
const providers: ReadonlyArray<BuiltinProvider> = ["Fitbit", "Garmin", "WHOOP", "Dexcom"]
const backfillDays = 30
const seed = "pulsebridge-growth"
const redirectUrl = "https://growth.example.com/connected"
const dayMs = 86_400_000

export type Layout = "single" | "split"

const say = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), prefix))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

// ---------------------------------------------------------------------------------------------------------------
// The processes of one run
// ---------------------------------------------------------------------------------------------------------------

interface Simulator {
  readonly provider: BuiltinProvider
  readonly child: Child
  readonly baseUrl: string
  readonly clientId: string
  readonly clientSecret: string
}

const startSimulator = (provider: BuiltinProvider, nowMs: number, logDir: string) =>
  Effect.gen(function*() {
    const settings: GrowthSimulatorSettings = {
      provider,
      clientId: `pulsebridge-growth-${provider.toLowerCase()}`,
      clientSecret: crypto.randomBytes(24).toString("base64url"),
      seed,
      nowMs
    }
    const { child, match } = yield* spawnChild({
      name: `the ${provider} simulator`,
      args: ["--import", "tsx", path.join("scripts", "bench", "GrowthSimulator.ts")],
      env: { PULSEBRIDGE_BENCH_SIMULATOR: JSON.stringify(settings) },
      logFile: path.join(logDir, `simulator-${provider.toLowerCase()}.log`),
      ready: /^ready (\{.*\})$/m,
      stdin: true
    })
    const { baseUrl } = JSON.parse(match[1]!) as { baseUrl: string }
    return { provider, child, baseUrl, clientId: settings.clientId, clientSecret: settings.clientSecret } as Simulator
  })

interface Server {
  readonly name: string
  readonly role: "all" | "api" | "worker"
  readonly child: Child
  readonly metricsPort: number
}

const startServer = (
  name: string,
  role: Server["role"],
  env: Readonly<Record<string, string>>,
  logDir: string,
  ready: RegExp
) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const metricsPort = yield* freePort
    const runner = role === "worker"
      ? { RUNNER_HOST: "127.0.0.1", RUNNER_PORT: String(yield* freePort) }
      : {}
    const { child, match } = yield* spawnChild({
      name,
      args: serveArgs,
      env: { ...env, ...runner, ROLE: role, PORT: String(port), METRICS_PORT: String(metricsPort) },
      logFile: path.join(logDir, `${name.replace(/[^a-z0-9]+/gi, "-")}.log`),
      ready
    })
    return { server: { name, role, child, metricsPort } satisfies Server, port, match }
  })

const scrape = (server: Server) => Effect.map(getText(`http://127.0.0.1:${server.metricsPort}/metrics`), parseMetrics)

// ---------------------------------------------------------------------------------------------------------------
// The users' side: the API and the hosted connect flow, as an app and its users' browsers drive them
// ---------------------------------------------------------------------------------------------------------------

interface Client {
  readonly base: string
  readonly ca: string
  readonly apiKey: string
  readonly agent: https.Agent
  readonly browser: http.Agent
}

interface ConnectedUser {
  readonly index: number
  readonly id: string
  readonly token: string
  readonly connections: ReadonlyArray<string>
}

const expect = (what: string, response: Response, status: number) =>
  response.status === status
    ? Effect.succeed(response)
    : Effect.fail(new BenchError({ message: `${what} answered ${response.status}: ${response.body.slice(0, 300)}` }))

const api = (client: Client, method: "GET" | "POST", pathAndQuery: string, bearer: string, body?: unknown) =>
  requestOnce({
    url: `${client.base}${pathAndQuery}`,
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    ca: client.ca,
    agent: client.agent
  }, 120)

/** A request of the user's browser: to the provider's consent page (plain HTTP) or to our callback (HTTPS). */
const browser = (client: Client, url: string, form?: Record<string, string>) =>
  requestOnce({
    url,
    method: form === undefined ? "GET" : "POST",
    headers: form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" },
    body: form === undefined ? undefined : new URLSearchParams(form).toString(),
    ca: client.ca,
    agent: url.startsWith("https:") ? client.agent : client.browser
  }, 120)

const redirected = (what: string, response: Response) =>
  Effect.flatMap(expect(what, response, 302), () =>
    response.headers.location === undefined
      ? Effect.fail(new BenchError({ message: `${what} redirected without a location` }))
      : Effect.succeed(new URL(response.headers.location)))

/** One provider's connect flow for a user: connect session, consent page, consent form, our callback. */
const connectProvider = (client: Client, index: number, id: string, token: string, provider: BuiltinProvider) =>
  Effect.gen(function*() {
    const session = yield* api(client, "POST", `/api/v1/users/${id}/connections/sessions`, token, {
      provider,
      redirectUrl
    }).pipe(Effect.flatMap((response) => expect(`${provider} connect session`, response, 200)))
    const { authorizationUrl } = JSON.parse(session.body) as { authorizationUrl: string }
    yield* browser(client, authorizationUrl).pipe(
      Effect.flatMap((response) => expect(`the ${provider} consent page`, response, 200))
    )
    const callback = yield* browser(client, authorizationUrl, { decision: "approve", user: `growth-user-${index}` })
      .pipe(Effect.flatMap((response) => redirected(`the ${provider} consent form`, response)))
    // The callback URL names the server's public origin (localhost); the benchmark reaches it on 127.0.0.1.
    const final = yield* browser(client, `${client.base}${callback.pathname}${callback.search}`).pipe(
      Effect.flatMap((response) => redirected(`our ${provider} callback`, response))
    )
    const connectionId = final.searchParams.get("connectionId")
    if (final.searchParams.get("success") !== "true" || connectionId === null) {
      return yield* new BenchError({ message: `connecting ${provider} failed: ${final.search}` })
    }
    return connectionId
  })

/**
 * Creates user `index` and connects the four providers, one after the other, as one person would; a failed flow
 * ends the user's connecting, and the connections made before it are still waited for.
 */
const connectUser = (client: Client, index: number) =>
  Effect.gen(function*() {
    const created = yield* api(client, "POST", "/api/v1/users", client.apiKey, { externalUserId: `growth-${index}` })
      .pipe(Effect.flatMap((response) => expect("POST /api/v1/users", response, 201)))
    const { id, token } = JSON.parse(created.body) as { id: string; token: string }
    const connections: Array<string> = []
    for (const provider of providers) {
      const connected = yield* Effect.either(connectProvider(client, index, id, token, provider))
      if (connected._tag === "Left") {
        return { user: { index, id, token, connections }, problem: `user ${index}: ${connected.left.message}` }
      }
      connections.push(connected.right)
    }
    return { user: { index, id, token, connections } satisfies ConnectedUser, problem: undefined }
  })

interface ListedConnection {
  readonly id: string
  readonly provider: string
  readonly syncState: string
  readonly lastSyncedAt: string | null
  readonly syncError: string | null
}

type UserState =
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Done"; readonly lastSyncedAt: number }
  | { readonly _tag: "Failed"; readonly problem: string }

/** Whether all of a user's connections finished their backfill, from the user's connection listing. */
const userState = (client: Client, user: ConnectedUser) =>
  Effect.map(
    api(client, "GET", `/api/v1/users/${user.id}/connections`, user.token).pipe(
      Effect.flatMap((response) => expect("GET connections", response, 200))
    ),
    (response): UserState => {
      const listed = JSON.parse(response.body) as Array<ListedConnection>
      let last = 0
      for (const id of user.connections) {
        const connection = listed.find((c) => c.id === id)
        if (connection === undefined) return { _tag: "Failed", problem: `connection ${id} is not listed` }
        if (connection.syncState === "Error" || connection.syncState === "Stopped" || connection.syncError !== null) {
          return {
            _tag: "Failed",
            problem:
              `${connection.provider} of user ${user.index} ended ${connection.syncState}: ${connection.syncError}`
          }
        }
        if (connection.syncState !== "Idle" || connection.lastSyncedAt === null) return { _tag: "Pending" }
        last = Math.max(last, Date.parse(connection.lastSyncedAt))
      }
      return { _tag: "Done", lastSyncedAt: last }
    }
  )

/**
 * Waits until every user's four backfills ended. Each round asks, in connection order, about pending users until
 * `probe` of them are still pending (the earlier users finish first), so the polling stays a small load next to
 * the sync; a round ends with a one-second pause. The time a backfill ended is its `lastSyncedAt`, not the time the
 * poll saw it.
 */
const awaitBackfills = (
  client: Client,
  users: ReadonlyArray<ConnectedUser>,
  deadline: number,
  report: (done: number) => Effect.Effect<void>,
  probe = 6
) =>
  Effect.gen(function*() {
    let lastReport = Date.now()
    const pending = [...users]
    const problems: Array<string> = []
    const failedPolls: Array<string> = []
    let last = 0
    let polls = 0
    while (pending.length > 0) {
      if (Date.now() > deadline) {
        problems.push(`${pending.length} users still had a backfill running at the deadline`)
        break
      }
      let stillPending = 0
      let i = 0
      while (i < pending.length && stillPending < probe) {
        // A failed listing (a 5xx, which the servers' metrics count as an error) leaves the user pending.
        const state = yield* userState(client, pending[i]!).pipe(
          Effect.tapError((error) => Effect.sync(() => failedPolls.push(error.message))),
          Effect.orElseSucceed((): UserState => ({ _tag: "Pending" }))
        )
        polls++
        if (state._tag === "Pending") {
          stillPending++
          i++
        } else {
          if (state._tag === "Done") last = Math.max(last, state.lastSyncedAt)
          else problems.push(state.problem)
          pending.splice(i, 1)
        }
      }
      if (pending.length > 0) yield* Effect.sleep("1 second")
      if (Date.now() - lastReport >= 30_000) {
        lastReport = Date.now()
        yield* report(users.length - pending.length)
      }
    }
    if (failedPolls.length > 0) {
      problems.push(`${failedPolls.length} connection listings failed, the first: ${failedPolls[0]!.slice(0, 300)}`)
    }
    return { lastSyncedAt: last, problems, polls }
  })

// ---------------------------------------------------------------------------------------------------------------
// Samplers: pool waits from each server's metrics, CPU of the database backends of the run (PostgreSQL)
// ---------------------------------------------------------------------------------------------------------------

interface PoolWaits {
  max: number
  sum: number
  samples: number
}

const sampleEverySecond = (
  servers: ReadonlyArray<Server>,
  waits: Map<string, PoolWaits>,
  backends: Map<number, { start: number; latest: number }>,
  database: pg.Client | undefined
) =>
  Effect.gen(function*() {
    for (const server of servers) {
      const samples = yield* scrape(server).pipe(Effect.orElseSucceed((): Array<Sample> => []))
      const waiting = sumOf(samples, "pulsebridge_db_pool_waiting")
      const entry = waits.get(server.name) ?? { max: 0, sum: 0, samples: 0 }
      entry.max = Math.max(entry.max, waiting)
      entry.sum += waiting
      entry.samples++
      waits.set(server.name, entry)
    }
    if (database !== undefined) yield* sampleBackends(database, backends, false)
  }).pipe(Effect.zipRight(Effect.sleep("1 second")), Effect.forever)

/** The CPU seconds of the database's backends; at the start, what they had used already is noted to subtract. */
const sampleBackends = (
  database: pg.Client,
  backends: Map<number, { start: number; latest: number }>,
  atStart: boolean
) =>
  Effect.promise(async () => {
    const { rows } = await database.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database()"
    )
    for (const { pid } of rows) {
      const cpu = cpuSeconds(pid)
      if (cpu === undefined) continue
      const entry = backends.get(pid)
      if (entry === undefined) backends.set(pid, { start: atStart ? cpu : 0, latest: cpu })
      else entry.latest = cpu
    }
  }).pipe(Effect.ignore)

// ---------------------------------------------------------------------------------------------------------------
// Checks on PostgreSQL: what each connection stored, and for Dexcom exactly the simulator's readings
// ---------------------------------------------------------------------------------------------------------------

const storedChecks = (database: pg.Client, nowMs: number) =>
  Effect.promise(async () => {
    const problems: Array<string> = []
    const { rows } = await database.query<{
      id: string
      provider: string
      provider_user_id: string
      backfill_from: string | null
      activity: number
      load: number
      readings: number
      distinct_readings: number
    }>(`
      select c.id, c.provider, c.provider_user_id, s.backfill_from::text as backfill_from,
        (select count(*)::int from daily_activity a where a.connection_id = c.id) as activity,
        (select count(*)::int from daily_load l where l.connection_id = c.id) as load,
        (select count(*)::int from glucose_readings g where g.connection_id = c.id) as readings,
        (select count(distinct g.provider_record_id)::int from glucose_readings g where g.connection_id = c.id)
          as distinct_readings
      from connections c left join sync_state s on s.connection_id = c.id
    `)
    const perProvider: Record<string, { connections: number; min: number; max: number }> = {}
    for (const row of rows) {
      const stored = row.provider === "Dexcom" ? row.readings : row.provider === "WHOOP" ? row.load : row.activity
      const entry = perProvider[row.provider] ?? { connections: 0, min: Infinity, max: 0 }
      entry.connections++
      entry.min = Math.min(entry.min, stored)
      entry.max = Math.max(entry.max, stored)
      perProvider[row.provider] = entry
      if (stored === 0) problems.push(`${row.provider} connection ${row.id} stored nothing`)
      if (row.provider === "Dexcom") {
        // What the server asked for: from a day before its first planned day (Dexcom ranges are padded by a day) to
        // the simulator's newest reading; the readings served for it, each stored once.
        const start = Date.parse(`${row.backfill_from}T00:00:00Z`) - dayMs
        const expected = dexcomRecords(seed, row.provider_user_id, "egv", { start, end: nowMs }, nowMs).length
        if (row.readings !== expected || row.distinct_readings !== row.readings) {
          problems.push(
            `Dexcom connection ${row.id}: ${row.readings} readings stored (${row.distinct_readings} distinct), ` +
              `the simulator served ${expected}`
          )
        }
      }
    }
    return { perProvider, problems }
  })

// ---------------------------------------------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------------------------------------------

const readyAll = /PulseBridge is running[\s\S]*?\(id ([0-9a-f-]{36})\)[\s\S]*?(pb_sk_[A-Za-z0-9_-]+)/

const runLayout = (kind: DatabaseKind, layout: Layout, users: number, concurrency: number, timeoutSeconds: number) =>
  Effect.gen(function*() {
    const dataDir = yield* tempDir("pulsebridge-growth-")
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), `pulsebridge-growth-logs-${kind}-${layout}-`))
    const adminUrl = process.env["DATABASE_URL"]
    const databaseUrl = kind === "postgres" ? yield* freshDatabase(adminUrl!) : undefined
    const secretKey = crypto.randomBytes(32).toString("base64url")
    const common: Record<string, string> = {
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      SECRET_KEY: secretKey,
      // One app creates a thousand users in a minute: over the per-key default, which guards a public API.
      RATE_LIMIT: "off",
      BACKFILL_DAYS: String(backfillDays),
      // Yearly, so that no periodic sync runs into the measurement.
      SYNC_CRON: "0 0 1 1 *",
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl })
    }
    yield* say(`Growth, ${databaseTitle[kind]}, ${layoutTitle[layout]}: ${users} users; logs in ${logDir}`)

    const nowMs = Date.now()
    const simulators = yield* Effect.forEach(providers, (provider) => startSimulator(provider, nowMs, logDir), {
      concurrency: "unbounded"
    })
    const first = yield* startServer(
      layout === "single" ? "server" : "api",
      layout === "single" ? "all" : "api",
      common,
      logDir,
      readyAll
    )
    const appId = first.match[1]!
    const apiKey = first.match[2]!
    const workers = layout === "single" ? [] : yield* Effect.forEach(
      ["worker-1", "worker-2"],
      (name) => Effect.map(startServer(name, "worker", common, logDir, /PulseBridge is running/), (s) => s.server)
    )
    const servers = [first.server, ...workers]

    for (const simulator of simulators) {
      yield* runCommand([
        "provider-credentials",
        "set",
        "--app",
        appId,
        "--provider",
        simulator.provider,
        "--client-id",
        simulator.clientId,
        "--client-secret",
        simulator.clientSecret,
        "--auth-base-url",
        simulator.baseUrl,
        "--token-base-url",
        simulator.baseUrl,
        "--api-base-url",
        simulator.baseUrl
      ], common)
    }

    const ca = fs.readFileSync(path.join(dataDir, "tls", "cert.pem"), "utf8")
    const client: Client = {
      base: `https://127.0.0.1:${first.port}`,
      ca,
      apiKey,
      agent: new https.Agent({ keepAlive: true, maxSockets: concurrency * 2, ca }),
      browser: new http.Agent({ keepAlive: true, maxSockets: concurrency * 2 })
    }
    const database = databaseUrl === undefined ? undefined : yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const c = new pg.Client({ connectionString: databaseUrl })
        await c.connect()
        return c
      }),
      (c) => Effect.promise(() => c.end())
    )

    // The clock starts here: every process is up, nothing has been asked of them yet.
    const children = [...servers.map((s) => s.child), ...simulators.map((s) => s.child)]
    const cpuAtStart = new Map(children.map((child) => [child.pid, cpuSeconds(child.pid) ?? Number.NaN]))
    const backends = new Map<number, { start: number; latest: number }>()
    if (database !== undefined) yield* sampleBackends(database, backends, true)
    const waits = new Map<string, PoolWaits>()
    const sampler = yield* Effect.fork(sampleEverySecond(servers, waits, backends, database))
    const startedAt = Date.now()
    const ownCpuAtStart = process.cpuUsage()
    const loadAverageAtStart = os.loadavg()[0] ?? 0

    let connectProblems: Array<string> = []
    let connectedAt = 0
    let done = 0
    const connected = yield* Effect.forEach(
      Array.from({ length: users }, (_, i) => i + 1),
      (index) =>
        connectUser(client, index).pipe(
          Effect.tap(() =>
            Effect.sync(() => {
              done++
              if (done % 50 === 0) {
                process.stdout.write(
                  `  ${((Date.now() - startedAt) / 1000).toFixed(0)} s: ${done} users connected, load average ${
                    (os.loadavg()[0] ?? 0).toFixed(1)
                  }\n`
                )
              }
            })
          ),
          Effect.either
        ),
      { concurrency }
    )
    connectedAt = Date.now()
    const connectedUsers = connected.flatMap((either) =>
      either._tag === "Right" && either.right.user.connections.length > 0 ? [either.right.user] : []
    )
    connectProblems = connected.flatMap((either) =>
      either._tag === "Left"
        ? [`user creation: ${either.left.message}`]
        : either.right.problem === undefined
        ? []
        : [either.right.problem]
    )
    yield* say(
      `  connect flows done in ${((connectedAt - startedAt) / 1000).toFixed(1)} s ` +
        `(${connectProblems.length} failed); waiting for the backfills`
    )
    const progress = (finished: number) =>
      Effect.forEach(servers, scrape).pipe(
        Effect.map((lists) => sumOf(lists.flat(), "pulsebridge_sync_records_stored_total")),
        Effect.flatMap((records) =>
          say(
            `  ${((Date.now() - startedAt) / 1000).toFixed(0)} s: ${finished} of ${connectedUsers.length} users ` +
              `synced, ${records.toLocaleString("en-US")} records stored, load average ${
                (os.loadavg()[0] ?? 0).toFixed(1)
              }`
          )
        ),
        Effect.ignore
      )
    const waited = yield* awaitBackfills(client, connectedUsers, startedAt + timeoutSeconds * 1000, progress)
    const endedAt = Date.now()
    yield* Fiber.interrupt(sampler)
    if (database !== undefined) yield* sampleBackends(database, backends, false)

    const metrics = yield* Effect.forEach(
      servers,
      (server) => Effect.map(scrape(server), (samples) => ({ server, samples }))
    )
    const all = metrics.flatMap((m) => m.samples)
    const recordsByProvider = Object.fromEntries(
      providers.map((provider) => [
        provider,
        sumOf(all, "pulsebridge_sync_records_stored_total", { provider: provider.toLowerCase() })
      ])
    )
    const records = sumOf(all, "pulsebridge_sync_records_stored_total")
    const quarantined = sumOf(all, "pulsebridge_sync_records_quarantined_total")
    const providerErrors = sumOf(all, "pulsebridge_sync_provider_errors_total")
    const serverErrors = all
      .filter((s) => s.name === "pulsebridge_http_requests_total" && (s.labels["status"] ?? "").startsWith("5"))
      .reduce((total, s) => total + s.value, 0)
    const simulatorFailures = yield* Effect.forEach(
      simulators,
      (simulator) =>
        Effect.map(getText(`${simulator.baseUrl}/_bench/answers`), (text) => {
          const { byStatus } = JSON.parse(text) as SimulatorAnswers
          const failed = Object.entries(byStatus).filter(([status]) => Number(status) >= 400)
          return failed.length === 0
            ? []
            : [`the ${simulator.provider} simulator answered ${failed.map(([s, n]) => `${n} × ${s}`).join(", ")}`]
        })
    ).pipe(Effect.map((lists) => lists.flat()))

    const stored = database === undefined ? undefined : yield* storedChecks(database, nowMs)
    const databaseBytes = database === undefined
      ? directoryBytes(path.join(dataDir, "pg"))
      : Number(
        (yield* Effect.promise(() =>
          database.query<{ size: string }>("select pg_database_size(current_database())::text as size")
        )).rows[0]!.size
      )

    const processes: Array<GrowthProcess> = children.map((child) => {
      const server = servers.find((s) => s.child === child)
      const wait = server === undefined ? undefined : waits.get(server.name)
      return {
        name: server === undefined ? child.name : `${server.name} (ROLE=${server.role})`,
        cpuSeconds: (cpuSeconds(child.pid) ?? Number.NaN) - (cpuAtStart.get(child.pid) ?? Number.NaN),
        peakRssBytes: statusBytes(child.pid, "VmHWM"),
        poolWaiting: wait === undefined ? undefined : { max: wait.max, mean: wait.sum / Math.max(1, wait.samples) }
      }
    })
    const ownCpu = process.cpuUsage(ownCpuAtStart)
    processes.push({
      name: "the benchmark (the app and its users' browsers)",
      cpuSeconds: (ownCpu.user + ownCpu.system) / 1e6,
      peakRssBytes: statusBytes(process.pid, "VmHWM"),
      poolWaiting: undefined
    })
    if (database !== undefined) {
      processes.push({
        name: `PostgreSQL backends of the run (${backends.size})`,
        cpuSeconds: [...backends.values()].reduce((total, b) => total + b.latest - b.start, 0),
        peakRssBytes: undefined,
        poolWaiting: undefined
      })
    }

    const lastSyncedAt = waited.lastSyncedAt > 0 ? waited.lastSyncedAt : endedAt
    const seconds = (lastSyncedAt - startedAt) / 1000
    const result: GrowthResult = {
      kind,
      layout,
      users,
      connections: connectedUsers.reduce((total, user) => total + user.connections.length, 0),
      backfillDays,
      concurrency,
      seconds,
      connectSeconds: (connectedAt - startedAt) / 1000,
      records,
      recordsByProvider,
      quarantined,
      providerRetries: providerErrors,
      processes,
      databaseBytes,
      storedPerProvider: stored?.perProvider,
      errors: {
        connectFlows: connectProblems.length,
        backfills: waited.problems.length,
        serverErrors,
        simulatorFailures: simulatorFailures.length,
        stored: stored?.problems.length ?? 0
      },
      problems: [
        ...connectProblems.slice(0, 10),
        ...waited.problems.slice(0, 10),
        ...(serverErrors > 0 ? [`the servers answered ${serverErrors} requests with a 5xx`] : []),
        ...simulatorFailures,
        ...(stored?.problems.slice(0, 10) ?? [])
      ],
      polls: waited.polls,
      cores: os.cpus().length,
      loadAverageAtStart,
      loadAverage: os.loadavg()[0] ?? 0
    }
    yield* say(growthLines(result).map((line) => `  ${line}`).join("\n"))
    return result
  }).pipe(Effect.scoped)

const layoutTitle: Record<Layout, string> = {
  single: "one process (ROLE=all)",
  split: "ROLE=api + 2 × ROLE=worker"
}

const program = Effect.gen(function*() {
  yield* requireCompiled
  const users = yield* positiveFromEnv("BENCH_USERS", 1000)
  const concurrency = yield* positiveFromEnv("BENCH_GROWTH_CONCURRENCY", 8)
  const timeoutSeconds = yield* positiveFromEnv("BENCH_GROWTH_TIMEOUT", 7200)
  const machine = currentMachine()
  const adminUrl = process.env["DATABASE_URL"]
  const kind: DatabaseKind = adminUrl !== undefined && adminUrl !== "" ? "postgres" : "pglite"
  const asked = (process.env["BENCH_GROWTH_LAYOUTS"] ?? "single,split").split(",").map((s) => s.trim())
  const layouts = (["single", "split"] as const).filter((layout) =>
    asked.includes(layout) && (layout === "single" || kind === "postgres")
  )
  if (layouts.length === 0) {
    return yield* new BenchError({ message: "BENCH_GROWTH_LAYOUTS names no layout this database can run" })
  }
  const results: Array<GrowthResult> = []
  for (const layout of layouts) results.push(yield* runLayout(kind, layout, users, concurrency, timeoutSeconds))
  writeGrowth(docsFile, { kind, machine, date: new Date(), results })
  yield* say(`Wrote the growth section of ${databaseTitle[kind]} in docs/benchmarks.md`)
  const invalid = results.flatMap((r) => r.problems.map((p) => `${layoutTitle[r.layout]}: ${p}`))
  if (invalid.length > 0) {
    return yield* new BenchError({ message: `the growth benchmark had errors:\n  ${invalid.join("\n  ")}` })
  }
})

NodeRuntime.runMain(program, { disablePrettyLogger: true })
