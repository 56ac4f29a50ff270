#!/usr/bin/env node
/**
 * The `pulsebridge` command on compiled JavaScript (`npm run build` first), run by plain Node with no
 * TypeScript loader: the production entry point, used by the container image. The resolution hooks
 * must be registered before the CLI's first import, hence the dynamic import.
 */
import { enableCompileCache, register } from "node:module"

register("./compiled-hooks.mjs", import.meta.url)
// From Node 22.1 on, compiled code is kept between runs (see `pulsebridge.mjs`).
enableCompileCache?.()
await import("../build/src/bin.js")
