#!/usr/bin/env node
/**
 * The `pulsebridge` command on compiled JavaScript (`npm run build` first), run by plain Node with no
 * TypeScript loader: the production entry point, used by the container image. The resolution hooks
 * must be registered before the CLI's first import, hence the dynamic import.
 */
import { register } from "node:module"

register("./compiled-hooks.mjs", import.meta.url)
await import("../build/src/bin.js")
