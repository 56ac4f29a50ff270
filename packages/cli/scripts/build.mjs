/**
 * Builds the `pulsebridge` command into `dist/`: the CLI and every workspace package and library it imports,
 * compiled from the TypeScript sources by esbuild into a few ES modules (the server is a chunk of its own, loaded
 * by `serve`), so Node starts it without a TypeScript loader and without resolving and reading a few thousand
 * module files. `bin/pulsebridge.mjs` (what `npm start`, `npm run cli` and the installed command run) builds when
 * the build is missing or older than a source, then imports `dist/main.mjs`. Type checking stays with `tsc -b`;
 * the container image runs the `tsc` build instead (`npm run build`, `bin/pulsebridge-compiled.mjs`).
 *
 *   node scripts/build.mjs             build now
 *   node scripts/build.mjs --if-stale  build only when dist is missing or older than a source
 *
 * Both also make the template of a new embedded database when it is missing (see `ensureTemplate`).
 *
 * Concurrent builds are safe: they take turns through a lock directory, outputs are content-hashed files, and
 * `dist/main.mjs`, the only name a reader imports, is renamed into place last.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const cliRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const packagesRoot = path.dirname(cliRoot)
const repoRoot = path.dirname(packagesRoot)
const dist = path.join(cliRoot, "dist")
const main = path.join(dist, "main.mjs")
const lock = path.join(cliRoot, ".dist.lock")

// Loaded by the libraries at run time from their own files (WebAssembly, data files, native add-ons), or
// optional add-ons that may be absent: imported from node_modules as they are.
const external = [
  "@electric-sql/pglite",
  "@electric-sql/pglite/*",
  "@electric-sql/pglite-socket",
  "msgpackr-extract",
  "pg-native",
  "bufferutil",
  "utf-8-validate",
  "fsevents",
  "esbuild",
  "playwright-core"
]

/** The files whose change makes the build stale: every package's sources and manifest, the lockfile, this script. */
const sourceRoots = () => {
  const roots = [fileURLToPath(import.meta.url), path.join(repoRoot, "package-lock.json")]
  for (const name of fs.readdirSync(packagesRoot)) {
    roots.push(path.join(packagesRoot, name, "src"), path.join(packagesRoot, name, "package.json"))
  }
  return roots
}

const newestSource = () => {
  let newest = 0
  const visit = (file) => {
    let stat
    try {
      stat = fs.statSync(file)
    } catch {
      return
    }
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(file)) visit(path.join(file, entry))
    } else newest = Math.max(newest, stat.mtimeMs)
  }
  for (const root of sourceRoots()) visit(root)
  return newest
}

/** True when `dist/main.mjs` is missing or older than a source; false where there are no sources to build from. */
export const isStale = () => {
  if (!fs.existsSync(path.join(cliRoot, "src", "bin.ts"))) return false
  return !fs.existsSync(main) || fs.statSync(main).mtimeMs < newestSource()
}

/**
 * A module that reads `import.meta.url` to find files beside its sources (the portal's `dist/`) gets the URL of
 * its source file, computed from the output file's own URL so the build does not depend on where the repository is.
 */
const sourceUrlPlugin = {
  name: "source-url",
  setup(build) {
    build.onLoad({ filter: /[/\\]packages[/\\][^/\\]+[/\\]src[/\\].*\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8")
      if (!text.includes("import.meta.url")) return undefined
      const relative = path.relative(dist, args.path).split(path.sep).join("/")
      return {
        contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(relative)}, import.meta.url).href`),
        loader: "ts"
      }
    })
  }
}

// Libraries in CommonJS call `require` for Node's own modules; an ES module has none of its own.
const requireBanner = "import { createRequire as __pulsebridgeRequire } from \"node:module\"; " +
  "const require = __pulsebridgeRequire(import.meta.url);"

/**
 * `@effect/platform`'s index re-exports the API documentation pages, whose modules hold the pages' whole scripts (5 MB
 * of JavaScript in strings); esbuild keeps them in the chunk every command loads once any module imports the index.
 * The server imports the page it serves from its own module (`@effect/platform/HttpApiScalar`), so the index goes
 * without them: the page loads with the server's chunk only. An import of either through the index fails the build.
 */
const lazyApiDocsPlugin = {
  name: "lazy-api-docs",
  setup(build) {
    build.onLoad({ filter: /[/\\]@effect[/\\]platform[/\\]dist[/\\]esm[/\\]index\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8")
      return {
        contents: text.replace(/^export \* as HttpApi(Scalar|Swagger) from .*$/gm, ""),
        loader: "js",
        resolveDir: path.dirname(args.path)
      }
    })
  }
}

export const build = async () => {
  const started = Date.now()
  const esbuild = await import("esbuild")
  fs.mkdirSync(dist, { recursive: true })
  const result = await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: { bin: path.join(cliRoot, "src", "bin.ts") },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: dist,
    entryNames: "[name]-[hash]",
    chunkNames: "[name]-[hash]",
    external,
    banner: { js: requireBanner },
    keepNames: false,
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
    plugins: [sourceUrlPlugin, lazyApiDocsPlugin]
  })
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file))
  // Every dynamically imported module is an entry point too; the command's is the one of `src/bin.ts`.
  const entryPoint = path.relative(repoRoot, path.join(cliRoot, "src", "bin.ts")).split(path.sep).join("/")
  const entry = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint === entryPoint)
  if (entry === undefined) throw new Error("esbuild produced no entry module")
  const temporary = `${main}.${process.pid}.tmp`
  fs.writeFileSync(temporary, `import "./${path.basename(entry[0])}"\n`)
  fs.renameSync(temporary, main)
  // Files of earlier builds go once main.mjs points at this one's, but only those older than ten minutes: a process
  // started on an earlier build imports its lazily loaded chunks while it starts.
  const keep = new Set([...outputs, "main.mjs"])
  for (const file of fs.readdirSync(dist)) {
    const full = path.join(dist, file)
    if (!keep.has(file) && Date.now() - fs.statSync(full).mtimeMs > 600_000) fs.rmSync(full, { force: true })
  }
  return { entry: path.basename(entry[0]), ms: Date.now() - started }
}

/**
 * The template of a new embedded database (see `embeddedTemplateFile` in the server's `platform/Database.ts`, which
 * reads it from the same place): the data dir PGlite's `initdb` makes, as a gzipped tarball, so that a first start
 * unpacks it instead of running `initdb`. Made once per PGlite version.
 */
export const ensureTemplate = async () => {
  const require = createRequire(import.meta.url)
  const packageDir = path.resolve(path.dirname(require.resolve("@electric-sql/pglite")), "..")
  const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8"))
  const file = path.join(packageDir, "..", "..", ".cache", "pulsebridge", `pglite-${version}-initdb.tar.gz`)
  if (fs.existsSync(file)) return undefined
  const started = Date.now()
  const { PGlite } = await import("@electric-sql/pglite")
  const db = await PGlite.create()
  const dump = await db.dumpDataDir("gzip")
  await db.close()
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()))
  fs.renameSync(temporary, file)
  return { file: path.relative(repoRoot, file), ms: Date.now() - started }
}

const isAlive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e.code === "EPERM"
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs `work` holding the build lock; a lock left by a process that died is taken over. */
const withLock = async (work) => {
  for (;;) {
    try {
      fs.mkdirSync(lock)
      break
    } catch (e) {
      if (e.code !== "EEXIST") throw e
      let holder = NaN
      try {
        holder = Number(fs.readFileSync(path.join(lock, "pid"), "utf8"))
      } catch {
        // The holder has not written its pid yet.
      }
      let age = 0
      try {
        age = Date.now() - fs.statSync(lock).mtimeMs
      } catch {
        continue
      }
      // A dead holder, or one that never wrote its pid, gives the lock up.
      const abandoned = Number.isInteger(holder) ? !isAlive(holder) : age > 30_000
      if (abandoned) fs.rmSync(lock, { recursive: true, force: true })
      else await sleep(100)
    }
  }
  try {
    fs.writeFileSync(path.join(lock, "pid"), String(process.pid))
    return await work()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * Builds when stale (or always, with `force`), one process at a time: a process that waited for another's build
 * finds it fresh and does nothing. Returns the build's summary, or undefined when there was nothing to do.
 */
export const ensureBuilt = async ({ force = false } = {}) => {
  if (!force && !isStale()) return undefined
  return withLock(() => (force || isStale() ? build() : undefined))
}

/** The URL of the module to import to run the command. */
export const mainUrl = pathToFileURL(main).href

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const work = async () => {
    const built = await ensureBuilt({ force: !process.argv.includes("--if-stale") })
    if (built !== undefined) console.log(`cli: built dist/${built.entry} in ${built.ms} ms`)
    const template = await ensureTemplate()
    if (template !== undefined) console.log(`cli: made ${template.file} in ${template.ms} ms`)
  }
  work().then(
    () => {},
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
}
