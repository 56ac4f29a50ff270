/**
 * The growth benchmark's figures (`Growth.ts`): the result of one layout, its lines for the terminal, and the
 * section of `docs/benchmarks.md` for one kind of database with its rows of the summary table (see `Report.ts`).
 */
import type { DatabaseKind, Machine, SummaryRow } from "./Report.js"
import { databaseTitle, machineLine, writeSection } from "./Report.js"

export interface GrowthProcess {
  readonly name: string
  /** CPU seconds (user + system) used from the first user's creation to the end of the checks. */
  readonly cpuSeconds: number
  /** The peak resident set over the process's life (`VmHWM`); undefined where it cannot be read. */
  readonly peakRssBytes: number | undefined
  /** Queries waiting for a connection of the process's database pool, sampled every second. */
  readonly poolWaiting: { readonly max: number; readonly mean: number } | undefined
}

export interface GrowthResult {
  readonly kind: DatabaseKind
  readonly layout: "single" | "split"
  readonly users: number
  readonly connections: number
  readonly backfillDays: number
  /** Users going through the connect flow at once. */
  readonly concurrency: number
  /** From the first user's creation to the end of the last backfill (its `lastSyncedAt`). */
  readonly seconds: number
  /** From the first user's creation to the last user's fourth callback. */
  readonly connectSeconds: number
  /** Canonical records stored by the sync (the servers' `pulsebridge_sync_records_stored_total`). */
  readonly records: number
  readonly recordsByProvider: Readonly<Record<string, number>>
  readonly quarantined: number
  /** Provider calls of the sync that failed and were retried (e.g. timed out on a busy machine). */
  readonly providerRetries: number
  readonly processes: ReadonlyArray<GrowthProcess>
  readonly databaseBytes: number
  /** Per provider: connections, and the fewest and most records one stored (PostgreSQL only). */
  readonly storedPerProvider:
    | Readonly<Record<string, { readonly connections: number; readonly min: number; readonly max: number }>>
    | undefined
  readonly errors: {
    readonly connectFlows: number
    readonly backfills: number
    readonly serverErrors: number
    readonly simulatorFailures: number
    readonly stored: number
  }
  /** What makes the run invalid (the first few of each kind); empty when valid. */
  readonly problems: ReadonlyArray<string>
  /** Connection listings the benchmark asked for while waiting. */
  readonly polls: number
  readonly cores: number
  /** The 1-minute load average when the clock started and at the end: other work on the machine skews the figures. */
  readonly loadAverageAtStart: number
  readonly loadAverage: number
}

export interface GrowthRun {
  readonly kind: DatabaseKind
  readonly machine: Machine
  readonly date: Date
  readonly results: ReadonlyArray<GrowthResult>
}

const integer = (n: number) => Math.round(n).toLocaleString("en-US")
const mib = (bytes: number | undefined) =>
  bytes === undefined ? "unknown" : `${Math.round(bytes / 2 ** 20).toLocaleString("en-US")} MiB`
const seconds = (n: number) => Number.isFinite(n) ? `${n.toFixed(1)} s` : "unknown"
const errorCount = (result: GrowthResult) => Object.values(result.errors).reduce((total, n) => total + n, 0)
const layoutTitle = (result: GrowthResult) =>
  result.layout === "single" ? "one process (`ROLE=all`)" : "`ROLE=api` + 2 × `ROLE=worker`"
export const recordsPerSecond = (result: GrowthResult) => result.records / result.seconds

const share = (cpu: number, wall: number) => `${Math.round((100 * cpu) / wall)}%`

/**
 * What limits the run first, read from the figures: a process near a full core (its CPU), queries waiting for a
 * pool connection (the pool, so the database's round trips), or, when nothing of the run is saturated while the
 * machine is (a load average over its cores), the machine's CPU shared with other work.
 */
export const limits = (result: GrowthResult): Array<string> => {
  const known = result.processes.filter((p) => Number.isFinite(p.cpuSeconds))
  const total = known.reduce((sum, p) => sum + p.cpuSeconds, 0)
  const top = [...known].sort((a, b) => b.cpuSeconds - a.cpuSeconds)[0]
  const topShare = top === undefined ? 0 : top.cpuSeconds / result.seconds
  const waiting = result.processes
    .filter((p) => p.poolWaiting !== undefined && p.poolWaiting.mean >= 1)
    .sort((a, b) => b.poolWaiting!.mean - a.poolWaiting!.mean)
  const machineShare = total / (result.seconds * result.cores)
  const loaded = Math.max(result.loadAverageAtStart, result.loadAverage) > result.cores
  // A provider call that times out is retried; more than one in ten connections needing it means the simulators
  // (one process each, generating every answer) answer slower than the sync asks.
  const slowProviders = result.providerRetries > result.connections / 10
  const simulator =
    [...known].filter((p) => p.name.includes("simulator")).sort((a, b) => b.cpuSeconds - a.cpuSeconds)[0]
  const pool = waiting[0]
  const poolLine = pool === undefined ?
    "" :
    `the database pool of ${pool.name} limits first: a mean of ${
      pool.poolWaiting!.mean.toFixed(1)
    } queries waited for one of its connections (at most ${pool.poolWaiting!.max})`
  const verdict = top !== undefined && topShare >= 0.85
    ? `the CPU of ${top.name} limits first (${share(top.cpuSeconds, result.seconds)} of one core)`
    : pool !== undefined && result.errors.serverErrors > 0
    ? `${poolLine}, and ${result.errors.serverErrors} requests waited past their deadline (5xx)`
    : slowProviders
    ? `the provider simulators limit first: ${integer(result.providerRetries)} provider calls timed out or failed ` +
      `and ${result.errors.connectFlows} connect flows failed, the busiest being ${simulator?.name ?? "unknown"} ` +
      `(one process generating every answer: ${seconds(simulator?.cpuSeconds ?? Number.NaN)} of CPU)`
    : pool !== undefined
    ? poolLine
    : loaded && machineShare < 0.6
    ? "the machine's CPU, shared with other work, limits first: no process of the run used a full core"
    : "no single resource is saturated: the run is bound by the latency of its round trips"
  return [
    `The run's processes used ${seconds(total)} of CPU in ${seconds(result.seconds)} on ${result.cores} cores (${
      share(total, result.seconds * result.cores)
    } of the machine); the 1-minute load average went from ${result.loadAverageAtStart.toFixed(1)} to ${
      result.loadAverage.toFixed(1)
    }.`,
    ...(top === undefined ? [] : [
      `Busiest: ${top.name}, ${seconds(top.cpuSeconds)} of CPU, ${share(top.cpuSeconds, result.seconds)} of one core.`
    ]),
    ...(result.providerRetries > 0
      ? [`${integer(result.providerRetries)} provider calls timed out or failed and were retried.`]
      : []),
    `Limit: ${verdict}.`,
    ...(loaded && !verdict.startsWith("the machine's")
      ? [
        `The machine was busy with other work (a load average over its ${result.cores} cores): every process also ` +
        "waited for CPU, which stretches every figure and the provider calls' time."
      ]
      : [])
  ]
}

export const growthLines = (result: GrowthResult): Array<string> => [
  `${result.users} users, ${result.connections} connections: ${seconds(result.seconds)} ` +
  `(connect flows ${seconds(result.connectSeconds)}), ${integer(result.records)} records, ` +
  `${integer(recordsPerSecond(result))} records/s, database ${mib(result.databaseBytes)}, ` +
  `${errorCount(result)} errors`,
  ...result.processes.map((p) =>
    `${p.name}: CPU ${seconds(p.cpuSeconds)}, peak RSS ${mib(p.peakRssBytes)}` +
    (p.poolWaiting === undefined ? "" : `, pool waiting max ${p.poolWaiting.max} mean ${p.poolWaiting.mean.toFixed(1)}`)
  ),
  ...limits(result),
  ...result.problems.map((problem) => `INVALID ${problem}`)
]

const resultTable = (result: GrowthResult) => {
  const errors = result.errors
  const stored = result.storedPerProvider
  return [
    `### ${result.users.toLocaleString("en-US")} users, ${layoutTitle(result)}`,
    "",
    "| Measure | Value |",
    "| --- | ---: |",
    `| First user created to the last backfill's end | **${seconds(result.seconds)}** |`,
    `| Connect flows (${result.concurrency} users at a time) | ${seconds(result.connectSeconds)} |`,
    `| Connections | ${integer(result.connections)} |`,
    `| Records stored | ${integer(result.records)} (${
      Object.entries(result.recordsByProvider).map(([p, n]) => `${p} ${integer(n)}`).join(", ")
    }) |`,
    `| Records per second | **${integer(recordsPerSecond(result))}** |`,
    `| Records quarantined (unreadable records the simulators serve on purpose) | ${integer(result.quarantined)} |`,
    `| Provider calls of the sync retried (a failed attempt: a timeout or an error answer) | ${
      integer(result.providerRetries)
    } |`,
    `| Database size at the end | ${mib(result.databaseBytes)} |`,
    `| Errors | **${errorCount(result)}** (connect flows ${errors.connectFlows}, backfills not ending \`Idle\` ` +
    `${errors.backfills}, 5xx answers ${errors.serverErrors}, ` +
    `simulators answering an error ${errors.simulatorFailures}, connections storing other than the simulator's ` +
    `records ${errors.stored}) |`,
    `| Connection listings polled while waiting | ${integer(result.polls)} |`,
    "",
    "| Process | CPU time | Share of one core | Peak RSS | Pool waiting (max / mean) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...result.processes.map((p) =>
      `| ${p.name} | ${seconds(p.cpuSeconds)} | ${Math.round((100 * p.cpuSeconds) / result.seconds)}% | ${
        mib(p.peakRssBytes)
      } | ${p.poolWaiting === undefined ? "-" : `${p.poolWaiting.max} / ${p.poolWaiting.mean.toFixed(1)}`} |`
    ),
    "",
    limits(result).join(" "),
    ...(stored === undefined ? [] : [
      "",
      "Stored per connection (fewest / most records): " +
      Object.entries(stored).map(([p, s]) => `${p} ${s.min} / ${s.max} over ${integer(s.connections)}`).join(", ") +
      "."
    ]),
    ...(result.problems.length === 0 ? [] : [
      "",
      "**This run had errors**, and the benchmark failed:",
      "",
      ...result.problems.map((problem) => `- ${problem}`)
    ])
  ].join("\n")
}

/** The scenario's rows of the summary table: the one-process run and, on PostgreSQL, the two-worker speed-up. */
export const growthSummary = (run: GrowthRun): Array<SummaryRow> => {
  const single = run.results.find((r) => r.layout === "single")
  const split = run.results.find((r) => r.layout === "split")
  const describe = (r: GrowthResult) =>
    `${r.users.toLocaleString("en-US")} users: ${seconds(r.seconds)}, ${integer(recordsPerSecond(r))} records/s, ` +
    `${errorCount(r)} errors`
  const rows: Array<SummaryRow> = []
  if (single !== undefined) {
    rows.push({
      key: "growth",
      measured: describe(single),
      goal: "1,000 users, 0 errors",
      met: single.users >= 1000 && errorCount(single) === 0
    })
  }
  if (split !== undefined) {
    const ratio = single === undefined ? undefined : single.seconds / split.seconds
    rows.push({
      key: "growth-split",
      measured: describe(split),
      baseline: single === undefined ? undefined : `one process: ${seconds(single.seconds)}`,
      ratio: ratio === undefined ? undefined : `${ratio.toFixed(2)}× speed-up`,
      goal: "0 errors, speed-up reported",
      met: split.users >= 1000 && errorCount(split) === 0 && ratio !== undefined
    })
  }
  return rows
}

const intro = (run: GrowthRun) =>
  [
    `## Growth: many users on ${databaseTitle[run.kind]}`,
    "",
    `- Date: ${run.date.toISOString().slice(0, 16).replace("T", " ")} UTC`,
    `- Machine: ${machineLine(run.machine)}`,
    "- Servers: `pulsebridge serve` on compiled JavaScript, each in its own process, `BACKFILL_DAYS=30`, " +
    "`RATE_LIMIT=off`, a yearly `SYNC_CRON`; the four provider simulators each in a process of their own, their " +
    "clocks held still and their rate limits off"
  ].join("\n")

export const writeGrowth = (file: string, run: GrowthRun) =>
  writeSection(file, {
    name: "growth",
    kind: run.kind,
    markdown: [intro(run), "", ...run.results.flatMap((r) => [resultTable(r), ""])].join("\n").trimEnd(),
    summary: growthSummary(run)
  })
