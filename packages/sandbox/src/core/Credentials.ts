/**
 * Reading the credentials a client presents: HTTP Basic client authentication, Bearer tokens and
 * the OAuth 1.0a `Authorization: OAuth ...` header, each tolerant of malformed input (answering
 * `undefined`) so the provider module decides how to word the rejection.
 */

export const parseBasic = (
  authorization: string | undefined
): { readonly id: string; readonly secret: string } | undefined => {
  if (authorization === undefined) return undefined
  const m = /^basic\s+(\S+)$/i.exec(authorization.trim())
  if (m === null) return undefined
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8")
  const i = decoded.indexOf(":")
  if (i === -1) return undefined
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, " "))
    } catch {
      return s
    }
  }
  return { id: unescape(decoded.slice(0, i)), secret: unescape(decoded.slice(i + 1)) }
}

export const parseBearer = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  const m = /^bearer\s+(\S+)$/i.exec(authorization.trim())
  return m === null ? undefined : m[1]
}

/** The params of an `Authorization: OAuth k="v", ...` header, percent-decoded; `realm` left out. */
export const parseOAuthHeader = (authorization: string | undefined): Map<string, string> | undefined => {
  if (authorization === undefined) return undefined
  const m = /^oauth\s+(.*)$/is.exec(authorization.trim())
  if (m === null) return undefined
  const out = new Map<string, string>()
  const re = /([A-Za-z0-9_%.~-]+)\s*=\s*"([^"]*)"/g
  let item: RegExpExecArray | null
  while ((item = re.exec(m[1]!)) !== null) {
    const key = safeDecode(item[1]!)
    if (key !== "realm") out.set(key, safeDecode(item[2]!))
  }
  return out
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
