/**
 * A database for tests: an in-memory PGlite served on a loopback port by default, or a fresh
 * database on the PostgreSQL of `DATABASE_URL` (created for the layer, dropped after it).
 *
 * Creating and migrating a database from scratch is the largest fixed cost of a test file (PGlite's
 * `initdb` alone takes seconds), so both kinds start from a copy made once per migration set:
 * - PGlite: a dump of the data directory, empty or migrated, kept in the harness's cache (`Cache.ts`) and
 *   loaded into each new in-memory instance;
 * - PostgreSQL: a migrated template database, `pulsebridge_template_<key>`, that each test database is
 *   created from (`create database ... template ...`).
 * The key is a hash of the migrations' sources (and of the PGlite version), so a changed or added
 * migration makes a new copy. The migrator still runs over each copy: what it finds applied it skips.
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { embeddedSettings, MigratorLive, pgClientFromEndpoint, pgClientFromUrl } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import pg from "pg"
import { repoRoot, testCacheDir } from "./Cache.js"

const adminQuery = (url: string, query: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return await client.query(query)
    } finally {
      await client.end()
    }
  })

/** The URL of database `name` on the server of `url`. */
const databaseUrl = (url: string, name: string) => {
  const other = new URL(url)
  other.pathname = `/${name}`
  return other.toString()
}

/**
 * What the copies depend on: the migrations (every source file of their folder), the PGlite version
 * (its dump format) and a version of this recipe.
 */
const snapshotKey = (() => {
  const hash = crypto.createHash("sha256").update("recipe 1\n")
  const folder = path.join(repoRoot, "packages", "server", "src", "platform", "migrations")
  for (const file of fs.readdirSync(folder).sort()) {
    hash.update(`\n${file}\n`).update(fs.readFileSync(path.join(folder, file)))
  }
  const pgliteEntry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const pglitePackage = path.join(pgliteEntry, "..", "..", "package.json")
  hash.update(fs.existsSync(pglitePackage) ? fs.readFileSync(pglitePackage) : pgliteEntry)
  return hash.digest("hex").slice(0, 16)
})()

// ---------------------------------------------------------------------------------------------
// PostgreSQL

const templateName = `pulsebridge_template_${snapshotKey}`

/** Errors PostgreSQL answers while another session still leaves a database it must copy or rename. */
const isObjectInUse = (cause: unknown) => (cause as { code?: string } | undefined)?.code === "55006"

const adminStatement = (url: string, query: string) =>
  Effect.tryPromise({
    try: async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(query)
      } finally {
        await client.end()
      }
    },
    catch: (cause) => cause
  }).pipe(
    // A session that just closed may still be leaving the database on the server's side.
    Effect.retry({ while: isObjectInUse, times: 50, schedule: Schedule.spaced("100 millis") }),
    Effect.orDie
  )

/**
 * The migrated template of this migration set on the server of `url`, made by the first test that
 * needs it: migrated under a name of its own, then renamed, so that no test copies a half-made one.
 */
const ensureTemplate = (url: string) =>
  Effect.gen(function*() {
    const exists = yield* adminQuery(url, `select 1 from pg_database where datname = '${templateName}'`)
    if (exists.rowCount !== 0) return
    const building = `${templateName}_${crypto.randomBytes(4).toString("hex")}`
    yield* adminStatement(url, `create database ${building}`)
    yield* Effect.scoped(Layer.build(MigratorLive.pipe(
      Layer.provide(pgClientFromUrl(Redacted.make(databaseUrl(url, building))))
    ))).pipe(Effect.orDie)
    const renamed = yield* adminStatement(url, `alter database ${building} rename to ${templateName}`).pipe(
      Effect.as(true),
      // Another process made the template meanwhile: it is the same, so this one goes.
      Effect.catchAllDefect(() => Effect.succeed(false))
    )
    if (!renamed) yield* adminStatement(url, `drop database if exists ${building} with (force)`)
  })

const createDatabase = (url: string, template: string | undefined) =>
  Effect.gen(function*() {
    const name = `pulsebridge_test_${crypto.randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      adminStatement(url, `create database ${name}${template === undefined ? "" : ` template ${template}`}`),
      () => adminQuery(url, `drop database if exists ${name} with (force)`).pipe(Effect.ignore)
    )
    return databaseUrl(url, name)
  })

/** A fresh, empty database on the server of `url`; dropped when the scope closes. */
export const freshDatabase = (url: string) => createDatabase(url, undefined)

/** A fresh database with every migration applied, on the server of `url`; dropped when the scope closes. */
export const migratedDatabase = (url: string) => Effect.zipRight(ensureTemplate(url), createDatabase(url, templateName))

// ---------------------------------------------------------------------------------------------
// PGlite

type SnapshotKind = "empty" | "migrated"

interface Instance {
  readonly db: PGlite
  readonly server: PGLiteSocketServer
  readonly endpoint: { readonly host: string; readonly port: number }
}

/**
 * An in-memory PGlite (from a dump, or a new cluster without one) served on a loopback port, as the
 * server's embedded database is (see `startEmbedded` in the server's `Database.ts`); `stopInstance` ends it.
 */
const startInstance = (dump: Blob | undefined) =>
  Effect.promise(async (): Promise<Instance> => {
    const db = await PGlite.create({
      startParams: [...PGlite.defaultStartParams, ...embeddedSettings],
      ...(dump === undefined ? {} : { loadDataDir: dump })
    })
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 64 })
    await server.start()
    return { db, server, endpoint: { host: "127.0.0.1", port: Number(server.getServerConn().split(":").pop()) } }
  })

const stopInstance = (instance: Instance) =>
  Effect.promise(async () => {
    await instance.server.stop().catch(() => {})
    await instance.db.close().catch(() => {})
  })

/** An instance for the scope. */
const serveInMemory = (dump: Blob | undefined) => Effect.acquireRelease(startInstance(dump), stopInstance)

/** Makes a dump: a new cluster, migrated for `"migrated"`. */
const makeSnapshot = (kind: SnapshotKind): Effect.Effect<Blob> =>
  Effect.scoped(Effect.gen(function*() {
    const { db, endpoint } = yield* serveInMemory(kind === "empty" ? undefined : yield* snapshot("empty"))
    if (kind === "migrated") {
      yield* Effect.scoped(Layer.build(MigratorLive.pipe(Layer.provide(pgClientFromEndpoint(endpoint))))).pipe(
        Effect.orDie
      )
    }
    return yield* Effect.promise(() => db.dumpDataDir("none"))
  }))

/** The dumps this process has read or made: the 40 MB file, read again for each test, was a tenth of its CPU. */
const snapshots = new Map<SnapshotKind, Blob>()

/**
 * The dump of this kind, from this process's memory, the cache, or made and stored there. Two processes that make
 * the same dump at once each write their own file and rename it into place: either one is whole.
 */
const snapshot = (kind: SnapshotKind): Effect.Effect<Blob> =>
  Effect.gen(function*() {
    const known = snapshots.get(kind)
    if (known !== undefined) return known
    const file = path.join(testCacheDir, `pglite-${kind}-${snapshotKey}.tar`)
    if (fs.existsSync(file)) {
      const read = new Blob([fs.readFileSync(file)])
      snapshots.set(kind, read)
      return read
    }
    const dump = yield* makeSnapshot(kind)
    yield* Effect.promise(async () => {
      fs.mkdirSync(testCacheDir, { recursive: true })
      const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`
      fs.writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()))
      fs.renameSync(temporary, file)
    })
    snapshots.set(kind, dump)
    return dump
  })

// ---------------------------------------------------------------------------------------------
// Reused migrated instances

/**
 * Migrated in-memory instances of this process that no test holds: each was handed back empty (`reset`), so a
 * new test database may take one instead of opening PGlite and loading the dump again (most of a second of CPU
 * each, for every server test file). Test files run one at a time in a worker, and a test holds its instance
 * for its layer's lifetime, so an instance never serves two tests at once.
 */
const idle: Array<Instance> = []
/** Every table of the migrated schema and its columns, as the dump has them: a reset keeps only such a database. */
let pristineShape: string | undefined

const shapeOf = (db: PGlite) =>
  Effect.promise(() =>
    db.query<{ readonly shape: string }>(
      `select string_agg(table_name || '.' || column_name || ':' || data_type, ',' order by table_name, column_name)
         as shape
       from information_schema.columns
       where table_schema = 'public' and table_name not like 'cluster\\_%'`
    )
  ).pipe(Effect.map((result) => result.rows[0]?.shape ?? ""))

/**
 * Empties an instance a test has finished with, as the dump had it: its session's state discarded (an open
 * transaction, prepared statements, settings), every table emptied but the migrations' own (the cluster's
 * tables, which the server makes at run time, too) and identities restarted. An instance whose tables or columns
 * a test changed is closed instead. True when it may be reused.
 */
const reset = (db: PGlite) =>
  Effect.gen(function*() {
    yield* Effect.promise(async () => {
      if (db.isInTransaction()) await db.exec("rollback")
      await db.exec("discard all")
      const { rows } = await db.query<{ readonly name: string }>(
        `select quote_ident(schemaname) || '.' || quote_ident(tablename) as name
         from pg_tables
         where schemaname not in ('pg_catalog', 'information_schema') and tablename <> 'pulsebridge_migrations'`
      )
      if (rows.length > 0) await db.exec(`truncate ${rows.map((row) => row.name).join(", ")} restart identity cascade`)
    })
    return (yield* shapeOf(db)) === pristineShape
  }).pipe(Effect.catchAllDefect(() => Effect.succeed(false)))

/** A migrated instance for one test database: an idle one of this process, or a new one from the dump. */
const pooledMigrated = Effect.acquireRelease(
  Effect.gen(function*() {
    const reused = idle.pop()
    if (reused !== undefined) return reused
    const instance = yield* startInstance(yield* snapshot("migrated"))
    if (pristineShape === undefined) pristineShape = yield* shapeOf(instance.db)
    return instance
  }),
  (instance) =>
    Effect.flatMap(
      reset(instance.db),
      (reusable) => reusable ? Effect.sync(() => idle.push(instance)) : stopInstance(instance)
    )
).pipe(Effect.map((instance) => instance.endpoint))

// ---------------------------------------------------------------------------------------------
// Layers

const usePostgres = () => {
  const url = process.env["DATABASE_URL"]
  return url !== undefined && url !== "" ? url : undefined
}

const clientLayer = (kind: SnapshotKind): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const url = usePostgres()
      if (url !== undefined) {
        const database = kind === "empty" ? yield* freshDatabase(url) : yield* migratedDatabase(url)
        return pgClientFromUrl(Redacted.make(database))
      }
      const endpoint = kind === "migrated"
        ? yield* pooledMigrated
        : (yield* serveInMemory(yield* snapshot(kind))).endpoint
      return pgClientFromEndpoint(endpoint)
    })
  )

/** A client on an empty database (no migrations). */
export const TestPgClientLive: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> = clientLayer("empty")

/** A migrated database. */
export const TestDatabaseLive = MigratorLive.pipe(Layer.provideMerge(clientLayer("migrated")))

export const databaseKind = (): "postgres" | "pglite" => usePostgres() !== undefined ? "postgres" : "pglite"
