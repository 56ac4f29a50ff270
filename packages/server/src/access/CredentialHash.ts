/**
 * Credential secrets: generation and hashing. Only the SHA-256 hash of an API key or user token
 * is stored; lookups compare hashes, never raw tokens.
 */
import * as crypto from "node:crypto"

export const ApiKeyPrefix = "pb_sk_"
export const UserTokenPrefix = "pb_ut_"
/** An MCP access token (docs/mcp.md): read-only, for the MCP server only. */
export const McpTokenPrefix = "pb_mt_"

/** The refusal of an MCP token by every route that is not the MCP server's. */
export const mcpTokenRefused =
  "MCP tokens (pb_mt_...) are only for the MCP server (/mcp and the apps' /mcp/apps/{appId}); they are " +
  "refused by the REST API and the portal"

/** Whether a request's `Authorization` header carries an MCP token. */
export const bearsMcpToken = (authorization: string | undefined): boolean =>
  authorization !== undefined && /^Bearer\s+pb_mt_/i.test(authorization)

/** `prefix` + 32 random bytes, base64url. */
export const generateSecret = (prefix: string): string => prefix + crypto.randomBytes(32).toString("base64url")

/** SHA-256, hex: one call, without the `Hash` object `createHash` makes (a third of the time, on every request). */
export const hashSecret = (secret: string): string => crypto.hash("sha256", secret, "hex")

/** The part of an API key that may be shown again (in listings) to recognise it. */
export const displayPrefix = (secret: string): string => secret.slice(0, ApiKeyPrefix.length + 6)

/** A well-formed credential is the prefix plus 43 base64url characters. */
export const isWellFormed = (secret: string, prefix: string): boolean =>
  secret.length === prefix.length + 43 && secret.startsWith(prefix) &&
  /^[A-Za-z0-9_-]+$/.test(secret.slice(prefix.length))
