#!/usr/bin/env node
/**
 * The installed `pulsebridge` executable: the CLI is TypeScript run from source, so tsx is registered first.
 */
import { register } from "tsx/esm/api"

register()
await import("../src/bin.ts")
