/**
 * Builds the admin portal's browser bundle into `dist/`: `index.html` (naming the icon inline), the icon
 * as `favicon.svg`, and content-hashed JS and CSS under `dist/assets/`, every byte from this repository
 * (no CDN at run time). Plain JavaScript so it
 * runs from `postinstall`, `npm start` and the test setup with nothing but Node and esbuild.
 *
 *   node scripts/build.mjs             build now
 *   node scripts/build.mjs --if-stale  build only when dist is missing or older than a source
 *
 * Concurrent builds are safe: hashed assets are written before `index.html`, which is renamed into
 * place last, so a reader sees either the old page with its assets or the new one with its own.
 */
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const ui = path.join(root, "ui")
const dist = path.join(root, "dist")
const assets = path.join(dist, "assets")
const indexHtml = path.join(dist, "index.html")
const iconSource = path.join(ui, "favicon.svg")

/** The newest modification time among the files that shape the bundle. */
const newestSource = () => {
  let newest = 0
  const visit = (file) => {
    const stat = fs.statSync(file)
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(file)) visit(path.join(file, entry))
    } else newest = Math.max(newest, stat.mtimeMs)
  }
  visit(ui)
  visit(fileURLToPath(import.meta.url))
  visit(path.join(root, "package.json"))
  return newest
}

export const isStale = () => !fs.existsSync(indexHtml) || fs.statSync(indexHtml).mtimeMs < newestSource()

/** The icon inline, as a data URL (which the page's CSP allows for images): a page load asks for no icon file. */
const iconLink = (svg) =>
  `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(svg.trim())}">`

const page = (script, style, icon) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>PulseBridge admin</title>
${iconLink(icon)}
<link rel="stylesheet" href="/portal/assets/${style}">
<script type="module" src="/portal/assets/${script}"></script>
</head>
<body>
<div id="app"><noscript>The PulseBridge admin portal needs JavaScript.</noscript></div>
</body>
</html>
`

export const build = async () => {
  const started = Date.now()
  fs.mkdirSync(assets, { recursive: true })
  const result = await esbuild.build({
    entryPoints: { portal: path.join(ui, "main.tsx") },
    bundle: true,
    minify: true,
    sourcemap: false,
    format: "esm",
    target: ["es2022", "chrome110", "firefox110", "safari16"],
    jsx: "automatic",
    jsxImportSource: "preact",
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    outdir: assets,
    metafile: true,
    legalComments: "none",
    logLevel: "warning"
  })
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file))
  const script = outputs.find((file) => file.endsWith(".js"))
  const style = outputs.find((file) => file.endsWith(".css"))
  if (script === undefined || style === undefined) throw new Error("esbuild produced no script or stylesheet")
  // The icon also as a file, for the server's `/favicon.ico` (asked for by pages that name no icon, such as /docs).
  const icon = fs.readFileSync(iconSource, "utf8")
  const iconTemporary = path.join(dist, `favicon.svg.${process.pid}.tmp`)
  fs.writeFileSync(iconTemporary, icon)
  fs.renameSync(iconTemporary, path.join(dist, "favicon.svg"))
  const temporary = `${indexHtml}.${process.pid}.tmp`
  fs.writeFileSync(temporary, page(script, style, icon))
  fs.renameSync(temporary, indexHtml)
  // Assets of earlier builds are dropped once the new page points at its own.
  const keep = new Set(outputs)
  for (const file of fs.readdirSync(assets)) {
    if (!keep.has(file)) fs.rmSync(path.join(assets, file), { force: true })
  }
  return { script, style, ms: Date.now() - started }
}

const main = async () => {
  if (process.argv.includes("--if-stale") && !isStale()) return
  const { ms, script, style } = await build()
  console.log(`portal: built ${script} and ${style} in ${ms} ms`)
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
