/**
 * The database: PostgreSQL through `@effect/sql-pg`. With `DATABASE_URL` unset, an embedded
 * PGlite persisted under `DATA_DIR/pg` runs in a thread of its own and is served on a loopback port by
 * `@electric-sql/pglite-socket`,
 * so the same client and the same SQL serve both. One process owns an embedded data dir at a time;
 * the owner records its loopback port in `DATA_DIR/pg.lock` so that the CLI can work through it.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlError from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as String from "effect/String"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Pg from "pg"
import { trackPool } from "./DatabasePool.js"
import { EmbeddedPool } from "./EmbeddedPool.js"
import type { EmbeddedThread, LockInfo } from "./EmbeddedThread.js"
import {
  claimPrestarted,
  closeThread,
  embeddedTemplateFile,
  lockHolder,
  releaseLock,
  startThread,
  takeLock
} from "./EmbeddedThread.js"
import { migrations } from "./migrations/index.js"
import { defaultServerConfig, ServerConfig } from "./ServerConfig.js"

export { embeddedSettings, embeddedTemplateFile } from "./EmbeddedThread.js"

export class DatabaseError extends Data.TaggedError("DatabaseError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface EmbeddedEndpoint {
  readonly host: string
  readonly port: number
}

/**
 * Who holds the embedded database of `dataDir`, if another live process does. A lock file that cannot be read yet
 * (its owner is writing it) counts as held by an unknown, starting process.
 */
export const readLock = (dataDir: string): Option.Option<LockInfo> => Option.fromNullable(lockHolder(dataDir))

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

/** Takes the data dir's lock with an exclusive create (`takeLock`), given up with the scope. */
const acquireLock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => takeLock(dataDir),
      catch: (cause) => new DatabaseError({ message: (cause as Error).message, cause })
    }),
    (fd) => Effect.sync(() => releaseLock(dataDir, fd))
  )

/** How long closing the embedded database may take before its thread is stopped. */
export const embeddedCloseTimeout = Duration.seconds(30)

/**
 * Runs the embedded database's thread (`start` starts it, or hands over the one started ahead) and waits until it
 * serves; the scope closes the database (and stops the thread). A thread that stops on its own while the server runs
 * takes the process down with a message: nothing can be stored without it.
 */
const runEmbeddedThread = (start: () => EmbeddedThread) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const { answer, worker } = start()
      const closing = { value: false }
      return Effect.promise(() => answer).pipe(
        Effect.flatMap((answer) => {
          if (answer._tag === "Failed") {
            void worker.terminate()
            return Effect.fail(new DatabaseError({ message: answer.message, cause: answer.cause }))
          }
          worker.on("error", (error) => console.error(`the embedded database failed: ${error.message}`))
          worker.once("exit", (code) => {
            if (closing.value) return
            console.error(`the embedded database stopped (exit code ${code}); the server stops too`)
            process.exitCode = 1
            process.kill(process.pid, "SIGTERM")
          })
          return Effect.succeed({ worker, port: answer.port, closing })
        })
      )
    }),
    ({ closing, worker }) =>
      Effect.promise(() => {
        closing.value = true
        return closeThread(worker, Duration.toMillis(embeddedCloseTimeout))
      }).pipe(
        Effect.flatMap((closed) =>
          closed ? Effect.void : Effect.logWarning(
            `Shutdown: the embedded database did not close within ${
              Duration.format(embeddedCloseTimeout)
            }; its thread is stopped`
          )
        )
      )
  )

/**
 * Opens PGlite (in memory when `dataDir` is undefined) in a thread of its own and serves it on a loopback port.
 * The socket server accepts many client connections and keeps each transaction on its own.
 * A new database starts from `templateFile` (by default `embeddedTemplateFile()`). A thread the CLI started ahead
 * for this data dir (`prestartEmbedded`) is taken over, with its lock, instead of starting one.
 */
export const startEmbedded = (dataDir: string | undefined, templateFile = embeddedTemplateFile()) =>
  Effect.gen(function*() {
    const prestarted = dataDir === undefined ? undefined : claimPrestarted(dataDir)
    const fd = prestarted !== undefined
      ? yield* Effect.acquireRelease(
        Effect.succeed(prestarted.fd),
        (fd) => Effect.sync(() => releaseLock(dataDir!, fd))
      )
      : dataDir === undefined
      ? undefined
      : yield* acquireLock(dataDir)
    const { port } = yield* runEmbeddedThread(() =>
      prestarted?.thread ?? startThread(dataDir === undefined ? undefined : path.join(dataDir, "pg"), templateFile)
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

const migrationsTable = "pulsebridge_migrations"

/** The id of this build's newest migration, as the migrator numbers them (`0026_mcp_oauth` is 26). */
export const newestMigrationId = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

/** The newest migration applied to the database, 0 for none; fails when the migrations table cannot be read. */
export const appliedMigrationId = (sql: SqlClient.SqlClient) =>
  sql<{ readonly newest: number | null }>`select max(migration_id)::int as newest from ${sql(migrationsTable)}`.pipe(
    Effect.map(([row]) => row?.newest ?? 0)
  )

const migrator = PgMigrator.layer({
  loader: PgMigrator.fromRecord(migrations),
  table: migrationsTable
}).pipe(Layer.provide(NodeContext.layer))

/**
 * The migrations applied. The migrator (a transaction that locks its table, six statements in all) runs only when the
 * database is behind this build; one already at its newest migration, as every start of a migrated server and every
 * CLI command finds it, is told so by one statement. A database without the table yet is behind.
 */
export const MigratorLive = Layer.unwrapEffect(
  Effect.flatMap(SqlClient.SqlClient, appliedMigrationId).pipe(
    Effect.orElseSucceed(() => 0),
    Effect.map((applied) => applied >= newestMigrationId ? Layer.empty : migrator)
  )
)

/** SQL client with migrations applied. */
export const DatabaseLive = (options: { readonly attach: boolean }) =>
  MigratorLive.pipe(Layer.provideMerge(pgClientLayer(options)))

export const isUniqueViolation = (error: SqlError.SqlError): boolean =>
  (error.cause as { code?: string } | undefined)?.code === "23505"

export const redactedUrl = (url: string) => Redacted.make(url)
