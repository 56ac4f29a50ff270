/**
 * The root of the test run: one project per package (each `packages/<name>/vitest.config.ts`, built
 * on `vitest.shared.ts`) and the options that hold for the whole run.
 */
import * as os from "node:os"
import { defineConfig } from "vitest/config"

/**
 * One file per core, and at least two: test files spend much of their time waiting (on sockets, child
 * processes, provider simulators and polls), and Vitest's own default (one less than the cores) runs one
 * file at a time on a two-core machine. More files than cores made the tests that count on a quick
 * machine (rate-limit bursts, request deadlines during a sync) fail under load. `--maxWorkers` overrides it.
 */
const workers = Math.max(2, os.availableParallelism())

export default defineConfig({
  test: {
    projects: ["packages/*"],
    maxWorkers: workers,
    minWorkers: 1
  }
})
