import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// The browser tests load the built portal: the shared configuration's global setup rebuilds it first when a source
// is newer than the bundle.
export default mergeConfig(shared, {})
