/**
 * The headers every answer gets whatever route gives it (docs/operations.md#response-headers):
 * - `Strict-Transport-Security` when the public URL names a real host and TLS ends here: never for localhost or
 *   an IP address (a browser would pin every port of the newcomer's localhost to HTTPS, and ignores it for IP
 *   addresses anyway), nor behind a TLS-terminating proxy (`TRUST_PROXY`), which sets its own;
 * - `Cache-Control: no-store` on the answers of the API, the portal's API and the MCP server, which carry
 *   credentials (tokens, webhook secrets), personal or health data, unless the route set its own: the range
 *   reads revalidated by their ETag keep `private, no-cache` (`healthData/RangeResponse.ts`).
 */
import type { HttpServerResponse } from "@effect/platform"
import { HttpServerResponse as Response } from "@effect/platform"
import * as Option from "effect/Option"
import * as net from "node:net"
import type { ServerConfigShape } from "../platform/ServerConfig.js"

/** Whether the host of a URL names this machine or an address rather than a host others reach by name. */
const isLocalOrAddress = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, "")
  if (host === "localhost" || host.endsWith(".localhost")) return true
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  return net.isIP(bare) !== 0
}

/** The `Strict-Transport-Security` value of this configuration, or undefined when none is sent. */
export const hstsHeader = (
  config: Pick<ServerConfigShape, "publicUrl" | "trustProxy" | "hstsMaxAge">
): string | undefined => {
  if (config.trustProxy || config.hstsMaxAge <= 0 || Option.isNone(config.publicUrl)) return undefined
  let url: URL
  try {
    url = new URL(config.publicUrl.value)
  } catch {
    return undefined
  }
  if (url.protocol !== "https:" || isLocalOrAddress(url.hostname)) return undefined
  return `max-age=${config.hstsMaxAge}`
}

/** Paths whose answers carry credentials, personal or health data. */
const isPrivatePath = (path: string) => path.startsWith("/api/") || path.startsWith("/portal/api/") || path === "/mcp"

/** Puts the headers every answer gets on `response`, the answer to a request for `url`. */
export const withResponseHeaders = (hsts: string | undefined) =>
(
  url: string,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  let answer = response
  if (hsts !== undefined) answer = Response.setHeader(answer, "strict-transport-security", hsts)
  if (answer.headers["cache-control"] === undefined && isPrivatePath(url.split("?")[0]!)) {
    answer = Response.setHeader(answer, "cache-control", "no-store")
  }
  return answer
}
