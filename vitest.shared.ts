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
