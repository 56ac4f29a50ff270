/**
 * The portal's static files over HTTPS: `index.html` for `/portal` and every client-side route,
 * hashed assets with their content type and an immutable cache, the security headers on every
 * answer, refused traversal, JSON 404s under `/portal/api/`, and a JSON 503 when the portal was
 * not built. A fixture `dist` stands in for the built bundle.
 */
import { expect, it } from "@effect/vitest"
import { makeTestServer, TestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as https from "node:https"
import * as os from "node:os"
import * as path from "node:path"
import { PortalDist } from "../../src/portal/Assets.js"
import type { Reply } from "../fixtures/Http.js"
import { expectError, send } from "../fixtures/Http.js"

const indexHtml = "<!doctype html><title>portal fixture</title><div id=app></div>"
const script = "console.log('portal')"
const icon = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\"><rect width=\"16\" height=\"16\"/></svg>"

const fixtureDist = () =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portal-dist-"))
      fs.mkdirSync(path.join(dir, "assets"))
      fs.writeFileSync(path.join(dir, "index.html"), indexHtml)
      fs.writeFileSync(path.join(dir, "favicon.svg"), icon)
      fs.writeFileSync(path.join(dir, "assets", "portal-ABCD1234.js"), script)
      fs.writeFileSync(path.join(dir, "assets", "portal-ABCD1234.css"), "body{}")
      fs.writeFileSync(path.join(dir, "assets", "notes.txt"), "not hashed")
      // A file next to dist that traversal would reach.
      fs.writeFileSync(path.join(dir, "secret.txt"), "secret")
      return dir
    }),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

const serverWithDist = (dist: Effect.Effect<string, never, Scope.Scope>) =>
  Layer.unwrapScoped(Effect.map(dist, (dir) => makeTestServer().pipe(Layer.provide(Layer.succeed(PortalDist, dir)))))

/** A GET with the path sent exactly as written (no URL normalisation of `..` or `%2e`). */
const rawGet = (rawPath: string) =>
  Effect.flatMap(TestServer, ({ ca, port }) =>
    Effect.async<Reply>((resume) => {
      const req = https.request(
        { host: "127.0.0.1", port, path: rawPath, method: "GET", ca, servername: "localhost" },
        (res) => {
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (chunk) => (text += chunk))
          res.on("end", () =>
            resume(Effect.succeed({
              status: res.statusCode ?? 0,
              headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
              text
            })))
        }
      )
      req.on("error", (error) => resume(Effect.die(error)))
      req.end()
    }))

const expectSecurityHeaders = (reply: Reply) => {
  const csp = reply.headers["content-security-policy"] ?? ""
  expect(csp).toContain("default-src 'self'")
  expect(csp).toContain("script-src 'self'")
  expect(csp).not.toContain("unsafe-inline")
  expect(csp).toContain("frame-ancestors 'none'")
  expect(reply.headers["x-frame-options"]).toBe("DENY")
  expect(reply.headers["referrer-policy"]).toBe("no-referrer")
  expect(reply.headers["x-content-type-options"]).toBe("nosniff")
}

it.layer(serverWithDist(fixtureDist()), { timeout: "120 seconds" })("portal assets", (it) => {
  it.effect("/portal and every client-side route answer index.html, never cached, with the security headers", () =>
    Effect.gen(function*() {
      for (const route of ["/portal", "/portal/", "/portal/apps/1234/users", "/portal/audit?cursor=5"]) {
        const reply = yield* send("GET", route)
        expect(reply.status, route).toBe(200)
        expect(reply.headers["content-type"]).toBe("text/html; charset=utf-8")
        expect(reply.headers["cache-control"]).toBe("no-store")
        expect(reply.text).toBe(indexHtml)
        expectSecurityHeaders(reply)
      }
    }))

  it.effect("a hashed asset is served with its content type and cached for good; others must revalidate", () =>
    Effect.gen(function*() {
      const js = yield* send("GET", "/portal/assets/portal-ABCD1234.js")
      expect(js.status).toBe(200)
      expect(js.text).toBe(script)
      expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8")
      expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
      expectSecurityHeaders(js)
      const css = yield* send("GET", "/portal/assets/portal-ABCD1234.css")
      expect(css.headers["content-type"]).toBe("text/css; charset=utf-8")
      const txt = yield* send("GET", "/portal/assets/notes.txt")
      expect(txt.status).toBe(200)
      expect(txt.headers["cache-control"]).toBe("no-cache")
    }))

  it.effect("a missing asset is a JSON 404, not the page", () =>
    Effect.gen(function*() {
      expectError(yield* send("GET", "/portal/assets/portal-ZZZZ9999.js"), 404, "NotFound")
    }))

  it.effect("paths that climb out of the assets are refused and never read a file outside them", () =>
    Effect.gen(function*() {
      for (
        const raw of [
          "/portal/assets/../secret.txt",
          "/portal/assets/..%2fsecret.txt",
          "/portal/assets/%2e%2e/secret.txt",
          "/portal/assets/%2e%2e%2fsecret.txt",
          "/portal/assets/..\\secret.txt",
          "/portal/assets/sub/../../secret.txt",
          "/portal/assets/.%2e/.%2e/index.html"
        ]
      ) {
        const reply = yield* rawGet(raw)
        expect(reply.status, `${raw}: ${reply.text}`).toBeGreaterThanOrEqual(400)
        expect(reply.status, raw).toBeLessThan(500)
        expect(reply.text, raw).not.toContain("secret")
        expect(reply.text, raw).not.toContain("portal fixture")
      }
    }))

  it.effect("/favicon.ico answers the portal's icon, cached for a day, so no page load logs a 404 for it", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/favicon.ico")
      expect(reply.status, reply.text).toBe(200)
      expect(reply.headers["content-type"]).toBe("image/svg+xml")
      expect(reply.headers["cache-control"]).toBe("public, max-age=86400")
      expect(reply.text).toBe(icon)
      expectSecurityHeaders(reply)
    }))

  it.effect("an unknown route under /portal/api is a JSON 404, not the page", () =>
    Effect.gen(function*() {
      expectError(yield* send("GET", "/portal/api/no-such-route"), 404, "NotFound")
      expectError(yield* send("GET", "/portal/api"), 404, "NotFound")
    }))
})

it.layer(
  serverWithDist(Effect.map(fixtureDist(), (dir) => path.join(dir, "not-built"))),
  { timeout: "120 seconds" }
)("portal not built", (it) => {
  it.effect("pages and assets answer a JSON 503 that says how to build the portal", () =>
    Effect.gen(function*() {
      for (const route of ["/portal", "/portal/apps", "/portal/assets/portal-ABCD1234.js"]) {
        const body = expectError(yield* send("GET", route), 503, "ServiceUnavailable")
        expect(body.message).toContain("npm run build")
      }
      // Without a built icon there is nothing to show, and nothing to log as missing either.
      const icon = yield* send("GET", "/favicon.ico")
      expect(icon.status).toBe(204)
      expect(icon.text).toBe("")
    }))
})
