/**
 * The embedded database's thread and its data dir's lock, in plain Node with no other module of the server, so that
 * the CLI can start it before it loads the rest (`prestartEmbedded`): a command then opens its database while its own
 * modules are still loading, and `Database.ts` adopts the thread (`claimPrestarted`) instead of starting one.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { Worker } from "node:worker_threads"

/** What `DATA_DIR/pg.lock` says: who holds the embedded database, and its loopback port once it serves. */
export interface LockInfo {
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

export const lockPath = (dataDir: string) => path.join(dataDir, "pg.lock")

/**
 * Who holds the embedded database of `dataDir`, if another live process does. A lock file that cannot be read yet
 * (its owner is writing it) counts as held by an unknown, starting process.
 */
export const lockHolder = (dataDir: string): LockInfo | undefined => {
  let text: string
  try {
    text = fs.readFileSync(lockPath(dataDir), "utf8")
  } catch {
    return undefined
  }
  try {
    const info = JSON.parse(text) as LockInfo
    return typeof info.pid === "number" && info.pid !== process.pid && isAlive(info.pid) ? info : undefined
  } catch {
    return { pid: -1, port: null }
  }
}

/** Takes the data dir's lock with an exclusive create (a lock of a dead process is replaced); its descriptor. */
export const takeLock = (dataDir: string): number => {
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
      const holder = lockHolder(dataDir)
      if (holder !== undefined) {
        throw new Error(`the embedded database in ${dataDir} is in use by process ${holder.pid}`)
      }
      fs.rmSync(lockPath(dataDir), { force: true })
    }
  }
  throw new Error(`could not take the lock of ${dataDir}`)
}

/** Gives the lock up. */
export const releaseLock = (dataDir: string, fd: number) => {
  fs.closeSync(fd)
  fs.rmSync(lockPath(dataDir), { force: true })
}

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

/** The thread's first answer: the port it serves on, or why it could not open the database. */
export type ThreadAnswer =
  | { readonly _tag: "Serving"; readonly port: number }
  | { readonly _tag: "Failed"; readonly message: string; readonly cause?: unknown }

export interface EmbeddedThread {
  readonly worker: Worker
  /** Settles once the thread serves or fails to open (also when it stops first); listens from the start. */
  readonly answer: Promise<ThreadAnswer>
}

/** Starts the thread over `pgDir` (in memory when undefined). */
export const startThread = (pgDir: string | undefined, templateFile: string | undefined): EmbeddedThread => {
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
  const answer = new Promise<ThreadAnswer>((resolve) => {
    // Only these listeners are removed: the worker keeps listeners of its own (`removeAllListeners` would take its
    // messages away).
    const settle = (answer: ThreadAnswer) => {
      worker.off("error", onError)
      worker.off("exit", onExit)
      resolve(answer)
    }
    const onError = (error: Error) =>
      settle({ _tag: "Failed", message: `cannot open the embedded database: ${error.message}`, cause: error })
    const onExit = (code: number) =>
      settle({ _tag: "Failed", message: `the embedded database stopped while opening (exit code ${code})` })
    worker.once("error", onError)
    worker.once("exit", onExit)
    worker.once("message", (message: { readonly port?: number; readonly error?: string }) =>
      settle(
        message.port === undefined
          ? { _tag: "Failed", message: message.error ?? "cannot open the embedded database" }
          : { _tag: "Serving", port: message.port }
      ))
  })
  return { worker, answer }
}

/** Asks the thread to close the database (a checkpoint) and waits up to `timeoutMs` for it to end; then stops it. */
export const closeThread = (worker: Worker, timeoutMs: number): Promise<boolean> =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      void worker.terminate()
      resolve(false)
    }, timeoutMs)
    worker.once("exit", () => {
      clearTimeout(timer)
      resolve(true)
    })
    worker.postMessage("close")
  })

// ---- started ahead of the application ----

interface Prestarted {
  readonly dataDir: string
  readonly fd: number
  readonly thread: EmbeddedThread
}

// On `globalThis`, so that the CLI's entry module and the application's modules share it however they are bundled.
const registryKey = Symbol.for("@pulsebridge/server/prestartedEmbedded")
const registry = (): Map<string, Prestarted> => {
  const holder = globalThis as { [registryKey]?: Map<string, Prestarted> }
  return (holder[registryKey] ??= new Map())
}

/**
 * Starts the embedded database of `dataDir` now, taking its lock, unless another process holds it (the
 * application then attaches to that process's database as it does otherwise). Does nothing when anything goes
 * wrong: the application then opens the database itself and reports what is wrong. The thread does not keep the
 * process alive until it is claimed; whoever started it calls `closeUnclaimed` when done.
 */
export const prestartEmbedded = (dataDir: string): void => {
  try {
    const key = path.resolve(dataDir)
    if (registry().has(key) || lockHolder(dataDir) !== undefined) return
    const fd = takeLock(dataDir)
    const thread = startThread(path.join(dataDir, "pg"), embeddedTemplateFile())
    thread.worker.unref()
    registry().set(key, { dataDir, fd, thread })
  } catch {
    // The application opens it as usual.
  }
}

/** The thread started ahead for `dataDir`, with its lock, now the caller's to run and close; none when there is none. */
export const claimPrestarted = (dataDir: string): Prestarted | undefined => {
  const key = path.resolve(dataDir)
  const prestarted = registry().get(key)
  registry().delete(key)
  prestarted?.thread.worker.ref()
  return prestarted
}

/** Closes what was started ahead and never claimed (a command that did not need its database after all). */
export const closeUnclaimed = async (): Promise<void> => {
  const unclaimed = [...registry().values()]
  registry().clear()
  await Promise.all(unclaimed.map(async ({ dataDir, fd, thread }) => {
    // A thread that could not open the database has nothing to close.
    if ((await thread.answer)._tag === "Serving") await closeThread(thread.worker, 30_000)
    else await thread.worker.terminate()
    releaseLock(dataDir, fd)
  }))
}
