import * as path from "node:path"
import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

export default mergeConfig(shared, {
  test: {
    // The browser tests load the built portal: rebuild it first when a source is newer than the bundle.
    globalSetup: [path.join(__dirname, "test", "globalSetup.ts")]
  }
})
