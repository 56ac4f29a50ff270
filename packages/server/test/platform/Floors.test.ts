/**
 * The server's floors (docs/architecture.md): a module imports only from its own floor or the floors
 * below it; within the features' floor, a feature reaches another through its service or repository,
 * never through its `Http.ts`; no module keeps request data in a module-level map; the other
 * packages reach the server only through its named entry points; and the sources import the Effect
 * packages a module at a time. Read from the import lines, so the knot cannot grow back unnoticed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const packages = path.resolve(__dirname, "../../..")
const src = path.join(packages, "server", "src")

/** The floors, lowest first; a top-level file of `src` (App.ts, Main.ts, ...) is the top floor. */
const floors: ReadonlyArray<ReadonlyArray<string>> = [
  ["platform"],
  ["http"],
  ["access"],
  ["events"],
  [
    "apps",
    "users",
    "connections",
    "healthData",
    "sync",
    "webhooks",
    "journal",
    "scoring",
    "insights",
    "coverage",
    "sandbox"
  ],
  ["portal", "mcp", "observability"],
  ["."]
]

/** Imports that run up a floor on purpose, with their reason in docs/architecture.md. */
const exceptions: ReadonlyArray<string> = []

const filesUnder = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(full)
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [full] : []
  })

const importsOf = (file: string): Array<string> =>
  Array.from(
    fs.readFileSync(file, "utf8").matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^"']*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|\btsImport\(\s*["']([^"']+)["']/g
    ),
    (match) => match[1] ?? match[2] ?? match[3]!
  )

const folderOf = (file: string): string => {
  const relative = path.relative(src, file).split(path.sep)
  return relative.length === 1 ? "." : relative[0]!
}

const floorOf = (folder: string): number => {
  const index = floors.findIndex((floor) => floor.includes(folder))
  if (index < 0) throw new Error(`the folder ${folder} has no floor: add it to docs/architecture.md and this test`)
  return index
}

const serverFiles = filesUnder(src)

/** Every import between two folders of `src`, as `from -> to` with the importing file. */
const crossings = serverFiles.flatMap((file) =>
  importsOf(file).filter((spec) => spec.startsWith(".")).map((spec) => {
    const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts")
    return {
      file: path.relative(src, file),
      target: path.relative(src, target),
      from: folderOf(file),
      to: folderOf(target)
    }
  }).filter((edge) => edge.from !== edge.to)
)

describe("the server's floors", () => {
  it("every folder of src has a floor", () => {
    const folders = fs.readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) =>
      entry.name
    )
    for (const folder of folders) expect(() => floorOf(folder), folder).not.toThrow()
  })

  it("no import runs up a floor", () => {
    const upward = crossings
      .filter((edge) => floorOf(edge.to) > floorOf(edge.from))
      .map((edge) => `${edge.file} -> ${edge.target}`)
      .filter((line) => !exceptions.includes(line))
    expect(upward).toEqual([])
  })

  it("a feature reaches another only through its service or repository, never through its Http.ts", () => {
    const throughHttp = crossings
      .filter((edge) => path.basename(edge.target) === "Http.ts" && edge.from !== ".")
      .map((edge) => `${edge.file} -> ${edge.target}`)
    expect(throughHttp).toEqual([])
  })

  it("no module keeps request data in a module-level map", () => {
    const keyedByObject = serverFiles.filter((file) => /new WeakMap\b/.test(fs.readFileSync(file, "utf8")))
    expect(keyedByObject.map((file) => path.relative(src, file))).toEqual([])
  })

  it("the other packages import the server only through its named entry points", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(packages, "server", "package.json"), "utf8"))
    const entryPoints = Object.keys(manifest.exports as Record<string, unknown>)
      .map((key) => key === "." ? "@pulsebridge/server" : `@pulsebridge/server/${key.slice(2)}`)
    expect(entryPoints.every((name) => !name.includes("*"))).toBe(true)
    const outside = [
      ...["cli", "testing", "portal", "providers", "sandbox", "domain"].map((name) => path.join(packages, name)),
      path.join(packages, "..", "scripts")
    ].flatMap((dir) => filesUnder(dir).filter((file) => !/[/\\](build|dist)[/\\]/.test(file)))
    const deep = outside.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith("@pulsebridge/server") && !entryPoints.includes(spec))
        .map((spec) => `${path.relative(packages, file)}: ${spec}`)
    )
    expect(deep).toEqual([])
  })

  it("the sources import the Effect packages a module at a time, never through an index", () => {
    // Through an index, a module the CLI shares with the server's chunk carried every module any chunk used: the HTTP
    // client, the cluster, the YAML reader (docs/architecture.md).
    const indexes = /^@effect\/(cli|cluster|experimental|opentelemetry|platform|platform-node|rpc|sql|sql-pg|workflow)$/
    const sources = fs.readdirSync(packages).flatMap((name) => {
      const dir = path.join(packages, name, "src")
      return fs.existsSync(dir) ? filesUnder(dir) : []
    })
    const throughIndex = sources.flatMap((file) =>
      importsOf(file).filter((spec) => indexes.test(spec)).map((spec) => `${path.relative(packages, file)}: ${spec}`)
    )
    expect(throughIndex).toEqual([])
  })
})
