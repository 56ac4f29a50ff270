/**
 * The embedded database started ahead (`prestartEmbedded`, what the CLI does before loading a command's modules):
 * the database layer takes the thread and its lock over instead of starting another, and gives both up when it
 * closes; one never taken over is closed, its data whole, by `closeUnclaimed`; and nothing is started for a data dir
 * another live process holds. Embedded only (`vitest.config.ts`).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startEmbedded } from "../../src/platform/Database.js"
import { claimPrestarted, closeUnclaimed, lockPath, prestartEmbedded } from "../../src/platform/EmbeddedThread.js"
import { embeddedClient, rowsOf } from "../fixtures/EmbeddedClient.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-prestart-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const lockOf = (dataDir: string) =>
  JSON.parse(fs.readFileSync(lockPath(dataDir), "utf8")) as { pid: number; port: number | null }

/** Runs `statement` on the embedded database of `dataDir`, opened by `startEmbedded` and closed after. */
const query = (dataDir: string, statement: string) =>
  Effect.scoped(
    Effect.flatMap(startEmbedded(dataDir), embeddedClient).pipe(
      Effect.flatMap((client) => rowsOf(client, statement))
    )
  )

describe("the embedded database started ahead", () => {
  it.live("is taken over by the database layer, lock and all, and closed with it", () =>
    Effect.gen(function*() {
      const dataDir = path.join(yield* tempDir, "data")
      prestartEmbedded(dataDir)
      // Held at once, by this process, its port not published yet.
      expect(lockOf(dataDir)).toEqual({ pid: process.pid, port: null })
      const port = yield* Effect.scoped(Effect.gen(function*() {
        const endpoint = yield* startEmbedded(dataDir)
        const client = yield* embeddedClient(endpoint)
        yield* rowsOf(client, "CREATE TABLE t (id int primary key)")
        yield* rowsOf(client, "INSERT INTO t VALUES (1)")
        // Taken over: nothing is left to claim, and the lock names the port.
        expect(claimPrestarted(dataDir)).toBeUndefined()
        expect(lockOf(dataDir)).toEqual({ pid: process.pid, port: endpoint.port })
        return endpoint.port
      }))
      expect(port).toBeGreaterThan(0)
      expect(fs.existsSync(lockPath(dataDir))).toBe(false)
      // Closed properly: it opens again with its row.
      expect(yield* query(dataDir, "SELECT count(*)::int AS n FROM t")).toEqual([{ n: 1 }])
    }).pipe(Effect.scoped), 120_000)

  it.live(
    "one never taken over is closed whole by closeUnclaimed, and its lock given up",
    () =>
      Effect.gen(function*() {
        const dataDir = path.join(yield* tempDir, "data")
        yield* query(dataDir, "CREATE TABLE t (id int primary key)")
        yield* query(dataDir, "INSERT INTO t VALUES (1), (2)")
        prestartEmbedded(dataDir)
        expect(fs.existsSync(lockPath(dataDir))).toBe(true)
        yield* Effect.promise(closeUnclaimed)
        expect(fs.existsSync(lockPath(dataDir))).toBe(false)
        expect(yield* query(dataDir, "SELECT count(*)::int AS n FROM t")).toEqual([{ n: 2 }])
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "one that cannot open its database is given up, lock and all, its data dir left as it was",
    () =>
      Effect.gen(function*() {
        const dataDir = path.join(yield* tempDir, "data")
        fs.mkdirSync(dataDir, { recursive: true })
        // A file where the database's directory should be: PGlite cannot open it.
        fs.writeFileSync(path.join(dataDir, "pg"), "not a database")
        prestartEmbedded(dataDir)
        expect(fs.existsSync(lockPath(dataDir))).toBe(true)
        yield* Effect.promise(closeUnclaimed)
        expect(fs.existsSync(lockPath(dataDir))).toBe(false)
        expect(fs.readFileSync(path.join(dataDir, "pg"), "utf8")).toBe("not a database")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("starts nothing for a data dir another live process holds", () =>
    Effect.gen(function*() {
      const dataDir = path.join(yield* tempDir, "data")
      fs.mkdirSync(dataDir, { recursive: true })
      // The test runner's parent process is alive and is not this one.
      const held = JSON.stringify({ pid: process.ppid, port: 5 })
      fs.writeFileSync(lockPath(dataDir), held)
      prestartEmbedded(dataDir)
      expect(claimPrestarted(dataDir)).toBeUndefined()
      expect(fs.readFileSync(lockPath(dataDir), "utf8")).toBe(held)
      expect(fs.existsSync(path.join(dataDir, "pg"))).toBe(false)
    }).pipe(Effect.scoped))
})
