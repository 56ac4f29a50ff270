/**
 * The load side of the benchmark: autocannon against one target (a warm-up, then the measurement), its figures,
 * and what makes a run invalid: any connection error, timeout, non-2xx answer or body mismatch.
 * Also a one-shot request (HTTPS verifying the server certificate, or plain HTTP to the provider simulator), for
 * seeding, the connect flow and pre-flight checks.
 */
import autocannon from "autocannon"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import * as zlib from "node:zlib"
import { cpuSeconds, isPostgres, threadCpuSeconds } from "./Proc.js"
import { profiled } from "./Profile.js"

export class BenchError extends Data.TaggedError("BenchError")<{ readonly message: string }> {}

/** A whole number >= 1 from the environment, `fallback` when unset. */
export const positiveFromEnv = (name: string, fallback: number) =>
  Effect.suspend(() => {
    const raw = process.env[name]
    const value = raw === undefined || raw === "" ? fallback : Number(raw)
    return Number.isInteger(value) && value >= 1
      ? Effect.succeed(value)
      : Effect.fail(new BenchError({ message: `${name} must be a whole number >= 1, not "${raw}"` }))
  })

export interface Target {
  readonly url: string
  readonly method: "GET" | "POST"
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
  /** The certificate the server presents (self-signed, so it is its own CA); unused for `http:` URLs. */
  readonly ca: string
  /** For `requestOnce`: a keep-alive agent to reuse connections (it must trust `ca`); default a new connection. */
  readonly agent?: http.Agent | undefined
}

export interface LoadSettings {
  readonly connections: number
  readonly pipelining: number
  readonly warmupSeconds: number
  readonly durationSeconds: number
  /** Into how many runs the measured time is cut, the servers of a route taking them in turn (`measureSideBySide`). */
  readonly slices?: number | undefined
}

export interface Measurement {
  readonly requests: number
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  /** What made the warm-up or the measured run invalid (errors, timeouts, non-2xx answers); empty when valid. */
  readonly problems: ReadonlyArray<string>
  /**
   * CPU time of this process (the servers and the load generator's thread) per request of the measured run, in
   * milliseconds: less sensitive than req/s to other work on the machine, for side-by-side checks.
   */
  readonly cpuMsPerRequest?: number
  /**
   * CPU time of the server's threads per request: this process's threads that ran before and after the measured
   * run (the load generator's thread, started for the run, is left out; on the embedded database its thread is
   * included, as it is the server's). Undefined where `/proc` cannot be read.
   */
  readonly serverCpuMsPerRequest?: number | undefined
  /** CPU time of the PostgreSQL processes of this machine per request; undefined without any (the embedded database). */
  readonly databaseCpuMsPerRequest?: number | undefined
}

/** CPU seconds of each of this process's threads, by thread id. */
const threadCpu = (): Map<number, number> => cpuOf(listIds("/proc/self/task"), threadCpuSeconds)

/** CPU seconds of each PostgreSQL process of this machine, by pid. */
const postgresCpu = (): Map<number, number> =>
  cpuOf(listIds("/proc"), (pid) => isPostgres(pid) ? cpuSeconds(pid) : undefined)

/** The numeric entries of a `/proc` directory; none without `/proc`. */
const listIds = (dir: string): Array<number> => {
  try {
    return fs.readdirSync(dir).filter((name) => /^\d+$/.test(name)).map(Number)
  } catch {
    return []
  }
}

const cpuOf = (ids: ReadonlyArray<number>, cpuOfId: (id: number) => number | undefined) => {
  const seconds = new Map<number, number>()
  for (const id of ids) {
    const cpu = cpuOfId(id)
    if (cpu !== undefined) seconds.set(id, cpu)
  }
  return seconds
}

/** Milliseconds of CPU between two samples: of the ids in both (`newFromZero`: also of ids only in `after`). */
const cpuMsBetween = (before: Map<number, number>, after: Map<number, number>, newFromZero: boolean) => {
  let seconds = 0
  let seen = false
  for (const [id, cpu] of after) {
    const b = before.get(id)
    if (b === undefined && !newFromZero) continue
    seconds += cpu - (b ?? 0)
    seen = true
  }
  return seen ? seconds * 1000 : undefined
}

const run = (target: Target, settings: LoadSettings, seconds: number) =>
  Effect.async<autocannon.Result, BenchError>((resume) => {
    const instance = autocannon({
      url: target.url,
      method: target.method,
      headers: { ...target.headers },
      ...(target.body === undefined ? {} : { body: target.body }),
      connections: settings.connections,
      pipelining: settings.pipelining,
      duration: seconds,
      // The load generator runs on a worker thread so that it does not share the event loop of the servers.
      workers: 1,
      // autocannon always connects with `rejectUnauthorized: false` (lib/httpClient.js), so the CA is passed for
      // completeness only; the pre-flight requests of `requestOnce` are the ones that verify the certificate.
      tlsOptions: { ca: target.ca }
    }, (error, result) => {
      if (error) resume(Effect.fail(new BenchError({ message: `autocannon failed: ${error}` })))
      else resume(Effect.succeed(result))
    })
    return Effect.sync(() => instance.stop())
  }).pipe(
    // autocannon ends a run after its duration even when requests hang (they count as timeouts after 10 s); this
    // only guards against the load generator itself not coming back.
    Effect.timeoutFail({
      duration: `${seconds + 30} seconds`,
      onTimeout: () => new BenchError({ message: `autocannon did not finish a ${seconds} s run against ${target.url}` })
    })
  )

const problemsOf = (result: autocannon.Result): Array<string> => {
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith("2"))
    .map(([status, { count }]) => `${count ?? 0} × ${status}`)
  return [
    result.errors > 0 ? `${result.errors} connection errors` : "",
    result.timeouts > 0 ? `${result.timeouts} timeouts` : "",
    result.non2xx > 0 ? `${result.non2xx} non-2xx answers (${statuses.join(", ")})` : "",
    result.mismatches > 0 ? `${result.mismatches} body mismatches` : "",
    result.requests.total === 0 ? "no request completed" : ""
  ].filter((problem) => problem !== "")
}

/**
 * Waits for the work a run left behind, by one more request of the same kind, which queues behind it. Requests
 * autocannon gave up on at the end of a run may still wait for a database connection (the baseline's `pg` does not
 * drop them), or, in PulseBridge, be cancelled through the same pool they wait in; and on the embedded database
 * two servers working at once would mix up their statements.
 */
const settle = (target: Target) => Effect.asVoid(requestOnce(target, 120))

/** What one measured run of a target used: autocannon's result and the CPU milliseconds of its spell. */
interface Sample {
  readonly result: autocannon.Result
  readonly cpuMs: number
  readonly serverMs: number | undefined
  readonly databaseMs: number | undefined
}

/** One measured run of `seconds` against `target`, with the CPU of this process, its threads and PostgreSQL. */
const sample = (target: Target, settings: LoadSettings, seconds: number, profileName?: string) =>
  Effect.gen(function*() {
    const measured = run(target, settings, seconds)
    const cpuBefore = process.cpuUsage()
    const threadsBefore = threadCpu()
    // PostgreSQL's processes when the benchmark runs on it (`DATABASE_URL`); the embedded database is a thread.
    const onPostgres = (process.env["DATABASE_URL"] ?? "") !== ""
    const postgresBefore = onPostgres ? postgresCpu() : new Map<number, number>()
    const result = yield* (profileName === undefined ? measured : profiled(profileName, measured, (r) =>
      r.requests.total))
    const cpu = process.cpuUsage(cpuBefore)
    const serverMs = cpuMsBetween(threadsBefore, threadCpu(), false)
    const databaseMs = onPostgres ? cpuMsBetween(postgresBefore, postgresCpu(), true) : undefined
    yield* settle(target)
    return { result, cpuMs: (cpu.user + cpu.system) / 1000, serverMs, databaseMs } satisfies Sample
  })

/** A warm-up run of `target` (its figures discarded, its problems kept), followed by `settle`. */
const warmUp = (target: Target, settings: LoadSettings) =>
  Effect.gen(function*() {
    const problems = settings.warmupSeconds > 0
      ? problemsOf(yield* run(target, settings, settings.warmupSeconds)).map((problem) => `warm-up: ${problem}`)
      : []
    yield* settle(target)
    return problems
  })

/**
 * The figures of one target over its samples: requests and CPU add up over the whole measured time; p50 and p99
 * are the slices' weighted by their requests (the slices' latency histograms are not kept).
 */
const combine = (samples: ReadonlyArray<Sample>, warmupProblems: ReadonlyArray<string>): Measurement => {
  const requests = samples.reduce((sum, s) => sum + s.result.requests.total, 0)
  const seconds = samples.reduce((sum, s) => sum + s.result.duration, 0)
  const total = Math.max(1, requests)
  const weighted = (of: (result: autocannon.Result) => number) =>
    Math.round(samples.reduce((sum, s) => sum + of(s.result) * s.result.requests.total, 0) / total)
  const added = (of: (s: Sample) => number | undefined) =>
    samples.some((s) => of(s) === undefined) ? undefined : samples.reduce((sum, s) => sum + of(s)!, 0) / total
  return {
    requests,
    requestsPerSecond: seconds > 0 ? requests / seconds : 0,
    p50: weighted((result) => result.latency.p50),
    p99: weighted((result) => result.latency.p99),
    problems: [...warmupProblems, ...samples.flatMap((s) => problemsOf(s.result))],
    cpuMsPerRequest: samples.reduce((sum, s) => sum + s.cpuMs, 0) / total,
    serverCpuMsPerRequest: added((s) => s.serverMs),
    databaseCpuMsPerRequest: added((s) => s.databaseMs)
  }
}

/**
 * A warm-up run (its figures discarded) followed by the measured run, each followed by `settle`. Problems of either
 * are recorded rather than failing at once, so that every route is measured; the caller fails the benchmark when
 * any run has problems. With `profileName`, the measured run is CPU-profiled when profiles are asked for (see
 * `Profile.ts`).
 */
export const measure = (target: Target, settings: LoadSettings, profileName?: string) =>
  Effect.gen(function*() {
    const warmupProblems = yield* warmUp(target, settings)
    return combine([yield* sample(target, settings, settings.durationSeconds, profileName)], warmupProblems)
  })

export interface SideBySide {
  readonly target: Target
  /** The name of its first slice's CPU profile, when profiles are asked for. */
  readonly profileName?: string | undefined
}

/**
 * Several servers measured side by side, in the same run: each is warmed up, then the measured time of each is cut
 * into `slices` runs that the servers take in turn (A B C A B C ...). On a shared machine whose speed drifts over
 * seconds (other guests, the database's own background work), a slow spell then falls on every server alike
 * instead of on whichever was measured during it; measured one after the other, the same two servers were seen to
 * trade places by a factor of two. Each server's figures add up its slices (`combine`).
 */
export const measureSideBySide = (targets: ReadonlyArray<SideBySide>, settings: LoadSettings) =>
  Effect.gen(function*() {
    const warmups = yield* Effect.forEach(targets, ({ target }) => warmUp(target, settings))
    const count = Math.max(1, Math.min(settings.slices ?? 1, settings.durationSeconds))
    const seconds = Math.max(1, Math.round(settings.durationSeconds / count))
    const samples = targets.map(() => [] as Array<Sample>)
    for (let slice = 0; slice < count; slice++) {
      for (const [i, { profileName, target }] of targets.entries()) {
        samples[i]!.push(yield* sample(target, settings, seconds, slice === 0 ? profileName : undefined))
      }
    }
    return targets.map((_, i) => combine(samples[i]!, warmups[i]!))
  })

export interface Response {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** One request; over HTTPS it trusts only the server's own certificate. */
export const requestOnce = (target: Target, timeoutSeconds = 10) =>
  Effect.tryPromise({
    try: (signal) =>
      new Promise<Response>((resolve, reject) => {
        const options = { method: target.method, headers: target.headers, agent: target.agent ?? false, signal }
        const onResponse = (response: http.IncomingMessage) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => {
            // A compressed answer is decoded, so that answers compare by their JSON.
            const raw = Buffer.concat(chunks)
            const encoding = response.headers["content-encoding"]
            const bytes = encoding === "br"
              ? zlib.brotliDecompressSync(raw)
              : encoding === "gzip"
              ? zlib.gunzipSync(raw)
              : raw
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: bytes.toString("utf8") })
          })
          response.on("error", reject)
        }
        // A kept-alive socket the server closed just as it was reused is reset before any answer ("socket hang up"
        // or ECONNRESET): the request is sent again once, on a socket of its own (the pool may hold more such
        // sockets), as browsers and HTTP clients do (Node's documentation of `reusedSocket`).
        const send = (retried: boolean) => {
          const sent = retried ? { ...options, agent: false } : options
          const request = new URL(target.url).protocol === "http:"
            ? http.request(target.url, sent, onResponse)
            : https.request(target.url, { ...sent, ca: target.ca }, onResponse)
          request.on("error", (error: NodeJS.ErrnoException) => {
            if (!retried && request.reusedSocket && error.code === "ECONNRESET") send(true)
            else reject(error)
          })
          request.end(target.body)
        }
        send(false)
      }),
    catch: (cause) => new BenchError({ message: `${target.method} ${target.url} failed: ${cause}` })
  }).pipe(
    Effect.timeoutFail({
      duration: `${timeoutSeconds} seconds`,
      onTimeout: () =>
        new BenchError({ message: `${target.method} ${target.url} got no answer within ${timeoutSeconds} s` })
    })
  )
