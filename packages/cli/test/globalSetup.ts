/**
 * Before the tests: build the `pulsebridge` command when `dist` is missing or older than a source, so that the
 * tests that run the executable in a child process never build it themselves (a build announces itself on stderr,
 * which those tests read, and costs seconds of a timed start).
 */
import { execFileSync } from "node:child_process"
import * as path from "node:path"

export default () => {
  execFileSync(process.execPath, [path.join(__dirname, "..", "scripts", "build.mjs"), "--if-stale"], {
    stdio: "inherit"
  })
}
