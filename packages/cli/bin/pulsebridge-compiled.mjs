#!/usr/bin/env node
/**
 * The `pulsebridge` command on compiled JavaScript (`npm run build` first), run by plain Node with no
 * TypeScript loader: the production entry point, used by the container image. The resolution hooks
 * must be registered before the CLI's first import, hence the dynamic import.
 */
// A namespace import: Node 20 has no `enableCompileCache`, and a named import of it would fail to link.
import * as nodeModule from "node:module"

nodeModule.register("./compiled-hooks.mjs", import.meta.url)
// From Node 22.1 on, compiled code is kept between runs (see `pulsebridge.mjs`).
nodeModule.enableCompileCache?.()
await import("../build/src/bin.js")
