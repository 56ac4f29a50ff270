#!/usr/bin/env node
/**
 * The `pulsebridge` executable (what `npm start` and `npm run cli` run): the command built into `dist/` as plain
 * JavaScript, built first when it is missing or older than a source (a check of file times; the build takes
 * seconds). Where there are no sources (an install of built files only), the build is run as it is.
 */
import * as nodeModule from "node:module"
import { ensureBuilt, mainUrl } from "../scripts/build.mjs"

// From Node 22.1 on, the compiled code of the command's modules is kept between runs (in the system's temp
// directory, or NODE_COMPILE_CACHE), which saves a command about a tenth of a second; Node 20 has no such cache.
nodeModule.enableCompileCache?.()

try {
  const built = await ensureBuilt()
  if (built !== undefined) process.stderr.write(`pulsebridge: built dist/${built.entry} in ${built.ms} ms\n`)
} catch (error) {
  process.stderr.write(`pulsebridge: cannot build the command: ${error instanceof Error ? error.message : error}\n`)
  process.exit(1)
}
await import(mainUrl)
