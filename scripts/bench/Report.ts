/**
 * The benchmark's output: the table printed to the terminal and `docs/benchmarks.md`, which holds one section per
 * kind of database. A run rewrites the whole file with its own section and keeps the other kind's section as it
 * was (found between its HTML comment markers).
 */
import * as fs from "node:fs"
import * as os from "node:os"
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
}

export interface Machine {
  readonly cpuModel: string
  readonly cpuCount: number
  readonly memoryGiB: number
  readonly os: string
  readonly node: string
}

export interface BenchRun {
  readonly kind: DatabaseKind
  /** How the database was run, e.g. "in a temporary data dir". */
  readonly databaseDetail: string
  readonly databaseVersion: string
  readonly machine: Machine
  readonly date: Date
  readonly settings: LoadSettings
  readonly routes: ReadonlyArray<RouteResult>
}

export const currentMachine = (): Machine => {
  const cpus = os.cpus()
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown CPU",
    cpuCount: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version
  }
}

const integer = (n: number) => Math.round(n).toLocaleString("en-US")
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

/** The side-by-side table for the terminal. */
export const terminalTable = (run: BenchRun): string => {
  const header = ["route", "server", "req/s", "p50 ms", "p99 ms", "requests", "vs baseline"]
  const rows = run.routes.flatMap((route) => [
    [
      route.route,
      "PulseBridge",
      integer(route.pulsebridge.requestsPerSecond),
      millis(route.pulsebridge.p50),
      millis(route.pulsebridge.p99),
      integer(route.pulsebridge.requests),
      ratio(route)
    ],
    [
      "",
      "baseline",
      integer(route.baseline.requestsPerSecond),
      millis(route.baseline.p50),
      millis(route.baseline.p99),
      integer(route.baseline.requests),
      isValid(route) ? formatRatio(1) : "invalid"
    ]
  ])
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)).join("  ")
  const invalid = problems(run.routes).map((problem) => `INVALID ${problem}`)
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line), ...invalid].join("\n")
}

const startMarker = (kind: DatabaseKind) => `<!-- bench:${kind} -->`
const endMarker = (kind: DatabaseKind) => `<!-- /bench:${kind} -->`

const routeTable = (route: RouteResult) => {
  const invalid = problems([route])
  return [
    `### ${route.route}`,
    "",
    route.description,
    "",
    "| Server | req/s (mean) | p50 (ms) | p99 (ms) | Requests | req/s vs baseline |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    `| PulseBridge | ${integer(route.pulsebridge.requestsPerSecond)} | ${millis(route.pulsebridge.p50)} | ${
      millis(route.pulsebridge.p99)
    } | ${integer(route.pulsebridge.requests)} | **${ratio(route)}** |`,
    `| Baseline (node:https + pg) | ${integer(route.baseline.requestsPerSecond)} | ${millis(route.baseline.p50)} | ${
      millis(route.baseline.p99)
    } | ${integer(route.baseline.requests)} | ${isValid(route) ? formatRatio(1) : "invalid"} |`,
    ...(invalid.length === 0 ? [] : [
      "",
      "**These figures are invalid**: the runs did not answer only 2xx, and the benchmark failed.",
      "",
      ...invalid.map((problem) => `- ${problem}`)
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
    `- Machine: ${machine.cpuCount} × ${machine.cpuModel}, ${machine.memoryGiB} GiB RAM, ${machine.os}`,
    `- Node.js: ${machine.node}`,
    `- Database: ${databaseTitle[run.kind]}, ${run.databaseDetail} (${run.databaseVersion})`,
    `- Load: autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
    `${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured, per server and route`,
    "",
    ...run.routes.flatMap((route) => [routeTable(route), ""]),
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
and keeps the other one, so edits by hand are lost.

Run it with the embedded database (\`npm run bench\`: PGlite in a temporary data dir) or against PostgreSQL
(\`DATABASE_URL=postgres://user@host:5432/postgres npm run bench\`: a fresh database is created on that server for
the run and dropped after it). \`BENCH_DURATION=3 npm run bench\` shortens the measured part of each run (seconds,
default 8) for a quick check; \`BENCH_CONNECTIONS\` sets the concurrent connections (default 10).

What is measured: the whole PulseBridge server, started in-process exactly as \`pulsebridge serve\` composes it
(HTTPS with a self-signed certificate, the request middleware and its request logs, API key authentication, the
services over \`@effect/sql-pg\`; configured from the environment like \`serve\`, logs written to a file in the
system temp directory instead of the terminal), on a fresh database holding one app and one user. Next to it runs
a baseline: a minimal \`node:https\` server with plain \`pg\`, no Effect and no logging, that does the same database
work for the same two routes and answers the same JSON (checked before loading). autocannon, on a worker thread,
loads each server in turn over HTTPS with keep-alive connections, a warm-up run first:

- \`GET /api/v1/users/:id\`: look the bearer API key up by its SHA-256 hash, then read the user row.
- \`POST /api/v1/users\` for an existing \`externalUserId\`: the API key lookup, then one transaction with the user
  upsert and the insert of a fresh user token (the idempotent re-create path of the real service).

A run with any connection error, timeout or non-2xx answer is marked invalid and makes \`npm run bench\` fail. The
load generator, the servers and the database share one machine, so compare the figures within a section rather
than across machines.`

/** Rewrites `file` with the section of `run` and the other kind's section kept from the current file. */
export const writeMarkdown = (file: string, run: BenchRun) => {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
  const kept = (kind: DatabaseKind) => {
    const start = previous.indexOf(startMarker(kind))
    const end = previous.indexOf(endMarker(kind), start)
    return start >= 0 && end > start ? previous.slice(start, end + endMarker(kind).length) : placeholder(kind)
  }
  const kinds: ReadonlyArray<DatabaseKind> = ["pglite", "postgres"]
  const sections = kinds.map((kind) => kind === run.kind ? section(run) : kept(kind))
  fs.writeFileSync(file, [intro, ...sections].join("\n\n") + "\n")
}
