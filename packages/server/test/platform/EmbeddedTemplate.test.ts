/**
 * A new embedded database starts from the template of an initialised data dir: the first new database makes it,
 * the next one starts from it and is a whole database, and a template that cannot be loaded is replaced by a plain
 * `initdb` (and a good template). The template is the embedded database's, so the run against the PostgreSQL of
 * `DATABASE_URL` leaves this file out (`vitest.config.ts`): it would repeat it check for check.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startEmbedded } from "../../src/platform/Database.js"
import { embeddedClient, rowsOf } from "../fixtures/EmbeddedClient.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pulsebridge-template-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Opens the embedded database of `dataDir` from `template`, writes a row and reads it back, then closes it. */
const roundTrip = (dataDir: string, template: string) =>
  Effect.scoped(Effect.gen(function*() {
    const client = yield* embeddedClient(yield* startEmbedded(dataDir, template))
    yield* rowsOf(client, "CREATE TABLE t (id int primary key, name text)")
    yield* rowsOf(client, "INSERT INTO t VALUES (1, 'one')")
    const rows = yield* rowsOf<{ name: string }>(client, "SELECT name FROM t WHERE id = 1")
    return rows.map((row) => row.name)
  }))

describe("the embedded database's template", () => {
  it.live("the first new database makes the template; the next one starts from it whole", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const template = path.join(dir, "cache", "template.tar.gz")
      expect(yield* roundTrip(path.join(dir, "a"), template)).toEqual(["one"])
      expect(fs.statSync(template).size).toBeGreaterThan(0)
      const made = fs.statSync(template).mtimeMs

      expect(yield* roundTrip(path.join(dir, "b"), template)).toEqual(["one"])
      expect(fs.existsSync(path.join(dir, "b", "pg", "PG_VERSION"))).toBe(true)
      // Loaded, not made again.
      expect(fs.statSync(template).mtimeMs).toBe(made)
      // An existing data dir opens as it is: the row written before is there.
      const reopened = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* embeddedClient(yield* startEmbedded(path.join(dir, "b"), template))
        return (yield* rowsOf<{ n: number }>(client, "SELECT count(*)::int AS n FROM t"))[0]?.n
      }))
      expect(reopened).toBe(1)
    }).pipe(Effect.scoped), 300_000)

  it.live(
    "a template that cannot be loaded gives way to initdb, which writes a good one",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const template = path.join(dir, "template.tar.gz")
        fs.writeFileSync(template, "not a tarball")
        expect(yield* roundTrip(path.join(dir, "c"), template)).toEqual(["one"])
        expect(fs.statSync(template).size).toBeGreaterThan(1000)
        expect(yield* roundTrip(path.join(dir, "d"), template)).toEqual(["one"])
      }).pipe(Effect.scoped),
    300_000
  )
})
