import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// The browser tests load the built portal: the shared configuration's global setup rebuilds it first when a source
// is newer than the bundle. `expect.poll` waits as long as a page's own waits (`openPage`: 20 s) rather than
// vitest's 1 s: a login's password hash alone can take longer on a busy machine.
export default mergeConfig(shared, { test: { expect: { poll: { timeout: 20_000 } } } })
