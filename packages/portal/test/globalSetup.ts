/**
 * Before the portal's tests: build the browser bundle when `dist` is missing or older than a source,
 * so the tests always drive the UI as the sources say.
 */
import { execFileSync } from "node:child_process"
import * as path from "node:path"

export default () => {
  execFileSync(process.execPath, [path.join(__dirname, "..", "scripts", "build.mjs"), "--if-stale"], {
    stdio: "inherit"
  })
}
