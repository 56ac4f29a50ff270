#!/usr/bin/env node
/**
 * The `pulsebridge` executable (what `npm start` and `npm run cli` run): the command built into `dist/` as plain
 * JavaScript, built first when it is missing or older than a source (a check of file times; the build takes
 * seconds). Where there are no sources (an install of built files only), the build is run as it is.
 */
import { ensureBuilt, mainUrl } from "../scripts/build.mjs"

try {
  const built = await ensureBuilt()
  if (built !== undefined) process.stderr.write(`pulsebridge: built dist/${built.entry} in ${built.ms} ms\n`)
} catch (error) {
  process.stderr.write(`pulsebridge: cannot build the command: ${error instanceof Error ? error.message : error}\n`)
  process.exit(1)
}
await import(mainUrl)
