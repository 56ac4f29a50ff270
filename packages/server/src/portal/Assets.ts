/**
 * Serves the admin portal's built browser bundle (`@pulsebridge/portal`'s `dist/`) at `/portal`:
 * hashed assets under `/portal/assets/` cached for good, and `index.html` (never cached) for
 * `/portal` and every other `/portal/...` path, so the portal's client-side routes survive a reload.
 * `/portal/api/...` belongs to the portal's JSON API: a path there no handler took is a JSON 404.
 * `/favicon.ico` answers the portal's icon (an SVG), for the pages that name none, such as `/docs`;
 * with no icon built it is an empty 204, never a 404 in a browser's console.
 *
 * Every answer here carries the portal's security headers: a Content-Security-Policy that allows
 * only the portal's own scripts, styles and requests (no inline script), no framing, no referrer.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { portalDist } from "@pulsebridge/portal"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/** Where the built portal is read from: the portal package's `dist/` unless a test points elsewhere. */
export class PortalDist extends Context.Reference<PortalDist>()("@pulsebridge/server/PortalDist", {
  defaultValue: (): string => portalDist
}) {}

export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

const securityHeaders: Record<string, string> = {
  "content-security-policy": contentSecurityPolicy,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
}

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

/** esbuild's content hash in a file name (`portal-5UJ2VQXK.js`): such a file never changes. */
const hashedName = /-[A-Z0-9]{8}\.[a-z0-9]+$/

const json = (status: number, tag: string, message: string) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message }, { status, headers: securityHeaders })

const notBuilt = () =>
  json(
    503,
    "ServiceUnavailable",
    "The admin portal has not been built; run `npm run build -w @pulsebridge/portal` and reload"
  )

const notFound = (what: string) => json(404, "NotFound", `${what} was not found`)

const readFile = (file: string) => Effect.tryPromise(() => fs.readFile(file)).pipe(Effect.option)

/** `index.html`, or a 503 when the portal was not built. */
const page = (dist: string) =>
  Effect.map(
    readFile(path.join(dist, "index.html")),
    (bytes) =>
      bytes._tag === "None" ? notBuilt() : HttpServerResponse.uint8Array(bytes.value, {
        contentType: contentTypes[".html"]!,
        headers: { ...securityHeaders, "cache-control": "no-store" }
      })
  )

/** One file under `assets/`; names with a path separator, `..` or odd characters are refused. */
const asset = (dist: string, name: string) =>
  Effect.gen(function*() {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(name) || name.includes("..")) {
      return json(400, "BadRequest", "Invalid asset name")
    }
    const directory = path.join(dist, "assets")
    const file = path.resolve(directory, name)
    if (path.dirname(file) !== directory) return json(400, "BadRequest", "Invalid asset name")
    const bytes = yield* readFile(file)
    if (bytes._tag === "None") {
      const built = yield* readFile(path.join(dist, "index.html"))
      return built._tag === "None" ? notBuilt() : notFound(`The asset ${name}`)
    }
    return HttpServerResponse.uint8Array(bytes.value, {
      contentType: contentTypes[path.extname(name).toLowerCase()] ?? "application/octet-stream",
      headers: {
        ...securityHeaders,
        "cache-control": hashedName.test(name) ? "public, max-age=31536000, immutable" : "no-cache"
      }
    })
  })

/** The portal's icon for `/favicon.ico`: browsers take an SVG there by its content type. */
const favicon = (dist: string) =>
  Effect.map(
    readFile(path.join(dist, "favicon.svg")),
    (bytes) =>
      bytes._tag === "None"
        ? HttpServerResponse.empty({ status: 204, headers: securityHeaders })
        : HttpServerResponse.uint8Array(bytes.value, {
          contentType: contentTypes[".svg"]!,
          headers: { ...securityHeaders, "cache-control": "public, max-age=86400" }
        })
  )

const serve = (dist: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // The raw path, not normalised: an asset name with `..`, `%2e` or a separator is refused, never resolved.
    const pathname = request.url.split("?")[0]!.split("#")[0]!
    if (pathname === "/portal/api" || pathname.startsWith("/portal/api/")) {
      return notFound(`The route ${request.method} ${pathname}`)
    }
    if (pathname.startsWith("/portal/assets/")) return yield* asset(dist, pathname.slice("/portal/assets/".length))
    // Every other path is a client-side route of the portal (or one it will show its own "not found" for).
    return yield* page(dist)
  })

/** The portal's pages and assets on the app's router. */
export const PortalAssetsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const dist = yield* PortalDist
    yield* router.get("/portal", serve(dist))
    yield* router.get("/portal/*", serve(dist))
    yield* router.get("/favicon.ico", favicon(dist))
  })
)
