/**
 * The environment variables as named once in `EnvVars`: the README's table of variables lists exactly those, and
 * the configuration's decoder reads exactly those but the few read beside it, so that neither can drift again.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as PathPatch from "effect/ConfigProviderPathPatch"
import * as Effect from "effect/Effect"
import * as HashSet from "effect/HashSet"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { envVarNames, EnvVars } from "../../src/platform/EnvVars.js"
import { serverConfig } from "../../src/platform/ServerConfig.js"

const readme = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "README.md")

/** The variables named in the first column of the table under `## Configuration`, in the order written. */
const documentedVariables = (markdown: string): Array<string> => {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Configuration\n"))
  if (section === undefined) throw new Error("README.md has no `## Configuration` section")
  return section
    .split("\n")
    .filter((line) => line.startsWith("|") && !/^\|\s*(?:Variable\s*\||-)/.test(line))
    .flatMap((line) => [...line.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!))
}

/** The variables `config` asks for when none is set. */
const variablesRead = <A>(config: Effect.Effect<A, ConfigError.ConfigError>) => {
  const read = new Set<string>()
  const recording = ConfigProvider.fromFlat(ConfigProvider.makeFlat({
    load: (names) => {
      read.add(names.join("."))
      return Effect.fail(ConfigError.MissingData([...names], "unset"))
    },
    enumerateChildren: () => Effect.succeed(HashSet.empty()),
    patch: PathPatch.empty
  }))
  return Effect.as(Effect.withConfigProvider(config, recording), read)
}

const sorted = (names: Iterable<string>) => [...names].sort()

describe("environment variables", () => {
  it("each is named once", () => {
    expect(new Set(envVarNames).size).toBe(envVarNames.length)
  })

  it("the README's table lists each of them once, and no other", () => {
    const documented = documentedVariables(fs.readFileSync(readme, "utf8"))
    expect(new Set(documented).size, "a variable listed twice").toBe(documented.length)
    expect(sorted(documented)).toEqual(sorted(envVarNames))
  })

  it.effect("the decoder reads all of them but the logging, key-rotation and heap settings, and no other", () =>
    Effect.gen(function*() {
      const readElsewhere: ReadonlyArray<string> = [
        EnvVars.logLevel,
        EnvVars.logFormat,
        EnvVars.secretKeysOld,
        EnvVars.heapGrowthPercent
      ]
      const read = yield* variablesRead(serverConfig)
      expect(sorted(read)).toEqual(sorted(envVarNames.filter((name) => !readElsewhere.includes(name))))
    }))
})
