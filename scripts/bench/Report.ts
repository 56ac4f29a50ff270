/**
 * The benchmarks' output: the table printed to the terminal and `docs/benchmarks.md`.
 *
 * The file holds sections, each named `<name>:<kind of database>` and kept between the HTML comments
 * `<!-- name:kind -->` and `<!-- /name:kind -->`: `bench` (`npm run bench`: backfill and routes), `growth`
 * (`npm run bench:growth`), `startup` (start-up and CLI), and any other a measurement adds. A measurement writes
 * its section with `writeSection`, which keeps every other section as it was and rebuilds the summary at the top
 * of the file: one table per kind of database with a row for each piece of work of the catalogue below
 * (`summaryCatalogue`). A section brings its rows of that table as `SummaryRow`s, stored as JSON in a comment at its
 * start (`<!-- summary [...] -->`), so each row is read from the section that measured it; a row no section has
 * measured yet says which command measures it.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import type { BackfillResult, MemorySample } from "./Backfill.js"
import type { LoadSettings, Measurement } from "./Load.js"
import type { RouteMemory } from "./RouteMemory.js"
import { routeMemoryMarkdown } from "./RouteMemory.js"
import type { StartupResult, Timings } from "./Startup.js"
import { startupTargets } from "./Startup.js"

export type DatabaseKind = "pglite" | "postgres"

export const databaseTitle: Record<DatabaseKind, string> = {
  pglite: "Embedded PGlite",
  postgres: "PostgreSQL (DATABASE_URL)"
}

export interface RouteResult {
  readonly route: string
  readonly description: string
  readonly pulsebridge: Measurement
  readonly baseline: Measurement
  /** The framework's floor (`bench/EffectFloor.ts`), for the routes that measure it. */
  readonly floor?: Measurement | undefined
  /** The smallest acceptable PulseBridge req/s over the baseline's, where the route has a target. */
  readonly targetRatio?: number | undefined
  readonly load: LoadSettings
  /** The row of the summary table this route measures, if any (see `summaryCatalogue`). */
  readonly summary?: RouteSummary | undefined
}

export interface RouteSummary {
  readonly key: string
  readonly goal: string
  /** The smallest req/s over the baseline's that meets the goal; without it the row is not judged. */
  readonly minRatio?: number | undefined
  /** The largest p99 over the baseline's that meets the goal. */
  readonly maxP99Ratio?: number | undefined
  /** What the baseline is, when not the plain `node:https` + `pg` one. */
  readonly baselineName?: string | undefined
  /**
   * Judged against another route of the same run (by its summary key) instead of the baseline: at least `minRatio`
   * its req/s, and at most `maxCpuRatio` its server (and database) CPU per request.
   */
  readonly versus?: {
    readonly key: string
    readonly name: string
    readonly minRatio: number
    readonly maxCpuRatio: number
  } | undefined
}

/** The backfill's target: done within this many seconds. */
export const backfillTargetSeconds = 30
/** The performance goal of the 365-day backfill: its time and its memory growth (RSS, start to peak). */
export const backfillGoalSeconds = 5
export const backfillGoalMiB = 100

export interface Machine {
  readonly cpuModel: string
  readonly cpuCount: number
  readonly memoryGiB: number
  readonly os: string
  readonly node: string
  /** The 1-minute load average when the run started: other work on the machine skews the figures. */
  readonly loadAverage: number
}

export interface BenchRun {
  readonly kind: DatabaseKind
  /** How the database was run, e.g. "in a temporary data dir". */
  readonly databaseDetail: string
  readonly databaseVersion: string
  readonly machine: Machine
  readonly date: Date
  readonly settings: LoadSettings
  readonly backfill: BackfillResult
  readonly routes: ReadonlyArray<RouteResult>
  /** Start-up and CLI timings (`bench/Startup.ts`), when measured. */
  readonly startup?: StartupResult | undefined
  /** Rows of the summary table measured by other parts of the run (start-up and CLI timings, ...). */
  readonly extraSummary?: ReadonlyArray<SummaryRow> | undefined
  /** The memory of the route load (`bench/RouteMemory.ts`), when measured. */
  readonly routeMemory?: RouteMemory | undefined
}

export const currentMachine = (): Machine => {
  const cpus = os.cpus()
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown CPU",
    cpuCount: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    loadAverage: os.loadavg()[0] ?? 0
  }
}

const integer = (n: number) => Math.round(n).toLocaleString("en-US")
/** Requests per second: whole above 100, else with a decimal (a heavy route answers a few per second). */
export const rate = (n: number) => n >= 100 ? integer(n) : n.toFixed(1)
const millis = (n: number) => Number.isInteger(n) ? `${n}` : n.toFixed(2)
const isValid = (route: RouteResult) =>
  route.pulsebridge.problems.length === 0 && route.baseline.problems.length === 0 &&
  (route.floor?.problems.length ?? 0) === 0
const formatRatio = (n: number) => `${n.toFixed(2)}×`
/** PulseBridge's req/s over the baseline's; meaningless when a run answered errors, which are cheap to send. */
const ratio = (route: RouteResult) =>
  isValid(route) ? formatRatio(route.pulsebridge.requestsPerSecond / route.baseline.requestsPerSecond) : "invalid"

/** Every problem of the runs, one line each, e.g. `POST /api/v1/users, PulseBridge: 93 × 500`. */
export const problems = (routes: ReadonlyArray<RouteResult>): Array<string> =>
  routes.flatMap((route) => [
    ...route.pulsebridge.problems.map((problem) => `${route.route}, PulseBridge: ${problem}`),
    ...route.baseline.problems.map((problem) => `${route.route}, baseline: ${problem}`),
    ...(route.floor?.problems ?? []).map((problem) => `${route.route}, Effect floor: ${problem}`)
  ])

/** Every problem of a run, the backfill's included. */
export const runProblems = (run: Pick<BenchRun, "backfill" | "routes">): Array<string> => [
  ...run.backfill.problems.map((problem) => `Dexcom backfill: ${problem}`),
  ...problems(run.routes)
]

const met = (ok: boolean) => ok ? "met" : "not met"

/** Whether the route meets its req/s target; undefined without a target or with invalid runs. */
const meetsTarget = (route: RouteResult): boolean | undefined =>
  route.targetRatio === undefined || !isValid(route)
    ? undefined
    : route.pulsebridge.requestsPerSecond / route.baseline.requestsPerSecond >= route.targetRatio

const backfillValid = (backfill: BackfillResult) => backfill.problems.length === 0
const backfillMet = (backfill: BackfillResult) => backfill.seconds < backfillTargetSeconds
const readingsPerSecond = (backfill: BackfillResult) => backfill.readings / backfill.seconds

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20).toLocaleString("en-US")} MiB`
const growth = (start: number, peak: number) => `${mib(start)} → ${mib(peak)} (+${mib(Math.max(0, peak - start))})`
const memoryLine = (memory: BackfillResult["memory"], key: keyof MemorySample) =>
  growth(memory.start[key], memory.peak[key])
const seconds = (n: number | undefined) => n === undefined || Number.isNaN(n) ? "unknown" : `${n.toFixed(1)} s`

/** The backfill's figures for the terminal. */
const backfillLines = (backfill: BackfillResult): Array<string> => [
  `Dexcom backfill of ${backfill.days} days: ${backfill.seconds.toFixed(1)} s ` +
  `(target < ${backfillTargetSeconds} s: ${backfillValid(backfill) ? met(backfillMet(backfill)) : "invalid"}), ` +
  `${integer(backfill.readings)} readings (simulator: ${integer(backfill.expectedReadings)}), ` +
  `${integer(readingsPerSecond(backfill))} readings/s, ${integer(backfill.providerRequests)} provider requests`,
  `  memory of the server process, start → peak: heap used ${memoryLine(backfill.memory, "heapUsed")}, ` +
  `RSS ${memoryLine(backfill.memory, "rss")}, external ${memoryLine(backfill.memory, "external")}`
]

/** The side-by-side table for the terminal. */
export const terminalTable = (run: BenchRun): string => {
  const header = ["route", "server", "req/s", "p50 ms", "p99 ms", "requests", "vs baseline"]
  const rows = run.routes.flatMap((route) => [
    [
      route.route,
      "PulseBridge",
      rate(route.pulsebridge.requestsPerSecond),
      millis(route.pulsebridge.p50),
      millis(route.pulsebridge.p99),
      integer(route.pulsebridge.requests),
      ratio(route)
    ],
    [
      "",
      "baseline",
      rate(route.baseline.requestsPerSecond),
      millis(route.baseline.p50),
      millis(route.baseline.p99),
      integer(route.baseline.requests),
      isValid(route) ? formatRatio(1) : "invalid"
    ],
    ...(route.floor === undefined ? [] : [[
      "",
      "Effect floor",
      rate(route.floor.requestsPerSecond),
      millis(route.floor.p50),
      millis(route.floor.p99),
      integer(route.floor.requests),
      isValid(route) ? formatRatio(route.floor.requestsPerSecond / route.baseline.requestsPerSecond) : "invalid"
    ]])
  ])
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)).join("  ")
  const targets = run.routes.flatMap((route) => {
    const ok = meetsTarget(route)
    return ok === undefined ? [] : [
      `${route.route}: target >= ${formatRatio(route.targetRatio!)} the baseline's req/s: ${met(ok)}`
    ]
  })
  const invalid = runProblems(run).map((problem) => `INVALID ${problem}`)
  return [
    ...backfillLines(run.backfill),
    "",
    line(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...rows.map(line),
    ...targets,
    ...invalid,
    ...(run.startup === undefined ? [] : ["", ...startupLines(run.startup)])
  ].join("\n")
}

// ---- start-up and CLI ----

const secondsOf = (t: Timings) => `median ${t.median.toFixed(2)} s, max ${t.max.toFixed(2)} s`

/** The start-up rows: what, median, max, target, met. */
const startupRows = (startup: StartupResult): Array<[string, Timings, number]> => [
  ["`npm start` to the first 200 of `/health/ready`, new data dir", startup.fresh, startupTargets.fresh],
  ["`npm start` to the first 200 of `/health/ready`, existing data dir", startup.warm, startupTargets.warm],
  ...startup.cli.map((
    { command, timings }
  ): [string, Timings, number] => [`\`${command}\``, timings, startupTargets.cli])
]

const startupLines = (startup: StartupResult): Array<string> => [
  `Start-up and CLI (${startup.runs} runs each):`,
  ...startupRows(startup).map(([what, t, target]) =>
    `  ${what.replaceAll("`", "")}: ${secondsOf(t)} (target <= ${target} s: ${met(t.median <= target)})`
  )
]

const startupTable = (startup: StartupResult) =>
  [
    `### Start-up and CLI`,
    "",
    `Each measured ${startup.runs} times (see \`scripts/bench/Startup.ts\`); the target applies to the median.`,
    "",
    "| what | median | max | target | |",
    "|---|---|---|---|---|",
    ...startupRows(startup).map(([what, t, target]) =>
      `| ${what} | ${t.median.toFixed(2)} s | ${t.max.toFixed(2)} s | <= ${target} s | ${met(t.median <= target)} |`
    )
  ].join("\n")

/** The CPU cells of a measurement: the server's threads and the database's processes, per request. */
const cpuCells = (m: Measurement) =>
  `${m.serverCpuMsPerRequest === undefined ? "-" : `${m.serverCpuMsPerRequest.toFixed(2)} ms`} | ${
    m.databaseCpuMsPerRequest === undefined ? "-" : `${m.databaseCpuMsPerRequest.toFixed(2)} ms`
  }`

const loadLine = (settings: LoadSettings) =>
  `autocannon, ${settings.connections} connection${settings.connections === 1 ? "" : "s"}, pipelining ` +
  `${settings.pipelining}, ${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured` +
  ((settings.slices ?? 1) > 1 ? ` in ${settings.slices} slices taken in turn with the route's other servers` : "") +
  ", per server"

const routeTable = (route: RouteResult, settings: LoadSettings) => {
  const invalid = problems([route])
  return [
    `### ${route.route}`,
    "",
    route.description,
    ...(loadLine(route.load) === loadLine(settings) ? [] : ["", `Load of this route: ${loadLine(route.load)}.`]),
    "",
    "| Server | req/s (mean) | p50 (ms) | p99 (ms) | Requests | req/s vs baseline | server CPU / request | " +
    "database CPU / request |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    `| PulseBridge | ${rate(route.pulsebridge.requestsPerSecond)} | ${millis(route.pulsebridge.p50)} | ${
      millis(route.pulsebridge.p99)
    } | ${integer(route.pulsebridge.requests)} | **${ratio(route)}** | ${cpuCells(route.pulsebridge)} |`,
    `| Baseline (node:https + pg) | ${rate(route.baseline.requestsPerSecond)} | ${millis(route.baseline.p50)} | ${
      millis(route.baseline.p99)
    } | ${integer(route.baseline.requests)} | ${isValid(route) ? formatRatio(1) : "invalid"} | ${
      cpuCells(route.baseline)
    } |`,
    ...(route.floor === undefined ? [] : [
      `| Effect floor (HttpApi + sql-pg, nothing else) | ${rate(route.floor.requestsPerSecond)} | ${
        millis(route.floor.p50)
      } | ${millis(route.floor.p99)} | ${integer(route.floor.requests)} | ${
        isValid(route) ? formatRatio(route.floor.requestsPerSecond / route.baseline.requestsPerSecond) : "invalid"
      } | ${cpuCells(route.floor)} |`,
      "",
      `PulseBridge against the floor: ${
        formatRatio(route.pulsebridge.requestsPerSecond / route.floor.requestsPerSecond)
      } its req/s${
        route.pulsebridge.serverCpuMsPerRequest === undefined || route.floor.serverCpuMsPerRequest === undefined
          ? ""
          : `, ${
            formatRatio(route.pulsebridge.serverCpuMsPerRequest / route.floor.serverCpuMsPerRequest)
          } its server CPU per request`
      } (goal: >= 0.8× the req/s, at most 1.25× the CPU).`,
      "",
      "The Effect floor is a server of nothing but the platform PulseBridge is built on (`scripts/bench/EffectFloor.ts`): " +
      "an `HttpApi` with this one endpoint and a bearer middleware on `@effect/platform-node` over `node:https`, and " +
      "`@effect/sql-pg` running the baseline's two statements. What separates it from the baseline is the framework's " +
      "cost; what separates PulseBridge from it is PulseBridge's own (request log, metrics, rate limits, deadline, " +
      "checks)."
    ]),
    ...(route.targetRatio === undefined ? [] : [
      "",
      `Target: at least ${formatRatio(route.targetRatio)} the baseline's req/s: **${
        meetsTarget(route) === undefined ? "invalid" : met(meetsTarget(route)!)
      }**.`
    ]),
    ...(invalid.length === 0 ? [] : [
      "",
      "**These figures are invalid**: the runs did not answer only 2xx, and the benchmark failed.",
      "",
      ...invalid.map((problem) => `- ${problem}`)
    ])
  ].join("\n")
}

const backfillTable = (backfill: BackfillResult, kind: DatabaseKind) => {
  const embeddedNote = kind === "pglite" ? " (the embedded database included)" : ""
  const valid = backfillValid(backfill)
  const stored = (storedCount: number, expected: number) =>
    `${integer(storedCount)} (the simulator served ${integer(expected)})`
  return [
    `### Dexcom backfill, ${backfill.days} days`,
    "",
    `Connecting Dexcom for a user with \`BACKFILL_DAYS=${backfill.days}\` on ${backfill.to}: the server read ` +
    `${backfill.from} to ${backfill.to} (Dexcom requests padded by a day) from the simulator in its own process, ` +
    "timed from the OAuth callback to the connection listing showing `syncState: Idle`. Memory is this server's " +
    `process, sampled every 50 ms${
      backfill.memory.gc ? " from a full garbage collection just before the callback" : ""
    }; the peak of heap used includes garbage not yet collected, so it is an upper bound of what the backfill ` +
    "holds, and the heap once `Idle` shows what it kept.",
    "",
    "| Measure | Value |",
    "| --- | ---: |",
    `| Callback to \`Idle\` | **${backfill.seconds.toFixed(1)} s** |`,
    `| Target: under ${backfillTargetSeconds} s | **${valid ? met(backfillMet(backfill)) : "invalid"}** |`,
    `| Readings stored | ${stored(backfill.readings, backfill.expectedReadings)} |`,
    `| Readings per second | ${integer(readingsPerSecond(backfill))} |`,
    `| Events stored | ${stored(backfill.events, backfill.expectedEvents)} |`,
    `| Calibrations stored | ${stored(backfill.calibrations, backfill.expectedCalibrations)} |`,
    `| Data requests to the simulator | ${integer(backfill.providerRequests)} |`,
    `| Heap used: start → peak | ${memoryLine(backfill.memory, "heapUsed")} |`,
    `| RSS: start → peak | ${memoryLine(backfill.memory, "rss")} |`,
    `| External (incl. array buffers): start → peak | ${memoryLine(backfill.memory, "external")} |`,
    `| Heap used once \`Idle\`${backfill.memory.gc ? ", after a full garbage collection" : ""} | ` +
    `${mib(backfill.memory.end.heapUsed)} |`,
    `| CPU time of the server's process${embeddedNote} | ${seconds(backfill.cpuSeconds.server)} |`,
    `| CPU time of the simulator's process | ${seconds(backfill.cpuSeconds.simulator)} |`,
    ...(backfill.cpuSeconds.database === undefined
      ? []
      : [`| CPU time of the PostgreSQL backends serving the database | ${seconds(backfill.cpuSeconds.database)} |`]),
    ...(valid ? [] : [
      "",
      "**These figures are invalid**, and the benchmark failed:",
      "",
      ...backfill.problems.map((problem) => `- ${problem}`)
    ])
  ].join("\n")
}

export const machineLine = (machine: Machine) =>
  `${machine.cpuCount} × ${machine.cpuModel}, ${machine.memoryGiB} GiB RAM, ${machine.os}; ` +
  `1-minute load average ${machine.loadAverage.toFixed(1)} at the start`

const section = (run: BenchRun) => {
  const { machine, settings } = run
  return [
    `## ${databaseTitle[run.kind]}`,
    "",
    `- Date: ${run.date.toISOString().slice(0, 16).replace("T", " ")} UTC`,
    `- Machine: ${machineLine(machine)}`,
    `- Node.js: ${machine.node}`,
    `- Database: ${databaseTitle[run.kind]}, ${run.databaseDetail} (${run.databaseVersion})`,
    `- Load: ${loadLine(settings)} and route (unless a route says otherwise)`,
    "",
    backfillTable(run.backfill, run.kind),
    "",
    ...run.routes.flatMap((route) => [routeTable(route, settings), ""]),
    ...(run.routeMemory === undefined ? [] : [routeMemoryMarkdown(run.routeMemory), ""]),
    ...(run.startup === undefined ? [] : [startupTable(run.startup), ""])
  ].join("\n").trimEnd()
}

const intro = `# Benchmarks

This file is written by the benchmarks: \`npm run bench\` (\`scripts/bench.ts\`: the Dexcom backfill and the request
routes against a baseline), \`npm run bench:growth\` (\`scripts/bench/Growth.ts\`: many users connecting every
provider) and the start-up benchmark. Each run replaces its own section for its kind of database, keeps every other
section, and rebuilds the summary tables below from the figures the sections hold, so edits by hand are lost (except
in the sections at the end marked \`measured\`, which other measurements write and a run keeps).

Run them with the embedded database (\`npm run bench\`: PGlite in a temporary data dir) or against PostgreSQL
(\`DATABASE_URL=postgres://user@host:5432/postgres npm run bench\`: a fresh database is created on that server for
the run and dropped after it). \`BENCH_DURATION=3 npm run bench\` shortens the measured part of each run (seconds,
default 8) for a quick check; \`BENCH_CONNECTIONS\` sets the concurrent connections (default 10);
\`BENCH_SLICES\` into how many runs each server's measured time is cut (default 4): after a warm-up of each, a
route's servers take these runs in turn (PulseBridge, the baseline, the Effect floor, PulseBridge, ...), and each
server's figures add up its runs, so that a slower spell of a shared machine falls on all of them alike
(\`BENCH_SLICES=1\` measures each server in one run, one after the other);
\`BENCH_BACKFILL_DAYS\` the days of the backfill (default 365; 33 is the least the glucose read needs, for a quick
check of the routes); \`BENCH_CPU_PROFILE=<dir>\` writes CPU profiles of the backfill, of each of PulseBridge's
measured route runs and of the Effect floor's (\`floor-...\`) there (\`.cpuprofile\`, for Chrome DevTools or VS Code;
profiling slows the server down a little); \`BENCH_HEAP_PROFILE=<dir>\` records the same runs with the sampling heap
profiler instead, collected objects included (\`.heapprofile\`), and prints the bytes each run allocated per request,
a figure the machine's speed changes little (within about 5% from run to run). The terminal also shows the CPU time of the benchmark's process per request of each run, which other work
on the machine disturbs less than requests per second.
\`BENCH_ONLY=backfill\` runs the backfill alone (no routes are loaded and this file is left as it is).

What is measured: the whole PulseBridge server, started in-process exactly as \`pulsebridge serve\` composes it
(HTTPS with a self-signed certificate, the request middleware and its request logs, API key and user token
authentication, the sync engine on Effect Cluster, the services over \`@effect/sql-pg\`; configured from the
environment like \`serve\` but with \`BACKFILL_DAYS=365\` and a yearly \`SYNC_CRON\`, so that no periodic sync runs
into the measurements, and rate limits on, as \`serve\` has them, but with API key and user token buckets too large
for the load to empty; logs written to a file in the system temp directory instead of the terminal), on a fresh
database.

**Dexcom backfill.** The Dexcom simulator (\`@pulsebridge/sandbox\`, without its rate limits) runs in a process of
its own, with its clock held still, and the benchmark app's Dexcom credentials point at it. A user connects Dexcom
through the hosted connect flow over HTTPS (connect session, the simulator's consent form, our callback), which
backfills 365 days of 5-minute readings. The time runs from the callback request to the connection listing
(polled every 100 ms) showing \`syncState: Idle\`. Meanwhile the memory of the benchmark's process, which is the
server's (and, on the embedded database, the database's too), is sampled every 50 ms. Afterwards every stored
reading, event and calibration is compared by record id with what the simulator serves for the span the server
asked for (\`dexcomRecords\`), and readings sharing a time are counted as duplicates. Targets: under 30 s, memory
bounded (it should not grow with the length of the backfill).

**Routes.** Next to the server runs a baseline: a minimal \`node:https\` server with plain \`pg\`, no Effect and no
logging, that does the same database work for the same routes and answers the same JSON (checked before loading;
for the glucose read, byte for byte). autocannon, on a worker thread, loads each server in turn over HTTPS with
keep-alive connections, a warm-up run first; after each run one more request waits for the work the run left
behind. \`GET /api/v1/users/:id\` is also run against a third server, the Effect floor
(\`scripts/bench/EffectFloor.ts\`): nothing but an \`HttpApi\` with that one endpoint and a bearer middleware on
\`@effect/platform-node\` over \`node:https\`, and \`@effect/sql-pg\` running the baseline's two statements, so that
the share of the gap that belongs to the platform PulseBridge is built on is told apart from PulseBridge's own:

- \`GET /api/v1/users/:id/connections/glucose\`: look the bearer user token up by its SHA-256 hash, then read 30 days
  of the backfilled user's glucose with the three queries of \`HealthData.glucose\` (readings, events,
  calibrations); the baseline runs the same SQL and answers \`JSON.stringify\` of the rows. Target: at least 0.7×
  the baseline's requests per second.
- \`GET /api/v1/users/:id\`: look the bearer API key up by its SHA-256 hash, then read the user row.
- \`POST /api/v1/users\` for an existing \`externalUserId\`: the API key lookup, then one transaction with the user
  upsert and the insert of a fresh user token (the idempotent re-create path of the real service).

**Start-up and CLI** (\`scripts/bench/Startup.ts\`, also alone: \`npm run bench:startup\`). \`npm start\` is
spawned as a user runs it (the portal's staleness check, then the compiled command's \`serve --sandbox\`) and timed
to the first 200 of \`GET /health/ready\` over HTTPS, polled every 20 ms: on a new data dir (a new certificate and
secret key; on the embedded database a new database from the template and every migration, on PostgreSQL a new
database created for the run and migrated), then again on the same data dir and database (the warm start). Then
single CLI commands are timed to their exit on that migrated data dir with no server running, so that a command on
the embedded database opens the database itself: \`--help\`, \`operators list\` and \`users list --app\`. Each is
run \`BENCH_STARTUP_RUNS\` times (default 5); the median is held to the target (fresh start <= 6 s, warm start
<= 3 s, a CLI command <= 1 s) and the slowest run is shown beside it.

A run with any connection error, timeout or non-2xx answer, or a backfill that does not end \`Idle\` with exactly
the simulator's records, is marked invalid and makes \`npm run bench\` fail; a missed target does not. The load
generator, the simulator, the servers and the database share one machine, so compare the figures within a section
rather than across machines, and mind the load average a section gives.

**Growth.** \`npm run bench:growth\` builds the project (\`npm run build\`), then runs \`pulsebridge serve\` on compiled
JavaScript in child processes, as a deployment would, and the four provider simulators (Fitbit, Garmin, WHOOP,
Dexcom; \`@pulsebridge/sandbox\`) each in a process of its own, with their clocks held still and their rate limits
off. \`BENCH_USERS\` users (default 1,000) are created with the demo app's API key, and each connects the four
providers through the hosted connect flow over HTTPS (connect session, the simulator's consent form, our callback),
eight users at a time (\`BENCH_GROWTH_CONCURRENCY\`); each connection backfills 30 days (\`BACKFILL_DAYS=30\`). The
time runs from the first user's creation to the end of the last backfill (the latest \`lastSyncedAt\` once every
connection lists \`syncState: Idle\`; meanwhile the benchmark polls a few pending users' connection listings a
second, as an app would). Reported: records stored per second (the servers' \`pulsebridge_sync_records_stored_total\`),
CPU time and peak resident memory (\`VmHWM\`) of every process from \`/proc\`, on PostgreSQL the CPU time of the run's
database backends, the database pool's waiting queries (each server's \`/metrics\`, sampled every second), and the
database's size (\`pg_database_size\`, or the embedded database's data dir). Errors must be 0: a connect flow that
fails, a connection not ending \`Idle\` or with a sync error, a 5xx answer of a server, an error answer of a
simulator and, on PostgreSQL, a connection that stored nothing or a Dexcom connection whose readings are not exactly
the simulator's (provider calls the sync retried, e.g. after a timeout, are counted apart: they are not errors when
the retry succeeds). Each layout's figures end with what limits it first, read from them: a process near a full
core, queries waiting for a database pool connection, provider calls timing out (the simulators), or the machine's
CPU. Layouts: one \`ROLE=all\` process (both databases) and, on PostgreSQL, one \`ROLE=api\` process (which the users
talk to) with two \`ROLE=worker\` processes (which sync), whose speed-up over the one process is reported;
\`BENCH_GROWTH_LAYOUTS=single\` (or \`split\`) runs one of them. A quick check: \`BENCH_USERS=20 npm run bench:growth\`.`

/**
 * Sections other measurements write by hand between their own markers (`<!-- measured:name -->` ...
 * `<!-- /measured:name -->`), kept as they are after the benchmark's sections.
 */
const measuredSections = (previous: string): Array<string> =>
  [...previous.matchAll(/<!-- measured:([a-z-]+) -->[\s\S]*?<!-- \/measured:\1 -->/g)].map((match) => match[0])

// ---------------------------------------------------------------------------------------------------------------
// The summary table and the sections
// ---------------------------------------------------------------------------------------------------------------

/** One row of the summary table, as the section that measured it gives it. */
export interface SummaryRow {
  /** Which piece of work (a `key` of `summaryCatalogue`, or a new one, listed after the catalogue's). */
  readonly key: string
  /** The figure, e.g. "412 req/s, p99 43 ms". */
  readonly measured: string
  readonly baseline?: string | undefined
  /** PulseBridge against the baseline, e.g. "0.71×, p99 1.3×". */
  readonly ratio?: string | undefined
  readonly goal: string
  /** Whether the goal is met; undefined where the run is invalid or the row has no goal of its own. */
  readonly met: boolean | undefined
}

export interface SummaryEntry {
  readonly key: string
  readonly work: string
  readonly goal: string
  /** What to run to measure it. */
  readonly measuredBy: string
  readonly postgresOnly?: boolean
}

/** The rows of the summary table, in order: every piece of work the performance goals name. */
export const summaryCatalogue: ReadonlyArray<SummaryEntry> = [
  { key: "get-user", work: "`GET /api/v1/users/{id}`", goal: ">= 0.7×, p99 <= 2×", measuredBy: "`npm run bench`" },
  {
    key: "post-user",
    work: "`POST /api/v1/users` (existing user)",
    goal: ">= 0.7×, p99 <= 2×",
    measuredBy: "`npm run bench`"
  },
  {
    key: "glucose-30d",
    work: "`GET glucose`, 30 days, vs a baseline running the same SQL",
    goal: "see the stronger baseline",
    measuredBy: "`npm run bench`"
  },
  {
    key: "glucose-30d-strong",
    work: "`GET glucose`, 30 days, vs the stronger baseline, uncompressed",
    goal: "within 1.25× (>= 0.8× req/s)",
    measuredBy: "`npm run bench`"
  },
  {
    key: "glucose-30d-strong-compressed",
    work: "`GET glucose`, 30 days, vs the stronger baseline, compressed",
    goal: "within 1.25× (>= 0.8× req/s)",
    measuredBy: "`npm run bench`"
  },
  {
    key: "glucose-page-100",
    work: "`GET glucose`, a page of 100 items, vs the whole 30-day read",
    goal: ">= 10× its req/s, <= 1/20 of its CPU",
    measuredBy: "`npm run bench`"
  },
  {
    key: "glucose-page-1000",
    work: "`GET glucose`, a page of 1,000 items, vs the whole 30-day read",
    goal: "reported",
    measuredBy: "`npm run bench`"
  },
  {
    key: "route-memory",
    work: "Memory of the route load (RSS over idle)",
    goal: "peak <= +150 MiB, a minute after <= +50 MiB",
    measuredBy: "`npm run bench`"
  },
  {
    key: "backfill-365d",
    work: "Dexcom backfill, 365 days",
    goal: `<= ${backfillGoalSeconds} s, memory growth < ${backfillGoalMiB} MiB`,
    measuredBy: "`npm run bench`"
  },
  {
    key: "startup-fresh",
    work: "`npm start` to the first answer, fresh data dir",
    goal: "<= 6 s",
    measuredBy: "the start-up benchmark"
  },
  {
    key: "startup-warm",
    work: "`npm start` to the first answer, warm",
    goal: "<= 3 s",
    measuredBy: "the start-up benchmark"
  },
  { key: "cli", work: "one CLI command", goal: "<= 1 s", measuredBy: "the start-up benchmark" },
  {
    key: "growth",
    work: "1,000 users × 4 providers, 30-day backfills, one process",
    goal: "0 errors",
    measuredBy: "`npm run bench:growth`"
  },
  {
    key: "growth-split",
    work: "the same, `ROLE=api` + 2 × `ROLE=worker`",
    goal: "0 errors, speed-up reported",
    measuredBy: "`npm run bench:growth`",
    postgresOnly: true
  }
]

/** A section of the file: what one measurement wrote for one kind of database. */
export interface Section {
  /** `bench`, `growth`, `startup`, ...: the marker's name, lower case. */
  readonly name: string
  readonly kind: DatabaseKind
  /** The section's Markdown, from its `##` heading on. */
  readonly markdown: string
  readonly summary: ReadonlyArray<SummaryRow>
}

const sectionOrder = ["bench", "growth", "startup"]
const kinds: ReadonlyArray<DatabaseKind> = ["pglite", "postgres"]
const sectionPattern = /<!-- ([a-z][a-z0-9-]*):(pglite|postgres) -->\n([\s\S]*?)\n<!-- \/\1:\2 -->/g
const summaryPattern = /^<!-- summary (.*) -->\n/

const sectionText = (section: Section) =>
  [
    `<!-- ${section.name}:${section.kind} -->`,
    // `>` escaped, so that no row can end the comment.
    `<!-- summary ${JSON.stringify(section.summary).replace(/>/g, "\\u003e")} -->`,
    section.markdown,
    `<!-- /${section.name}:${section.kind} -->`
  ].join("\n")

/** The sections of a file's text; one without a readable summary comment keeps its text with no rows. */
export const readSections = (text: string): Array<Section> =>
  [...text.matchAll(sectionPattern)].map((match) => {
    const body = match[3]!
    const summary = summaryPattern.exec(body)
    let rows: Array<SummaryRow> = []
    try {
      rows = summary === null ? [] : JSON.parse(summary[1]!) as Array<SummaryRow>
    } catch {
      rows = []
    }
    return {
      name: match[1]!,
      kind: match[2] as DatabaseKind,
      markdown: summary === null ? body : body.slice(summary[0].length),
      summary: rows
    }
  })

const cell = (text: string | undefined) => text === undefined || text === "" ? "-" : text.replace(/\|/g, "\\|")

/** The summary table of one kind of database, from the rows of its sections. */
export const summaryTable = (kind: DatabaseKind, sections: ReadonlyArray<Section>): string => {
  const rows = new Map<string, SummaryRow>()
  for (const section of sections) {
    if (section.kind === kind) { for (const row of section.summary) rows.set(row.key, row) }
  }
  const known = new Set(summaryCatalogue.map((entry) => entry.key))
  const extra = [...rows.values()].filter((row) => !known.has(row.key))
  const line = (work: string, row: SummaryRow | undefined, entry: SummaryEntry | undefined) =>
    row === undefined
      ? `| ${work} | ${
        entry?.postgresOnly === true && kind === "pglite"
          ? "PostgreSQL only"
          : `not measured yet (${entry?.measuredBy ?? "?"})`
      } | - | - | ${cell(entry?.goal)} | - |`
      : `| ${work} | ${cell(row.measured)} | ${cell(row.baseline)} | ${cell(row.ratio)} | ${cell(row.goal)} | ${
        row.met === undefined ? "-" : row.met ? "**met**" : "**not met**"
      } |`
  return [
    `### ${databaseTitle[kind]}`,
    "",
    "| Work | PulseBridge | Baseline | Ratio | Goal | Met |",
    "| --- | --- | --- | --- | --- | --- |",
    ...summaryCatalogue.map((entry) => line(entry.work, rows.get(entry.key), entry)),
    ...extra.map((row) => line(row.key, row, undefined))
  ].join("\n")
}

const summaryIntro = [
  "## Summary",
  "",
  "Each row comes from the section below that measured it (its date and load average are there); the ratios " +
  "compare PulseBridge with a baseline measured side by side in the same run."
].join("\n")

const benchPlaceholder = (kind: DatabaseKind): Section => ({
  name: "bench",
  kind,
  markdown: [
    `## ${databaseTitle[kind]}`,
    "",
    kind === "postgres"
      ? "Not measured yet: run `DATABASE_URL=postgres://user@host:5432/postgres npm run bench`."
      : "Not measured yet: run `npm run bench`."
  ].join("\n"),
  summary: []
})

/**
 * `previous` (the file's text) with `section` in place of the one of the same name and kind, every other section
 * kept, the summary tables rebuilt, and the hand-written measured sections kept at the end. Text outside these is
 * not kept: a section written by hand must sit between measured markers.
 */
export const withSection = (previous: string, section: Section): string => {
  const sections = readSections(previous).filter((s) => !(s.name === section.name && s.kind === section.kind))
  sections.push(section)
  for (const kind of kinds) {
    if (!sections.some((s) => s.name === "bench" && s.kind === kind)) sections.push(benchPlaceholder(kind))
  }
  const rank = (name: string) => {
    const at = sectionOrder.indexOf(name)
    return at === -1 ? sectionOrder.length : at
  }
  sections.sort((a, b) =>
    rank(a.name) - rank(b.name) || a.name.localeCompare(b.name) || kinds.indexOf(a.kind) - kinds.indexOf(b.kind)
  )
  return [
    intro,
    summaryIntro,
    ...[...kinds].reverse().map((kind) => summaryTable(kind, sections)),
    ...sections.map(sectionText),
    ...measuredSections(previous)
  ].join("\n\n") + "\n"
}

/** Rewrites `file` with `section` (`withSection`). */
export const writeSection = (file: string, section: Section) =>
  fs.writeFileSync(file, withSection(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "", section))

const describeLoad = (m: Measurement) => `${rate(m.requestsPerSecond)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms`

/** The start-up rows of the summary table; the CLI row is the slowest command's median. */
const startupSummary = (startup: StartupResult): Array<SummaryRow> => {
  const slowest = [...startup.cli].sort((a, b) => b.timings.median - a.timings.median)[0]
  return [
    {
      key: "startup-fresh",
      measured: secondsOf(startup.fresh),
      goal: `<= ${startupTargets.fresh} s`,
      met: startup.fresh.median <= startupTargets.fresh
    },
    {
      key: "startup-warm",
      measured: secondsOf(startup.warm),
      goal: `<= ${startupTargets.warm} s`,
      met: startup.warm.median <= startupTargets.warm
    },
    ...(slowest === undefined ? [] : [{
      key: "cli",
      measured: `\`${slowest.command}\` (the slowest of ${startup.cli.length}): ${secondsOf(slowest.timings)}`,
      goal: `<= ${startupTargets.cli} s`,
      met: slowest.timings.median <= startupTargets.cli
    }])
  ]
}

/** The rows of the summary table a run of `npm run bench` measures. */
export const benchSummary = (run: BenchRun): Array<SummaryRow> => {
  const routeRows = run.routes.flatMap((route): Array<SummaryRow> => {
    if (route.summary === undefined) return []
    const valid = isValid(route)
    const ratioValue = route.pulsebridge.requestsPerSecond / route.baseline.requestsPerSecond
    const p99Ratio = route.pulsebridge.p99 / Math.max(1, route.baseline.p99)
    const { maxP99Ratio, minRatio, versus } = route.summary
    const other = versus === undefined ? undefined : run.routes.find((r) => r.summary?.key === versus.key)
    if (versus !== undefined) {
      const cpuRatio = (m: (x: Measurement) => number | undefined) => {
        const ours = m(route.pulsebridge)
        const theirs = other === undefined ? undefined : m(other.pulsebridge)
        return ours === undefined || theirs === undefined || theirs === 0 ? undefined : ours / theirs
      }
      const rateRatio = other === undefined
        ? Number.NaN
        : route.pulsebridge.requestsPerSecond / other.pulsebridge.requestsPerSecond
      const server = cpuRatio((x) => x.serverCpuMsPerRequest)
      const database = cpuRatio((x) => x.databaseCpuMsPerRequest)
      const fraction = (r: number | undefined) => r === undefined ? "unknown" : `1/${Math.round(1 / r)}`
      return [{
        key: route.summary.key,
        measured: describeLoad(route.pulsebridge),
        baseline: `${route.summary.baselineName ?? "node:https + pg"}: ${describeLoad(route.baseline)}`,
        ratio: valid && other !== undefined && isValid(other)
          ? `${formatRatio(ratioValue)}; ${formatRatio(rateRatio)} ${versus.name}'s req/s, server CPU ${
            fraction(server)
          }${database === undefined ? "" : `, database CPU ${fraction(database)}`} of its`
          : "invalid",
        goal: route.summary.goal,
        met: !valid || other === undefined || !isValid(other)
          ? undefined
          : rateRatio >= versus.minRatio && server !== undefined && server <= versus.maxCpuRatio &&
            (database === undefined || database <= versus.maxCpuRatio)
      }]
    }
    return [{
      key: route.summary.key,
      measured: describeLoad(route.pulsebridge),
      baseline: `${route.summary.baselineName ?? "node:https + pg"}: ${describeLoad(route.baseline)}`,
      ratio: valid ? `${formatRatio(ratioValue)}, p99 ${formatRatio(p99Ratio)}` : "invalid",
      goal: route.summary.goal,
      met: !valid || minRatio === undefined
        ? undefined
        : ratioValue >= minRatio && (maxP99Ratio === undefined || p99Ratio <= maxP99Ratio)
    }]
  })
  const backfill = run.backfill
  const growthMiB = (backfill.memory.peak.rss - backfill.memory.start.rss) / 2 ** 20
  return [
    ...routeRows,
    ...(run.startup === undefined ? [] : startupSummary(run.startup)),
    ...(run.extraSummary ?? []),
    {
      key: "backfill-365d",
      measured: `${backfill.seconds.toFixed(1)} s, ${integer(readingsPerSecond(backfill))} readings/s, RSS +${
        Math.round(growthMiB)
      } MiB`,
      goal: `<= ${backfillGoalSeconds} s, memory growth < ${backfillGoalMiB} MiB`,
      met: backfillValid(backfill)
        ? backfill.seconds <= backfillGoalSeconds && growthMiB < backfillGoalMiB
        : undefined
    }
  ]
}

/** Writes the section of a run of `npm run bench`, keeping every other section. */
export const writeMarkdown = (file: string, run: BenchRun) =>
  writeSection(file, { name: "bench", kind: run.kind, markdown: section(run), summary: benchSummary(run) })
