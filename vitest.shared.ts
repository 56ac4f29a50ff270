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
    // `expect.poll` waits for what a server or a page does, as long as a page's own waits do (the browser tests'
    // 20 s): Vitest's default of 1 s was shorter than a login's password hash on a busy two-core machine, and the
    // polls that missed an answer that came later were the portal tests' flakes.
    expect: { poll: { timeout: 20_000 } },
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
