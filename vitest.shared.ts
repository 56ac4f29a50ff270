import * as path from "node:path"
import type { ViteUserConfig } from "vitest/config"

const alias = (name: string) => ({
  [`@pulsebridge/${name}`]: path.join(__dirname, "packages", name, "src")
})

const config: ViteUserConfig = {
  esbuild: { target: "es2022" },
  test: {
    include: ["test/**/*.test.ts"],
    // Files share their worker's process and modules: see `poolOptions` in vitest.config.ts.
    isolate: false,
    setupFiles: [path.join(__dirname, "setupTests.ts")],
    // The portal's browser tests load its built bundle, and many tests run the built \`pulsebridge\` command:
    // both are rebuilt first when a source is newer.
    globalSetup: [
      path.join(__dirname, "packages", "portal", "test", "globalSetup.ts"),
      path.join(__dirname, "packages", "cli", "test", "globalSetup.ts")
    ],
    fakeTimers: { toFake: undefined },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    alias: {
      ...alias("domain"),
      ...alias("providers"),
      ...alias("sandbox"),
      ...alias("server"),
      ...alias("cli"),
      ...alias("testing"),
      ...alias("portal")
    }
  }
}

export default config
