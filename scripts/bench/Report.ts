/**
 * The benchmark's output: the table printed to the terminal and `docs/benchmarks.md`, which holds one section per
 * kind of database. A run rewrites the whole file with its own section and keeps the other kind's section as it
 * was (found between its HTML comment markers).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import type { BackfillResult, MemorySample } from "./Backfill.js"
import type { LoadSettings, Measurement } from "./Load.js"

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
  /** The smallest acceptable PulseBridge req/s over the baseline's, where the route has a target. */
  readonly targetRatio?: number | undefined
  readonly load: LoadSettings
}

/** The backfill's target: done within this many seconds. */
export const backfillTargetSeconds = 30

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
const isValid = (route: RouteResult) => route.pulsebridge.problems.length === 0 && route.baseline.problems.length === 0
const formatRatio = (n: number) => `${n.toFixed(2)}×`
/** PulseBridge's req/s over the baseline's; meaningless when a run answered errors, which are cheap to send. */
const ratio = (route: RouteResult) =>
  isValid(route) ? formatRatio(route.pulsebridge.requestsPerSecond / route.baseline.requestsPerSecond) : "invalid"

/** Every problem of the runs, one line each, e.g. `POST /api/v1/users, PulseBridge: 93 × 500`. */
export const problems = (routes: ReadonlyArray<RouteResult>): Array<string> =>
  routes.flatMap((route) => [
    ...route.pulsebridge.problems.map((problem) => `${route.route}, PulseBridge: ${problem}`),
    ...route.baseline.problems.map((problem) => `${route.route}, baseline: ${problem}`)
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
    ]
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
    ...invalid
  ].join("\n")
}

const startMarker = (kind: DatabaseKind) => `<!-- bench:${kind} -->`
const endMarker = (kind: DatabaseKind) => `<!-- /bench:${kind} -->`

const loadLine = (settings: LoadSettings) =>
  `autocannon, ${settings.connections} connection${settings.connections === 1 ? "" : "s"}, pipelining ` +
  `${settings.pipelining}, ${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured, per server`

const routeTable = (route: RouteResult, settings: LoadSettings) => {
  const invalid = problems([route])
  return [
    `### ${route.route}`,
    "",
    route.description,
    ...(loadLine(route.load) === loadLine(settings) ? [] : ["", `Load of this route: ${loadLine(route.load)}.`]),
    "",
    "| Server | req/s (mean) | p50 (ms) | p99 (ms) | Requests | req/s vs baseline |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    `| PulseBridge | ${rate(route.pulsebridge.requestsPerSecond)} | ${millis(route.pulsebridge.p50)} | ${
      millis(route.pulsebridge.p99)
    } | ${integer(route.pulsebridge.requests)} | **${ratio(route)}** |`,
    `| Baseline (node:https + pg) | ${rate(route.baseline.requestsPerSecond)} | ${millis(route.baseline.p50)} | ${
      millis(route.baseline.p99)
    } | ${integer(route.baseline.requests)} | ${isValid(route) ? formatRatio(1) : "invalid"} |`,
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
    ...(valid ? [] : [
      "",
      "**These figures are invalid**, and the benchmark failed:",
      "",
      ...backfill.problems.map((problem) => `- ${problem}`)
    ])
  ].join("\n")
}

const section = (run: BenchRun) => {
  const { machine, settings } = run
  return [
    startMarker(run.kind),
    `## ${databaseTitle[run.kind]}`,
    "",
    `- Date: ${run.date.toISOString().slice(0, 16).replace("T", " ")} UTC`,
    `- Machine: ${machine.cpuCount} × ${machine.cpuModel}, ${machine.memoryGiB} GiB RAM, ${machine.os}; ` +
    `1-minute load average ${machine.loadAverage.toFixed(1)} at the start`,
    `- Node.js: ${machine.node}`,
    `- Database: ${databaseTitle[run.kind]}, ${run.databaseDetail} (${run.databaseVersion})`,
    `- Load: ${loadLine(settings)} and route (unless a route says otherwise)`,
    "",
    backfillTable(run.backfill, run.kind),
    "",
    ...run.routes.flatMap((route) => [routeTable(route, settings), ""]),
    endMarker(run.kind)
  ].join("\n")
}

const placeholder = (kind: DatabaseKind) =>
  [
    startMarker(kind),
    `## ${databaseTitle[kind]}`,
    "",
    kind === "postgres"
      ? "Not measured yet: run `DATABASE_URL=postgres://user@host:5432/postgres npm run bench`."
      : "Not measured yet: run `npm run bench`.",
    endMarker(kind)
  ].join("\n")

const intro = `# Benchmarks

This file is written by \`npm run bench\` (\`scripts/bench.ts\`): a run replaces the section of its kind of database
and keeps the other one, so edits by hand are lost (except in the sections at the end marked \`measured\`, which
other measurements write and a run keeps).

Run it with the embedded database (\`npm run bench\`: PGlite in a temporary data dir) or against PostgreSQL
(\`DATABASE_URL=postgres://user@host:5432/postgres npm run bench\`: a fresh database is created on that server for
the run and dropped after it). \`BENCH_DURATION=3 npm run bench\` shortens the measured part of each run (seconds,
default 8) for a quick check; \`BENCH_CONNECTIONS\` sets the concurrent connections (default 10);
\`BENCH_CPU_PROFILE=<dir>\` writes CPU profiles of the backfill and of PulseBridge's measured glucose run there
(\`.cpuprofile\`, for Chrome DevTools or VS Code; profiling slows the server down a little).

What is measured: the whole PulseBridge server, started in-process exactly as \`pulsebridge serve\` composes it
(HTTPS with a self-signed certificate, the request middleware and its request logs, API key and user token
authentication, the sync engine on Effect Cluster, the services over \`@effect/sql-pg\`; configured from the
environment like \`serve\` but with \`BACKFILL_DAYS=365\` and a yearly \`SYNC_CRON\`, so that no periodic sync runs
into the measurements; logs written to a file in the system temp directory instead of the terminal), on a fresh
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
behind:

- \`GET /api/v1/users/:id/connections/glucose\`: look the bearer user token up by its SHA-256 hash, then read 30 days
  of the backfilled user's glucose with the three queries of \`HealthData.glucose\` (readings, events,
  calibrations); the baseline runs the same SQL and answers \`JSON.stringify\` of the rows. Target: at least 0.7×
  the baseline's requests per second.
- \`GET /api/v1/users/:id\`: look the bearer API key up by its SHA-256 hash, then read the user row.
- \`POST /api/v1/users\` for an existing \`externalUserId\`: the API key lookup, then one transaction with the user
  upsert and the insert of a fresh user token (the idempotent re-create path of the real service).

A run with any connection error, timeout or non-2xx answer, or a backfill that does not end \`Idle\` with exactly
the simulator's records, is marked invalid and makes \`npm run bench\` fail; a missed target does not. The load
generator, the simulator, the servers and the database share one machine, so compare the figures within a section
rather than across machines, and mind the load average a section gives.`

/**
 * Sections other measurements write by hand between their own markers (`<!-- measured:name -->` ...
 * `<!-- /measured:name -->`), kept as they are after the benchmark's sections.
 */
const measuredSections = (previous: string): Array<string> =>
  [...previous.matchAll(/<!-- measured:([a-z-]+) -->[\s\S]*?<!-- \/measured:\1 -->/g)].map((match) => match[0])

/**
 * Rewrites `file` with the section of `run`, the other kind's section kept from the current file, and
 * the hand-written measured sections kept too.
 */
export const writeMarkdown = (file: string, run: BenchRun) => {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
  const kept = (kind: DatabaseKind) => {
    const start = previous.indexOf(startMarker(kind))
    const end = previous.indexOf(endMarker(kind), start)
    return start >= 0 && end > start ? previous.slice(start, end + endMarker(kind).length) : placeholder(kind)
  }
  const kinds: ReadonlyArray<DatabaseKind> = ["pglite", "postgres"]
  const sections = kinds.map((kind) => kind === run.kind ? section(run) : kept(kind))
  fs.writeFileSync(file, [intro, ...sections, ...measuredSections(previous)].join("\n\n") + "\n")
}
