/**
 * Where the test harness keeps what it makes once and reuses across test files and runs (database
 * dumps, a TLS certificate): `node_modules/.cache/pulsebridge-tests` at the repository's root.
 * Deleting the folder is always safe; it is made again on the next run.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository's root: the nearest folder above this file that holds `packages/server`. */
export const repoRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(dir, "packages", "server", "package.json"))) {
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error("the test harness cannot find the repository's packages/server")
    dir = parent
  }
  return dir
})()

export const testCacheDir = path.join(repoRoot, "node_modules", ".cache", "pulsebridge-tests")
