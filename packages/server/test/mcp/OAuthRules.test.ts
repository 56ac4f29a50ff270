/**
 * The pure rules of MCP authorization: PKCE S256, the signed sign-in request (an app can read it but neither
 * forge nor alter it, and it expires), the redirect URI rules, scope parsing and which tools a scope opens, the
 * checks of client metadata, and the cache lifetime of a fetched metadata document.
 */
import { describe, expect, it } from "@effect/vitest"
import * as crypto from "node:crypto"
import { signInUrlProblem } from "../../src/apps/Apps.js"
import { cacheSecondsOf, ClientMetadataRefused, clientOf, isMetadataUrl } from "../../src/mcp/oauth/Clients.js"
import {
  isCodeChallenge,
  McpScopes,
  parseScope,
  pkceMatches,
  redirectUriProblem,
  signRequest,
  toolAllowed,
  verifyRequest,
  withParams
} from "../../src/mcp/oauth/Rules.js"
import { toolNames } from "../fixtures/McpTools.js"

describe("mcp oauth rules", () => {
  it("PKCE: the S256 challenge of the verifier matches; another verifier, a short one or plain do not", () => {
    const verifier = crypto.randomBytes(32).toString("base64url")
    const challenge = crypto.createHash("sha256").update(verifier).digest("base64url")
    expect(isCodeChallenge(challenge)).toBe(true)
    expect(pkceMatches(verifier, challenge)).toBe(true)
    expect(pkceMatches(crypto.randomBytes(32).toString("base64url"), challenge)).toBe(false)
    // `plain`: the verifier itself as the challenge.
    expect(pkceMatches(verifier, verifier)).toBe(false)
    expect(isCodeChallenge(verifier + "x")).toBe(false)
    expect(pkceMatches("short", crypto.createHash("sha256").update("short").digest("base64url"))).toBe(false)
  })

  it("the signed request: verified with its key, refused altered, forged with another key, or expired", () => {
    const key = "key-one"
    const signed = signRequest(key, { requestId: "r1", appId: "a1", expiresAt: 1_000 })
    expect(verifyRequest(key, signed, 999)).toEqual({
      _tag: "Valid",
      request: { requestId: "r1", appId: "a1", expiresAt: 1_000 }
    })
    expect(verifyRequest(key, signed, 1_000)._tag).toBe("Expired")
    expect(verifyRequest("key-two", signed, 999)._tag).toBe("Invalid")
    const [payload, mac] = signed.split(".")
    const altered = Buffer.from(JSON.stringify({ r: "r1", a: "a2", e: 1_000 })).toString("base64url")
    expect(verifyRequest(key, `${altered}.${mac}`, 999)._tag).toBe("Invalid")
    expect(verifyRequest(key, `${payload}.${mac}.x`, 999)._tag).toBe("Invalid")
    expect(verifyRequest(key, "", 999)._tag).toBe("Invalid")
    expect(verifyRequest(key, "x".repeat(2000), 999)._tag).toBe("Invalid")
  })

  it("redirect URIs: https, or http on a loopback host; no fragment, credentials, control characters or other schemes", () => {
    for (const ok of ["https://assistant.example/cb", "http://127.0.0.1:33418/callback", "http://localhost/cb"]) {
      expect(redirectUriProblem(ok), ok).toBeUndefined()
    }
    for (
      const bad of [
        "http://example.com/cb",
        "https://example.com/cb#frag",
        "https://user:pw@example.com/cb",
        "javascript:alert(1)",
        "/relative",
        "https://example.com/\u0000",
        `https://example.com/${"a".repeat(2100)}`
      ]
    ) {
      expect(redirectUriProblem(bad), bad).toBeDefined()
    }
  })

  it("the app's sign-in URL: https; http on loopback only in sandbox mode", () => {
    expect(signInUrlProblem("https://app.example/sign-in", false)).toBeUndefined()
    expect(signInUrlProblem("http://localhost:3000/sign-in", false)).toBeDefined()
    expect(signInUrlProblem("http://localhost:3000/sign-in", true)).toBeUndefined()
    expect(signInUrlProblem("ftp://app.example/", true)).toBeDefined()
  })

  it("scopes: none means all, unknown ones are named, and each tool needs its data type's", () => {
    expect(parseScope(undefined)).toEqual({ _tag: "Scopes", scopes: McpScopes })
    expect(parseScope("  ")).toEqual({ _tag: "Scopes", scopes: McpScopes })
    expect(parseScope("sleep activity sleep")).toEqual({ _tag: "Scopes", scopes: ["activity", "sleep"] })
    expect(parseScope("sleep users:write")).toEqual({ _tag: "Unknown", scope: "users:write" })
    const sleep = new Set(["sleep"])
    expect(toolNames.filter((tool) => toolAllowed(tool, sleep))).toEqual([
      "get_profile",
      "list_connections",
      "get_sleep",
      "get_coverage"
    ])
    // Meal responses read glucose too; a tool the table does not know needs every scope.
    expect(toolAllowed("get_meal_responses", new Set(["nutrition"]))).toBe(false)
    expect(toolAllowed("get_meal_responses", new Set(["nutrition", "glucose"]))).toBe(true)
    expect(toolAllowed("a_future_tool", new Set(McpScopes.slice(1)))).toBe(false)
    expect(toolAllowed("a_future_tool", new Set(McpScopes))).toBe(true)
    for (const tool of toolNames) expect(toolAllowed(tool, new Set(McpScopes)), tool).toBe(true)
  })

  it("client metadata: public clients with valid redirect URIs; a metadata document's id is an https URL with a path", () => {
    const client = clientOf({ client_name: " Bot ", redirect_uris: ["https://bot.example/cb"] }, "pbc_1", "registered")
    expect(client).toMatchObject({ clientId: "pbc_1", clientName: "Bot", redirectUris: ["https://bot.example/cb"] })
    const refused = (metadata: unknown) => clientOf(metadata, "pbc_1", "registered") as ClientMetadataRefused
    expect(refused({ redirect_uris: [] })).toBeInstanceOf(ClientMetadataRefused)
    expect(refused({ redirect_uris: ["http://bot.example/cb"] }).error).toBe("invalid_redirect_uri")
    expect(
      refused({ redirect_uris: ["https://bot.example/cb"], token_endpoint_auth_method: "client_secret_basic" }).error
    )
      .toBe("invalid_client_metadata")
    expect(refused({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://bot.example/${i}`) }).error).toBe(
      "invalid_client_metadata"
    )
    expect(isMetadataUrl("https://bot.example/client.json")).toBe(true)
    expect(isMetadataUrl("https://bot.example/")).toBe(false)
    expect(isMetadataUrl("http://bot.example/client.json")).toBe(false)
    expect(isMetadataUrl("pbc_abc")).toBe(false)
  })

  it("a metadata document is cached within its lifetime, between a minute and a day", () => {
    expect(cacheSecondsOf("max-age=600")).toBe(600)
    expect(cacheSecondsOf("public, max-age=999999")).toBe(86_400)
    expect(cacheSecondsOf("max-age=0")).toBe(60)
    expect(cacheSecondsOf("no-store")).toBe(60)
    expect(cacheSecondsOf(undefined)).toBe(300)
  })

  it("parameters are added to a redirect URI's query, keeping its own", () => {
    expect(withParams("https://bot.example/cb?x=1", { code: "c", state: undefined, iss: "https://pb.example" })).toBe(
      "https://bot.example/cb?x=1&code=c&iss=https%3A%2F%2Fpb.example"
    )
  })
})
