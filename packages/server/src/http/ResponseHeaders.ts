/**
 * The headers every answer gets whatever route gives it (docs/operations.md#response-headers):
 * - `Strict-Transport-Security` when the public URL names a real host and TLS ends here: never for localhost or
 *   an IP address (a browser would pin every port of the newcomer's localhost to HTTPS, and ignores it for IP
 *   addresses anyway), nor behind a TLS-terminating proxy (`TRUST_PROXY`), which sets its own;
 * - `Cache-Control: no-store` on the answers of the API, the portal's API and the MCP server, which carry
 *   credentials (tokens, webhook secrets), personal or health data, unless the route set its own: the range
 *   reads revalidated by their ETag keep `private, no-cache` (`healthData/RangeResponse.ts`, and the meal
 *   comparisons, `insights/MealComparisons.ts`); the portal's API
 *   always (errors too, whoever answers them).
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Response from "@effect/platform/HttpServerResponse"
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

/**
 * The portal's JSON API: its answers carry the session's CSRF token, operators, keys' prefixes and users' health
 * data, which no browser or proxy cache may keep, whatever the route set.
 */
const isPortalApi = (path: string) => path === "/portal/api" || path.startsWith("/portal/api/")

/** Puts the headers every answer gets on `response`, the answer to a request for `url`, and `extra`. */
export const withResponseHeaders = (hsts: string | undefined) =>
(
  url: string,
  response: HttpServerResponse.HttpServerResponse,
  extra?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse => {
  const path = url.split("?")[0]!
  const headers: Record<string, string> = { ...extra }
  if (hsts !== undefined) headers["strict-transport-security"] = hsts
  if (isPortalApi(path) || (response.headers["cache-control"] === undefined && isPrivatePath(path))) {
    headers["cache-control"] = "no-store"
  }
  // A header at a time: `setHeaders` spreads the answer's headers into a new object, which V8 does about twenty
  // times slower than it copies them one header at a time.
  let answer = response
  for (const name in headers) answer = Response.setHeader(answer, name, headers[name]!)
  return answer
}
