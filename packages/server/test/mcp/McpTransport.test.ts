/**
 * The transport rules of `/mcp` over the wire, where the wire is the subject: a JSON-RPC batch is refused (the
 * 2025-06-18 revision of MCP dropped them, and a batch of tool calls would pass the rate limit as one request),
 * and `Origin` is validated as the transport's specification requires: no `Origin` (a client that is not a
 * browser), the service's own origin and the origins the operator lists (`MCP_ALLOWED_ORIGINS`) are served;
 * any other is a 403 before the credential is even looked at.
 */
import { expect, it, layer } from "@effect/vitest"
import { createUser, makeTestServer, TestServer } from "@pulsebridge/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { serverConfig } from "../../src/platform/ServerConfig.js"
import type { Reply } from "../fixtures/Http.js"
import { json, preview, send } from "../fixtures/Http.js"

const mcpHeaders = { accept: "application/json, text/event-stream" }

const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params
})

const initialize = rpc(1, "initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "raw", version: "1" }
})

const listed = "https://assistant.example.com"

/** A JSON-RPC error answer with no id, `status` and `code`. */
const expectRpcError = (reply: Reply, status: number, code: number) => {
  expect(reply.status, preview(reply)).toBe(status)
  const body = json(reply)
  expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code } })
  expect(typeof body.error.message).toBe("string")
  return body.error.message as string
}

layer(makeTestServer({ mcpAllowedOrigins: [listed, "https://other.example.org:8443"] }), {
  timeout: "120 seconds",
  excludeTestServices: true
})("mcp transport", (it) => {
  it.effect("a JSON-RPC batch is refused with a JSON-RPC error and a 400; single messages are served", () =>
    Effect.gen(function*() {
      const { token } = yield* createUser("mcp-batch")
      const call = (id: number) => rpc(id, "tools/call", { name: "get_profile", arguments: {} })
      for (const batch of [[initialize, call(2)], [call(3)], Array.from({ length: 100 }, (_, i) => call(i + 10)), []]) {
        const reply = yield* send("POST", "/mcp", { json: batch, headers: mcpHeaders, bearer: token })
        const message = expectRpcError(reply, 400, -32600)
        expect(message).toMatch(/batch/i)
      }
      const single = yield* send("POST", "/mcp", { json: initialize, headers: mcpHeaders, bearer: token })
      expect(single.status, preview(single)).toBe(200)
      expect(json(single).result.serverInfo.name).toBe("pulsebridge")
    }))

  it.effect("no Origin, the service's own origin and a listed origin are served; any other Origin is a 403", () =>
    Effect.gen(function*() {
      const { token } = yield* createUser("mcp-origin")
      const { port } = yield* TestServer
      // The harness's public URL: https://localhost:<port>.
      const own = `https://localhost:${port}`
      const post = (origin: string | undefined, bearer: string | undefined = token) =>
        send("POST", "/mcp", {
          json: initialize,
          headers: origin === undefined ? mcpHeaders : { ...mcpHeaders, origin },
          ...(bearer === undefined ? {} : { bearer })
        })
      for (const origin of [undefined, own, `https://LOCALHOST:${port}`, listed, "https://other.example.org:8443"]) {
        const reply = yield* post(origin)
        expect(reply.status, `${origin}: ${preview(reply)}`).toBe(200)
        expect(json(reply).result.serverInfo.name).toBe("pulsebridge")
      }
      const refused = [
        "https://evil.example.com",
        `http://localhost:${port}`,
        `https://localhost:${port + 1}`,
        "https://assistant.example.com:444",
        "https://other.example.org",
        "https://assistant.example.com.evil.example",
        "null",
        "not an origin"
      ]
      for (const origin of refused) {
        const message = expectRpcError(yield* post(origin), 403, -32000)
        expect(message, origin).toMatch(/Origin/)
        // Refused for its origin before its credential is looked at.
        expectRpcError(yield* post(origin, undefined), 403, -32000)
      }
      // The other methods of the route refuse a foreign origin the same way.
      expectRpcError(
        yield* send("GET", "/mcp", { headers: { ...mcpHeaders, origin: "https://evil.example.com" }, bearer: token }),
        403,
        -32000
      )
    }))
})

layer(makeTestServer({ publicUrl: Option.some("https://health.example.com") }), {
  timeout: "120 seconds",
  excludeTestServices: true
})("mcp transport behind a public URL", (it) => {
  it.effect("the own origin is the public URL's", () =>
    Effect.gen(function*() {
      const { token } = yield* createUser("mcp-public-origin")
      const post = (origin: string) =>
        send("POST", "/mcp", { json: initialize, headers: { ...mcpHeaders, origin }, bearer: token })
      const served = yield* post("https://health.example.com")
      expect(served.status, preview(served)).toBe(200)
      const { port } = yield* TestServer
      expectRpcError(yield* post(`https://localhost:${port}`), 403, -32000)
    }))
})

it.effect("MCP_ALLOWED_ORIGINS is read as comma-separated origins; anything but an origin is refused", () =>
  Effect.gen(function*() {
    const read = (value: string) =>
      Effect.withConfigProvider(serverConfig, ConfigProvider.fromMap(new Map([["MCP_ALLOWED_ORIGINS", value]])))
    const config = yield* read(" https://a.example.com, HTTPS://B.example.com:8443/ ,http://localhost:3000")
    expect(config.mcpAllowedOrigins).toEqual([
      "https://a.example.com",
      "https://b.example.com:8443",
      "http://localhost:3000"
    ])
    const unset = yield* Effect.withConfigProvider(serverConfig, ConfigProvider.fromMap(new Map()))
    expect(unset.mcpAllowedOrigins).toEqual([])
    for (
      const bad of ["https://a.example.com/path", "a.example.com", "ftp://a.example.com", "https://a.example.com?x"]
    ) {
      const error = yield* Effect.flip(read(bad))
      expect(String(error), bad).toMatch(/MCP_ALLOWED_ORIGINS/)
    }
  }))
