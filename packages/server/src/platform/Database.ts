/**
 * The database: PostgreSQL through `@effect/sql-pg`. With `DATABASE_URL` unset, an embedded
 * PGlite persisted under `DATA_DIR/pg` is served on a loopback port by `@electric-sql/pglite-socket`,
 * so the same client and the same SQL serve both. One process owns an embedded data dir at a time;
 * the owner records its loopback port in `DATA_DIR/pg.lock` so that the CLI can work through it.
 */
import { NodeContext } from "@effect/platform-node"
import { SqlError } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
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
import * as Pg from "pg"
import { trackPool } from "./DatabasePool.js"
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

const readTemplate = (file: string | undefined): Blob | undefined => {
  if (file === undefined) return undefined
  try {
    return new Blob([fs.readFileSync(file)])
  } catch {
    return undefined
  }
}

/** Writes the template from a database `initdb` has just made (nothing else in it yet); best effort. */
const saveTemplate = (db: PGlite, file: string | undefined) =>
  file === undefined ? Effect.void : Effect.tryPromise(async () => {
    const dump = await db.dumpDataDir("gzip")
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const temporary = `${file}.${process.pid}.tmp`
    fs.writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()))
    fs.renameSync(temporary, file)
  }).pipe(Effect.ignore)

const isEmptyDir = (dir: string) => {
  try {
    return fs.readdirSync(dir).length === 0
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT"
  }
}

/**
 * Opens the PGlite of `pgDir` (in memory when undefined). A new database starts from the template when there is
 * one (and makes it when there is none); a template that cannot be loaded is skipped for a plain `initdb`.
 */
const openPglite = (pgDir: string | undefined, templateFile: string | undefined) =>
  Effect.gen(function*() {
    const fresh = pgDir === undefined || isEmptyDir(pgDir)
    const template = fresh ? readTemplate(templateFile) : undefined
    const create = (options: { readonly loadDataDir?: Blob }) =>
      Effect.tryPromise({
        try: () => PGlite.create(pgDir === undefined ? options : { dataDir: pgDir, ...options }),
        catch: (cause) => new DatabaseError({ message: `cannot open the embedded database: ${cause}`, cause })
      })
    if (template !== undefined) {
      const loaded = yield* Effect.either(create({ loadDataDir: template }))
      if (loaded._tag === "Right") return loaded.right
      if (pgDir !== undefined) fs.rmSync(pgDir, { recursive: true, force: true })
    }
    const db = yield* create({})
    if (fresh) yield* saveTemplate(db, templateFile)
    return db
  })

/**
 * Opens PGlite (in memory when `dataDir` is undefined) and serves it on a loopback port.
 * The socket server accepts many client connections and keeps each transaction on its own.
 * A new database starts from `templateFile` (by default `embeddedTemplateFile()`).
 */
export const startEmbedded = (dataDir: string | undefined, templateFile = embeddedTemplateFile()) =>
  Effect.gen(function*() {
    const fd = dataDir === undefined ? undefined : yield* acquireLock(dataDir)
    const db = yield* Effect.acquireRelease(
      openPglite(dataDir === undefined ? undefined : path.join(dataDir, "pg"), templateFile),
      (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 64 })
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => server.start(),
        catch: (cause) => new DatabaseError({ message: `cannot serve the embedded database: ${cause}`, cause })
      }),
      () => Effect.promise(() => server.stop()).pipe(Effect.ignore)
    )
    const port = Number(server.getServerConn().split(":").pop())
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
    new Pg.Pool({
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
