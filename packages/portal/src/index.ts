/**
 * The node side of the admin portal: where its built browser bundle lives, for the server that serves
 * it at `/portal`. The bundle itself is built from `ui/` by `scripts/build.mjs` (run by `postinstall`,
 * `npm start` and the test setup when `dist/` is missing or older than the sources). The portal's JSON API is
 * the other entry point, `@pulsebridge/portal/api` (`src/api/`).
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

// This module runs from `src/` (tsx, tests) or compiled from `build/src/`; `dist/` sits at the package root.
const packageRoot = path.basename(path.dirname(here)) === "build"
  ? path.resolve(here, "..", "..")
  : path.resolve(here, "..")

/** The absolute path of the built portal: `index.html` and `assets/`. */
export const portalDist: string = path.join(packageRoot, "dist")
