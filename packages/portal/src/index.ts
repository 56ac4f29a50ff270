/**
 * The node side of the admin portal: where its built browser bundle lives, for the server that serves
 * it at `/portal`. The bundle itself is built from `ui/` by `scripts/build.mjs` (run by `postinstall`,
 * `npm start` and the test setup when `dist/` is missing or older than the sources).
 */
import { fileURLToPath } from "node:url"

/** The absolute path of the built portal: `index.html` and `assets/`. */
export const portalDist: string = fileURLToPath(new URL("../dist", import.meta.url))
