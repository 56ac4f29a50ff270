/**
 * The database: PostgreSQL through `@effect/sql-pg`. With `DATABASE_URL` unset, an embedded
 * PGlite persisted under `DATA_DIR/pg` runs in a thread of its own and is served on a loopback port by
 * `@electric-sql/pglite-socket`,
 * so the same client and the same SQL serve both. One process owns an embedded data dir at a time;
 * the owner records its loopback port in `DATA_DIR/pg.lock` so that the CLI can work through it.
 */
import { NodeContext } from "@effect/platform-node"
import { SqlError } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as String from "effect/String"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import * as Pg from "pg"
import { trackPool } from "./DatabasePool.js"
import { EmbeddedPool } from "./EmbeddedPool.js"
import { migrations } from "./migrations/index.js"
import { defaultServerConfig, ServerConfig } from "./ServerConfig.js"

export class DatabaseError extends Data.TaggedError("DatabaseError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface EmbeddedEndpoint {
  readonly host: string
  readonly port: number
}

interface LockInfo {
  readonly pid: number
  /** Null while the owner is still starting its database. */
  readonly port: number | null
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const lockPath = (dataDir: string) => path.join(dataDir, "pg.lock")

/**
 * Who holds the embedded database of `dataDir`, if a live process does. A lock file that cannot
 * be read yet (its owner is writing it) counts as held by an unknown, starting process.
 */
export const readLock = (dataDir: string): Option.Option<LockInfo> => {
  let text: string
  try {
    text = fs.readFileSync(lockPath(dataDir), "utf8")
  } catch {
    return Option.none()
  }
  try {
    const info = JSON.parse(text) as LockInfo
    return typeof info.pid === "number" && info.pid !== process.pid && isAlive(info.pid)
      ? Option.some(info)
      : Option.none()
  } catch {
    return Option.some({ pid: -1, port: null })
  }
}

/** Waits (up to 30 s) for a starting owner to publish its port. */
const waitForPort = (dataDir: string) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 150; attempt++) {
      const holder = readLock(dataDir)
      if (Option.isNone(holder)) return Option.none<number>()
      if (holder.value.port !== null) return Option.some(holder.value.port)
      yield* Effect.sleep("200 millis")
    }
    return yield* new DatabaseError({
      message: `the embedded database in ${dataDir} is held by a process that has not finished starting`
    })
  })

/** Takes the data dir's lock with an exclusive create; a lock of a dead process is replaced. */
const acquireLock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        fs.mkdirSync(dataDir, { recursive: true })
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            const fd = fs.openSync(lockPath(dataDir), "wx", 0o600)
            // The pid goes in at once, so the lock is never an empty file another process could misread.
            fs.writeSync(fd, JSON.stringify({ pid: process.pid, port: null } satisfies LockInfo))
            fs.fsyncSync(fd)
            return fd
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
            const holder = readLock(dataDir)
            if (Option.isSome(holder)) {
              throw new Error(
                `the embedded database in ${dataDir} is in use by process ${holder.value.pid}`
              )
            }
            fs.rmSync(lockPath(dataDir), { force: true })
          }
        }
        throw new Error(`could not take the lock of ${dataDir}`)
      },
      catch: (cause) => new DatabaseError({ message: (cause as Error).message, cause })
    }),
    (fd) =>
      Effect.sync(() => {
        fs.closeSync(fd)
        fs.rmSync(lockPath(dataDir), { force: true })
      })
  )

// ---- the initialised data dir template ----

/**
 * Where the template of a new embedded database is kept: a gzipped tarball of the data dir `initdb` makes, for
 * the installed PGlite version, under `node_modules/.cache/pulsebridge/`. `initdb` is most of a first start
 * (several seconds of WebAssembly); unpacking the template into a new data dir takes a fraction of that, and
 * the migrations then run on it as on any new database. `packages/cli/scripts/build.mjs` makes it at install;
 * without it the first new database makes it. Undefined when PGlite's package cannot be found.
 */
export const embeddedTemplateFile = (): string | undefined => {
  try {
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
    const packageDir = path.resolve(path.dirname(entry), "..")
    const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")) as {
      version: string
    }
    return path.join(packageDir, "..", "..", ".cache", "pulsebridge", `pglite-${version}-initdb.tar.gz`)
  } catch {
    return undefined
  }
}

/**
 * Settings of the embedded database beyond PGlite's own start parameters. `shared_buffers` is 32 MB instead of
 * PostgreSQL's 128 MB: PGlite clears its whole buffer pool in its WebAssembly memory at every open, which took a
 * third of a second and committed 128 MB of memory for a database whose files the operating system caches anyway
 * (a CLI command opens it each time; the tests open one per file).
 */
export const embeddedSettings: ReadonlyArray<string> = ["-c", "shared_buffers=32MB"]

/**
 * The embedded database's thread. PGlite runs its WebAssembly on the thread that calls it, so on the server's own
 * thread every statement held the event loop: a backfill's insert of a week of glucose readings held every other
 * request for hundreds of milliseconds. Here PGlite and its socket server run in a worker thread of their own, and
 * the server talks to it over the loopback port as to any PostgreSQL.
 *
 * The thread opens `pgDir` (in memory when null). A new database starts from the template when there is one (and
 * makes it when there is none); a template that cannot be loaded is skipped for a plain `initdb`. It answers
 * `{ port }` once it serves, or `{ error }`; on `"close"` it stops serving, closes the database (a checkpoint) and
 * ends. Plain CommonJS, so that it runs the same from the sources and from the build.
 */
const embeddedThreadScript = `
const { parentPort, workerData } = require("node:worker_threads")
const fs = require("node:fs")
const path = require("node:path")
const { PGlite } = require(workerData.pglite)
const { PGLiteSocketServer } = require(workerData.socket)
const { pgDir, templateFile, settings } = workerData

const isEmptyDir = (dir) => {
  try {
    return fs.readdirSync(dir).length === 0
  } catch (e) {
    return e.code === "ENOENT"
  }
}
const readTemplate = () => {
  if (templateFile === null) return undefined
  try {
    return new Blob([fs.readFileSync(templateFile)])
  } catch {
    return undefined
  }
}
// Writes the template from a database initdb has just made (nothing else in it yet); best effort.
const saveTemplate = async (db) => {
  if (templateFile === null) return
  try {
    const dump = await db.dumpDataDir("gzip")
    fs.mkdirSync(path.dirname(templateFile), { recursive: true })
    const temporary = templateFile + "." + process.pid + "." + Math.random().toString(36).slice(2) + ".tmp"
    fs.writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()))
    fs.renameSync(temporary, templateFile)
  } catch {}
}
const open = async () => {
  const fresh = pgDir === null || isEmptyDir(pgDir)
  const template = fresh ? readTemplate() : undefined
  const create = (options) =>
    PGlite.create({
      ...(pgDir === null ? {} : { dataDir: pgDir }),
      startParams: [...PGlite.defaultStartParams, ...settings],
      ...options
    })
  if (template !== undefined) {
    try {
      return await create({ loadDataDir: template })
    } catch {
      if (pgDir !== null) fs.rmSync(pgDir, { recursive: true, force: true })
    }
  }
  const db = await create({})
  if (fresh) await saveTemplate(db)
  return db
}
const main = async () => {
  let db
  try {
    db = await open()
  } catch (e) {
    return parentPort.postMessage({ error: "cannot open the embedded database: " + (e && e.message || e) })
  }
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 64 })
  try {
    await server.start()
  } catch (e) {
    await db.close().catch(() => {})
    return parentPort.postMessage({ error: "cannot serve the embedded database: " + (e && e.message || e) })
  }
  parentPort.on("message", async (message) => {
    if (message !== "close") return
    await server.stop().catch(() => {})
    await db.close().catch(() => {})
    process.exit(0)
  })
  parentPort.postMessage({ port: Number(server.getServerConn().split(":").pop()) })
}
main()
`

/** How long closing the embedded database may take before its thread is stopped. */
export const embeddedCloseTimeout = Duration.seconds(30)

/**
 * Runs the embedded database's thread over `pgDir` and waits until it serves; the scope closes the database
 * (and stops the thread). A thread that stops on its own while the server runs takes the process down with a
 * message: nothing can be stored without it.
 */
const runEmbeddedThread = (pgDir: string | undefined, templateFile: string | undefined) =>
  Effect.acquireRelease(
    Effect.async<
      { readonly worker: Worker; readonly port: number; readonly closing: { value: boolean } },
      DatabaseError
    >(
      (resume) => {
        const require = createRequire(import.meta.url)
        const worker = new Worker(embeddedThreadScript, {
          eval: true,
          workerData: {
            pglite: require.resolve("@electric-sql/pglite"),
            socket: require.resolve("@electric-sql/pglite-socket"),
            pgDir: pgDir ?? null,
            templateFile: templateFile ?? null,
            settings: embeddedSettings
          }
        })
        const closing = { value: false }
        // Only these listeners are removed: the worker keeps listeners of its own (`removeAllListeners` would take
        // its messages away).
        const onError = (error: Error) => fail(`cannot open the embedded database: ${error.message}`, error)
        const onExit = (code: number) => fail(`the embedded database stopped while opening (exit code ${code})`)
        const stopListening = () => {
          worker.off("error", onError)
          worker.off("exit", onExit)
        }
        const fail = (message: string, cause?: unknown) => {
          stopListening()
          void worker.terminate()
          resume(Effect.fail(new DatabaseError({ message, cause })))
        }
        worker.once("error", onError)
        worker.once("exit", onExit)
        worker.once("message", (message: { readonly port?: number; readonly error?: string }) => {
          if (message.port === undefined) return fail(message.error ?? "cannot open the embedded database")
          stopListening()
          worker.on("error", (error) => console.error(`the embedded database failed: ${error.message}`))
          worker.once("exit", (code) => {
            if (closing.value) return
            console.error(`the embedded database stopped (exit code ${code}); the server stops too`)
            process.exitCode = 1
            process.kill(process.pid, "SIGTERM")
          })
          resume(Effect.succeed({ worker, port: message.port, closing }))
        })
      }
    ),
    ({ closing, worker }) =>
      Effect.async<void>((resume) => {
        closing.value = true
        worker.once("exit", () => resume(Effect.void))
        worker.postMessage("close")
      }).pipe(
        // A finalizer is uninterruptible: without this the timeout could not end the wait.
        Effect.interruptible,
        Effect.timeoutOption(embeddedCloseTimeout),
        Effect.tap(Option.match({
          onNone: () =>
            Effect.logWarning(
              `Shutdown: the embedded database did not close within ${
                Duration.format(embeddedCloseTimeout)
              }; its thread is stopped`
            ),
          onSome: () => Effect.void
        })),
        Effect.zipRight(Effect.promise(() => worker.terminate())),
        Effect.asVoid
      )
  )

/**
 * Opens PGlite (in memory when `dataDir` is undefined) in a thread of its own and serves it on a loopback port.
 * The socket server accepts many client connections and keeps each transaction on its own.
 * A new database starts from `templateFile` (by default `embeddedTemplateFile()`).
 */
export const startEmbedded = (dataDir: string | undefined, templateFile = embeddedTemplateFile()) =>
  Effect.gen(function*() {
    const fd = dataDir === undefined ? undefined : yield* acquireLock(dataDir)
    const { port } = yield* runEmbeddedThread(
      dataDir === undefined ? undefined : path.join(dataDir, "pg"),
      templateFile
    )
    if (fd !== undefined) {
      fs.ftruncateSync(fd, 0)
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, port } satisfies LockInfo), 0)
      fs.fsyncSync(fd)
    }
    return { host: "127.0.0.1", port } satisfies EmbeddedEndpoint
  })

const clientOptions = {
  transformResultNames: String.snakeToCamel,
  transformQueryNames: String.camelToSnake,
  connectTimeout: Duration.seconds(10)
} as const

/**
 * A client of the PostgreSQL server at `url`, whose every session bounds a statement's run time
 * (`statement_timeout`, sent when the connection opens): the backstop behind the request deadline,
 * which cancels the statement of an interrupted request, for work that runs outside any request.
 */
export const pgClientFromUrl = (
  url: Redacted.Redacted,
  statementTimeoutMs = defaultServerConfig.statementTimeoutMs,
  poolSize = defaultServerConfig.databasePoolSize
) =>
  pgClientFromPool(() =>
    new Pg.Pool({
      connectionString: Redacted.value(url),
      max: poolSize,
      connectionTimeoutMillis: Duration.toMillis(clientOptions.connectTimeout),
      application_name: "pulsebridge",
      ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {})
    })
  )

/** The longest a checkout of the embedded database's single connection may wait (also its connect time). */
const embeddedCheckoutTimeoutMs = 120_000

export const pgClientFromEndpoint = (endpoint: EmbeddedEndpoint) =>
  pgClientFromPool(() =>
    new EmbeddedPool({
      host: endpoint.host,
      port: endpoint.port,
      database: "postgres",
      user: "postgres",
      // The pool's one connection is shared by the API and the background sync, so a checkout may wait behind
      // another's transaction: a request waits until its own deadline (503 `ServiceUnavailable`, `REQUEST_TIMEOUT_MS`)
      // rather than failing at a short pool timeout as a 500, and background work waits its turn.
      connectionTimeoutMillis: embeddedCheckoutTimeoutMs,
      application_name: "pulsebridge",
      // PGlite has one session: its socket server interleaves the messages of concurrent client
      // connections, which mixes up prepared statements across transactions. One connection
      // keeps every query and transaction whole.
      max: 1
    })
  )

/**
 * A client over a pool this module opens (so that its gauges are observed, `DatabasePool.ts`), checked
 * with one query before it is handed out.
 */
const pgClientFromPool = (makePool: () => Pg.Pool) =>
  PgClient.layerFromPool({
    ...clientOptions,
    acquire: Effect.acquireRelease(
      Effect.gen(function*() {
        const pool = makePool()
        // An idle client that loses its server is replaced on the next checkout; the error is not the process's.
        pool.on("error", () => {})
        yield* Effect.tryPromise({
          try: () => pool.query("SELECT 1"),
          catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
        }).pipe(
          Effect.timeoutFail({
            duration: clientOptions.connectTimeout,
            onTimeout: () =>
              new SqlError.SqlError({
                cause: new Error("Connection timed out"),
                message: "PgClient: Connection timed out"
              })
          }),
          Effect.onError(() => Effect.promise(() => pool.end()).pipe(Effect.ignore))
        )
        return pool
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    ).pipe(Effect.tap(trackPool))
  })

/**
 * The client for the configured database. `attach` lets a second process (the CLI) work
 * through the embedded database of a running server instead of failing.
 */
export const pgClientLayer = (options: { readonly attach: boolean }) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const config = yield* ServerConfig
    if (Option.isSome(config.databaseUrl)) {
      return pgClientFromUrl(config.databaseUrl.value, config.statementTimeoutMs, config.databasePoolSize)
    }
    const holder = readLock(config.dataDir)
    if (Option.isSome(holder)) {
      if (!options.attach) {
        return yield* new DatabaseError({
          message: `the embedded database in ${config.dataDir} is in use by ` +
            `${holder.value.pid > 0 ? `process ${holder.value.pid}` : "another process"}; ` +
            `stop that process or set another DATA_DIR`
        })
      }
      const port = yield* waitForPort(config.dataDir)
      if (Option.isSome(port)) return pgClientFromEndpoint({ host: "127.0.0.1", port: port.value })
    }
    const endpoint = yield* startEmbedded(config.dataDir)
    return pgClientFromEndpoint(endpoint)
  }))

export const MigratorLive = PgMigrator.layer({
  loader: PgMigrator.fromRecord(migrations),
  table: "pulsebridge_migrations"
}).pipe(Layer.provide(NodeContext.layer))

/** SQL client with migrations applied. */
export const DatabaseLive = (options: { readonly attach: boolean }) =>
  MigratorLive.pipe(Layer.provideMerge(pgClientLayer(options)))

export const isUniqueViolation = (error: SqlError.SqlError): boolean =>
  (error.cause as { code?: string } | undefined)?.code === "23505"

export const redactedUrl = (url: string) => Redacted.make(url)
