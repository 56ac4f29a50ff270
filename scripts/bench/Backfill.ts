/**
 * The backfill benchmark: a year of Dexcom readings read from the simulator into the server's canonical tables.
 *
 * The Dexcom simulator runs in a child process (`DexcomSimulator.ts`) with its clock held still, and the
 * benchmark app's Dexcom credentials point at it. A user connects Dexcom through the hosted connect flow over
 * HTTPS (connect session, the simulator's consent form, our callback); the time runs from the callback request to
 * the first time the connection listing shows `syncState: Idle` with a `lastSyncedAt` (polled every 100 ms, as an
 * app would). Meanwhile the memory of this process, which is the server's, is sampled every 50 ms. Afterwards the
 * stored readings, events and calibrations are compared, id by id, with what the simulator serves for the span
 * the server asked for, and the readings are checked for duplicates.
 */
import { SqlClient } from "@effect/sql"
import type { AppId } from "@pulsebridge/domain"
import type { DexcomRecordKind } from "@pulsebridge/sandbox"
import { dexcomRecords } from "@pulsebridge/sandbox"
import { ProviderCredentials } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as cp from "node:child_process"
import * as crypto from "node:crypto"
import * as https from "node:https"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import type { Response, Target } from "./Load.js"
import { BenchError, requestOnce } from "./Load.js"
import { cpuSeconds as childCpuSeconds, isPostgres } from "./Proc.js"
import { profiled } from "./Profile.js"

/** What the simulator process is started with. */
export interface SimulatorSettings {
  readonly clientId: string
  readonly clientSecret: string
  readonly seed: string
  /** The simulator's clock, which stands still: the newest reading it serves is an hour older (Dexcom's delay). */
  readonly nowMs: number
}

export interface MemorySample {
  readonly rss: number
  readonly heapUsed: number
  /** Memory of C++ objects and array buffers outside the JS heap (on the embedded database: its WASM memory). */
  readonly external: number
}

export interface BackfillResult {
  /** The configured backfill span (`BACKFILL_DAYS`). */
  readonly days: number
  /** The first day the server planned to read (`sync_state.backfill_from`) and the day it started from. */
  readonly from: string
  readonly to: string
  /** From the callback request to the first listing showing `Idle`. */
  readonly seconds: number
  readonly readings: number
  readonly expectedReadings: number
  readonly events: number
  readonly expectedEvents: number
  readonly calibrations: number
  readonly expectedCalibrations: number
  /** Data requests (`egvs`, `events`, `calibrations`) the simulator answered. */
  readonly providerRequests: number
  /**
   * Memory of the server's process: after a full GC just before the callback, the largest sampled until `Idle`,
   * and after a full GC once `Idle` (what the backfill left behind).
   */
  readonly memory: {
    readonly start: MemorySample
    readonly peak: MemorySample
    readonly end: MemorySample
    readonly gc: boolean
  }
  /**
   * CPU seconds (user and system) from the callback to `Idle`: of this process (the server, and the embedded
   * database when there is one), of the simulator's, and of the PostgreSQL server's backends serving the run's
   * database (undefined where it cannot be read: the embedded database, or a PostgreSQL on another machine).
   */
  readonly cpuSeconds: {
    readonly server: number
    readonly simulator: number | undefined
    readonly database: number | undefined
  }
  /** What makes the measurement invalid (an unfinished sync, readings missing or duplicated); empty when valid. */
  readonly problems: ReadonlyArray<string>
}

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))
const simulatorEntry = path.join("scripts", "bench", "DexcomSimulator.ts")
/** Where the child finds its settings (the client secret stays out of the process list). */
const settingsVariable = "PULSEBRIDGE_BENCH_SIMULATOR"
const dayMs = 86_400_000

/**
 * Starts the simulator process and waits for it to listen; the scope closes its stdin (it exits on that) and
 * kills it if it has not gone within 5 s.
 */
const startSimulator = (settings: SimulatorSettings) =>
  Effect.acquireRelease(
    Effect.async<{ readonly child: cp.ChildProcess; readonly baseUrl: string }, BenchError>((resume) => {
      const child = cp.spawn(process.execPath, ["--import", "tsx", simulatorEntry], {
        cwd: repoRoot,
        env: { ...process.env, [settingsVariable]: JSON.stringify(settings) },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let output = ""
      let ready = false
      // Drained for the child's whole life, so that a chatty child never blocks on a full pipe.
      const onData = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000)
        const line = ready ? null : /^ready (\{.*\})$/m.exec(output)
        if (line !== null && line !== undefined) {
          ready = true
          child.off("exit", onExit)
          resume(Effect.succeed({ child, baseUrl: (JSON.parse(line[1]!) as { baseUrl: string }).baseUrl }))
        }
      }
      const onExit = (code: number | null) =>
        resume(
          Effect.fail(new BenchError({ message: `the Dexcom simulator exited (${code}) before listening:\n${output}` }))
        )
      child.stdout.on("data", onData)
      child.stderr.on("data", onData)
      child.on("exit", onExit)
      return Effect.sync(() => child.kill("SIGKILL"))
    }).pipe(
      Effect.timeoutFail({
        duration: "60 seconds",
        onTimeout: () => new BenchError({ message: "the Dexcom simulator did not start listening within 60 s" })
      })
    ),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
        child.once("exit", () => {
          clearTimeout(timer)
          resume(Effect.void)
        })
        child.stdin?.end()
      })
  )

/** `global.gc`, exposed at run time (as jest-leak-detector does), or undefined where that is refused. */
export const collectGarbage: () => (() => void) | undefined = (() => {
  let gc: (() => void) | undefined | null = null
  return () => {
    if (gc === null) {
      try {
        v8.setFlagsFromString("--expose-gc")
        gc = vm.runInNewContext("gc") as () => void
      } catch {
        gc = undefined
      }
    }
    return gc
  }
})()

/**
 * Samples every `intervalMs` the CPU seconds of the PostgreSQL backends serving the current database, when they
 * run on this machine (their `/proc` is readable); `total` is what they used since the sampler started (a backend
 * started meanwhile counts from zero). Undefined without any readable backend (the embedded database, whose work is
 * the server process's own, or a remote server).
 */
const databaseCpuSampler = (intervalMs: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const backends = sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.pipe(
      Effect.map((rows) => rows.map((row) => row.pid)),
      Effect.orElseSucceed(() => [] as Array<number>)
    )
    const first = new Map<number, number>()
    const last = new Map<number, number>()
    let started = false
    const sample = Effect.gen(function*() {
      for (const pid of yield* backends) {
        // The embedded database answers with a pid of its own, which is no process of this machine's.
        const cpu = isPostgres(pid) ? childCpuSeconds(pid) : undefined
        if (cpu === undefined) continue
        if (!first.has(pid)) first.set(pid, started ? 0 : cpu)
        last.set(pid, cpu)
      }
      started = true
    })
    yield* sample
    yield* Effect.forkScoped(Effect.repeat(sample, Schedule.spaced(`${intervalMs} millis`)))
    return {
      total: () =>
        Effect.as(
          sample,
          last.size === 0 ? undefined : [...last].reduce((sum, [pid, cpu]) => sum + cpu - first.get(pid)!, 0)
        )
    }
  })

const ownCpuSeconds = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1e6
}

const sampleMemory = (): MemorySample => {
  const usage = process.memoryUsage()
  return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external }
}

/**
 * Samples this process's memory every `intervalMs` until the scope closes; `peak` is the largest of each figure,
 * `start` included.
 */
const memorySampler = (start: MemorySample, intervalMs: number) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const peak = { ...start }
      const sample = () => {
        const now = sampleMemory()
        peak.rss = Math.max(peak.rss, now.rss)
        peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed)
        peak.external = Math.max(peak.external, now.external)
      }
      const timer = setInterval(sample, intervalMs)
      return { timer, peak: (): MemorySample => (sample(), { ...peak }) }
    }),
    ({ timer }) => Effect.sync(() => clearInterval(timer))
  )

const expectStatus = (what: string, response: Response, status: number) =>
  response.status === status
    ? Effect.succeed(response)
    : Effect.fail(new BenchError({ message: `${what} answered ${response.status}: ${response.body.slice(0, 500)}` }))

const locationOf = (what: string, response: Response) =>
  Effect.flatMap(expectStatus(what, response, 302), () => {
    const location = response.headers.location
    return location === undefined
      ? Effect.fail(new BenchError({ message: `${what} redirected without a location` }))
      : Effect.succeed(new URL(location))
  })

interface ListedConnection {
  readonly id: string
  readonly providerUserId: string
  readonly syncState: string
  readonly lastSyncedAt: string | null
  readonly syncError: string | null
}

export interface BackfillOptions {
  readonly serverBase: string
  readonly cert: string
  readonly appId: AppId
  readonly userId: string
  readonly userToken: string
  readonly days: number
  /** The consent page's user name at the simulator. */
  readonly providerUser: string
  /** How long to wait for `Idle` before giving up. */
  readonly timeoutSeconds: number
  /** The name of its CPU profile (see `Profile.ts`). */
  readonly profileName: string
}

const userRequest = (
  options: BackfillOptions,
  method: Target["method"],
  pathAndQuery: string,
  body?: unknown,
  agent?: https.Agent
) =>
  requestOnce({
    agent,
    url: `${options.serverBase}${pathAndQuery}`,
    method,
    headers: {
      authorization: `Bearer ${options.userToken}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    ca: options.cert
  })

/** A request the user's browser makes (no credentials). */
const browserRequest = (options: BackfillOptions, url: string, form?: Record<string, string>) =>
  requestOnce({
    url,
    method: form === undefined ? "GET" : "POST",
    headers: form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" },
    body: form === undefined ? undefined : new URLSearchParams(form).toString(),
    ca: options.cert
  })

/**
 * Sends the provider's redirect to our callback, then polls the connection listing every 100 ms until the backfill
 * ends (or fails, or takes longer than allowed).
 */
const awaitIdle = (options: BackfillOptions, callback: URL, startedAt: number) =>
  Effect.gen(function*() {
    const final = yield* browserRequest(options, `${options.serverBase}${callback.pathname}${callback.search}`).pipe(
      Effect.flatMap((response) => locationOf("our callback", response))
    )
    const connectionId = final.searchParams.get("connectionId")
    if (final.searchParams.get("success") !== "true" || connectionId === null) {
      return yield* new BenchError({ message: `the connect flow failed: ${final}` })
    }
    const problems: Array<string> = []
    // One connection kept alive for the polls, as an app polling would: a TLS handshake each time cost the server's
    // process (which the handshake's client side shares) about 2 ms a poll.
    const agent = yield* Effect.acquireRelease(
      Effect.sync(() => new https.Agent({ keepAlive: true, maxSockets: 1, ca: options.cert })),
      (agent) => Effect.sync(() => agent.destroy())
    )
    while (true) {
      const listing = yield* userRequest(
        options,
        "GET",
        `/api/v1/users/${options.userId}/connections`,
        undefined,
        agent
      ).pipe(
        Effect.flatMap((response) => expectStatus("GET connections", response, 200))
      )
      const connection = (JSON.parse(listing.body) as Array<ListedConnection>).find((c) => c.id === connectionId)
      if (connection?.syncState === "Idle" && connection.lastSyncedAt !== null) {
        return { connection, connectionId, problems }
      }
      if (connection === undefined || connection.syncState === "Error" || connection.syncState === "Stopped") {
        problems.push(
          `the backfill ended ${connection?.syncState ?? "without the connection"}: ${connection?.syncError}`
        )
        return { connection, connectionId, problems }
      }
      if (performance.now() - startedAt > options.timeoutSeconds * 1000) {
        problems.push(`the backfill did not finish within ${options.timeoutSeconds} s (${connection.syncState})`)
        return { connection, connectionId, problems }
      }
      yield* Effect.sleep("100 millis")
    }
  }).pipe(Effect.scoped)

/** Connects Dexcom for the user, waits for the backfill and checks what it stored. */
export const measureBackfill = (options: BackfillOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const credentials = yield* ProviderCredentials
    const settings: SimulatorSettings = {
      clientId: "pulsebridge-bench",
      clientSecret: crypto.randomBytes(24).toString("base64url"),
      seed: "pulsebridge-bench",
      nowMs: Date.now()
    }
    const simulator = yield* startSimulator(settings)
    yield* credentials.set(options.appId, "Dexcom", {
      clientId: settings.clientId,
      clientSecret: Redacted.make(settings.clientSecret),
      authBaseUrl: simulator.baseUrl,
      tokenBaseUrl: simulator.baseUrl,
      apiBaseUrl: simulator.baseUrl
    })

    const session = yield* userRequest(options, "POST", `/api/v1/users/${options.userId}/connections/sessions`, {
      provider: "Dexcom",
      redirectUrl: "https://bench.example.com/connected"
    }).pipe(Effect.flatMap((response) => expectStatus("POST connections/sessions", response, 200)))
    const authorizationUrl = (JSON.parse(session.body) as { authorizationUrl: string }).authorizationUrl
    // The user's browser: the consent page, then its form posted back with the approval.
    yield* browserRequest(options, authorizationUrl).pipe(
      Effect.flatMap((response) => expectStatus("the simulator's consent page", response, 200))
    )
    const callback = yield* browserRequest(options, authorizationUrl, {
      decision: "approve",
      user: options.providerUser
    }).pipe(Effect.flatMap((response) => locationOf("the simulator's consent form", response)))
    if (callback.pathname !== "/api/v1/connections/callback") {
      return yield* new BenchError({ message: `the consent form redirected to ${callback} instead of our callback` })
    }

    // A clean heap first, and a moment for the process to give pages back; then the clock starts with the callback.
    const gc = collectGarbage()
    gc?.()
    yield* Effect.sleep("1 second")
    const start = sampleMemory()
    const sampler = yield* memorySampler(start, 50)
    const databaseCpu = yield* databaseCpuSampler(1000)
    const simulatorCpu = childCpuSeconds(simulator.child.pid)
    const serverCpu = ownCpuSeconds()
    const startedAt = performance.now()
    const { connection, connectionId, problems } = yield* profiled(
      options.profileName,
      awaitIdle(options, callback, startedAt)
    )
    const seconds = (performance.now() - startedAt) / 1000
    const cpuSeconds = {
      server: ownCpuSeconds() - serverCpu,
      simulator: simulatorCpu === undefined
        ? undefined
        : (childCpuSeconds(simulator.child.pid) ?? Number.NaN) - simulatorCpu,
      database: yield* databaseCpu.total()
    }
    const peak = sampler.peak()
    gc?.()
    const end = sampleMemory()

    // What the server asked for: from a day before its first planned day (Dexcom ranges are padded by a day, as
    // display dates run up to 14 hours from UTC) to the simulator's newest reading.
    const [state] = yield* sql<{ backfillFrom: string | null }>`
      select backfill_from::text as backfill_from from sync_state where connection_id = ${connectionId}
    `
    const from = state?.backfillFrom ?? ""
    const span = { start: Date.parse(`${from}T00:00:00Z`) - dayMs, end: settings.nowMs }
    const compare = (kind: DexcomRecordKind, table: string) =>
      Effect.gen(function*() {
        const expected = new Set(
          dexcomRecords(settings.seed, connection?.providerUserId ?? "", kind, span, settings.nowMs)
            .map((record) => String(record["recordId"]))
        )
        const [counts] = yield* sql<{ total: number; distinctTimes: number }>`
          select count(*)::int as total, count(distinct system_time)::int as distinct_times
          from ${sql(table)} where connection_id = ${connectionId}
        `
        const stored = yield* sql<{ providerRecordId: string }>`
          select provider_record_id from ${sql(table)} where connection_id = ${connectionId}
        `
        const matched = stored.filter((row) => expected.has(row.providerRecordId)).length
        if (matched < expected.size || matched < stored.length) {
          problems.push(
            `${table}: ${expected.size - matched} of the simulator's ${expected.size} records missing, ` +
              `${stored.length - matched} stored that it did not serve`
          )
        }
        if (kind === "egv" && counts !== undefined && counts.distinctTimes !== counts.total) {
          problems.push(`${table}: ${counts.total - counts.distinctTimes} readings at the time of another`)
        }
        return { stored: counts?.total ?? 0, expected: expected.size }
      })
    const readings = yield* compare("egv", "glucose_readings")
    const events = yield* compare("event", "glucose_events")
    const calibrations = yield* compare("calibration", "glucose_calibrations")

    const calls = yield* browserRequest(
      options,
      `${simulator.baseUrl}/_sim/calls?${new URLSearchParams({ path: "/v3/users/self/*" })}`
    ).pipe(
      Effect.flatMap((response) => expectStatus("the simulator's call log", response, 200)),
      Effect.map((response) => (JSON.parse(response.body) as { calls: Array<{ status: number }> }).calls)
    )
    const failedCalls = calls.filter((call) => call.status !== 200).length
    if (failedCalls > 0) problems.push(`${failedCalls} of the ${calls.length} data requests to the simulator failed`)

    return {
      days: options.days,
      from,
      to: new Date(settings.nowMs).toISOString().slice(0, 10),
      seconds,
      readings: readings.stored,
      expectedReadings: readings.expected,
      events: events.stored,
      expectedEvents: events.expected,
      calibrations: calibrations.stored,
      expectedCalibrations: calibrations.expected,
      providerRequests: calls.length,
      memory: { start, peak, end, gc: gc !== undefined },
      cpuSeconds,
      problems
    } satisfies BackfillResult
  }).pipe(Effect.scoped)
