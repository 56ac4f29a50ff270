/**
 * The root of the test run: every package's tests as one set of files (`packages/<name>/test/**`), with the options
 * of `vitest.shared.ts` and those that hold for the whole run. A package's own `vitest.config.ts` runs that package
 * alone.
 *
 * One set, not one Vitest project per package: with `isolate: false` Vitest runs a project's files to their end
 * before it starts the next project's, so a package with one long file (the CLI's) held the other worker idle for
 * minutes.
 */
import * as os from "node:os"
import { configDefaults, defineConfig } from "vitest/config"
import shared from "./vitest.shared.js"

/**
 * One file more than the cores, and at least three: test files spend about a third of their time waiting (on
 * sockets, child processes, provider simulators, polls and the phases of the soak), so with one file per core the
 * two cores of a small machine were busy 65% of the run; with one more they are busy about 90%, and the suite takes
 * a fifth less time. Tests must hold on a loaded machine: one that counts on a quick one is a defect to fix, not a
 * reason to run fewer files at once. `--maxWorkers` overrides it.
 */
const workers = Math.max(3, os.availableParallelism() + 1)

/**
 * With `DATABASE_URL` set, the packages whose tests never open that database are left out: the CLI's (its
 * children always run on an embedded database of their own), the providers', the simulators' and the domain's.
 * There they would repeat, check for check, what the run on the embedded database checks.
 */
const databaseOnly = (process.env["DATABASE_URL"] ?? "") !== ""
const packages = databaseOnly ? "{server,portal,testing}" : "*"

/**
 * With `DATABASE_URL` set, also the server's files whose subject the database cannot change. Both runs reach their
 * database through the same client with the same SQL (the embedded one is PostgreSQL too, served on a loopback port),
 * so what differs is the server's own: many connections at once, several processes on one database, statement
 * timeouts, pool settings. These files check the wire (headers, malformed HTTP, hostile input, TLS, deadlines), the
 * portal's login and session rules, a provider's protocol through the simulators, or the start of a child process
 * that runs an embedded database of its own whatever `DATABASE_URL` says; on PostgreSQL they would repeat the
 * embedded run's checks one for one.
 */
const embeddedRunOnly = [
  "packages/server/test/fuzz/HttpLevel.test.ts",
  "packages/server/test/http/{ClientAbort,ClientAbortMemory,Errors,HostileInput,OpenApi,ResponseHeaders}.test.ts",
  "packages/server/test/mcp/McpTransport.test.ts",
  "packages/server/test/observability/Tracing.test.ts",
  "packages/server/test/platform/{Deadline,EmbeddedPool,EmbeddedPrestart,EmbeddedTemplate,Lifecycle,ServerEdges,Tls}.test.ts",
  "packages/server/test/portal/{Assets,SecondFactor,Session,Unauthenticated}.test.ts",
  "packages/server/test/providers/{DexcomV3,FitbitGoogleHealth,GarminOAuth2,WhoopDates}.test.ts"
]

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    // The benchmarks' own checks (scripts/bench) read files only: once, in the run on the embedded database.
    include: [`packages/${packages}/test/**/*.test.ts`, ...(databaseOnly ? [] : ["scripts/**/*.test.ts"])],
    exclude: [...(shared.test?.exclude ?? configDefaults.exclude), ...(databaseOnly ? embeddedRunOnly : [])],
    maxWorkers: workers,
    // As many from the start: with fewer, the pool ends a worker it finds idle beyond the minimum, and with
    // `isolate: false` that raced a file being handed to it (an unhandled "Terminating worker thread" that failed
    // the run, seen on a short run of the quick files).
    minWorkers: workers,
    // The files a worker runs share its process and every module (Effect, the platform, PGlite, the project's
    // own): a new process per file, loading them all again, was a third of the suite's CPU. What a file leaves in
    // the process is therefore seen by the next: metrics are the process's (tests compare counts before and
    // after), and `setupTests.ts` undoes what @effect/vitest leaves on Vitest's shared `it`.
    poolOptions: { forks: { isolate: false } }
  }
})
