/**
 * The call log's view of a request: the query, form and credentials worth recording, with every
 * token, code and verifier replaced by its fingerprint and secrets dropped, so a log can be shown
 * or asserted on without leaking anything usable.
 */
import { parseBasic, parseOAuthHeader } from "./Credentials.js"
import { tokenFingerprint } from "./Random.js"

const fingerprinted = new Set(["code", "refresh_token", "access_token", "token", "oauth_token", "oauth_verifier"])
const dropped = new Set(["client_secret", "code_verifier", "oauth_signature", "oauth_token_secret", "password"])

/** The params worth logging: query, form and credentials, secrets fingerprinted or dropped. */
export const describeParams = (
  query: URLSearchParams,
  form: URLSearchParams,
  authorization: string | undefined
): Record<string, string> => {
  const out: Record<string, string> = {}
  const add = (key: string, value: string) => {
    if (dropped.has(key)) return
    out[key] = fingerprinted.has(key) ? tokenFingerprint(value) : value.length > 200 ? `${value.slice(0, 200)}…` : value
  }
  query.forEach((value, key) => add(key, value))
  form.forEach((value, key) => add(key, value))
  if (authorization !== undefined) {
    const [scheme = "", rest = ""] = splitOnce(authorization.trim(), " ")
    switch (scheme.toLowerCase()) {
      case "basic": {
        const basic = parseBasic(authorization)
        out["auth"] = basic === undefined ? "basic:?" : `basic:${basic.id}`
        break
      }
      case "bearer":
        out["auth"] = `bearer:${tokenFingerprint(rest.trim())}`
        break
      case "oauth": {
        const params = parseOAuthHeader(authorization)
        out["auth"] = `oauth1:${params?.get("oauth_consumer_key") ?? "?"}`
        params?.forEach((value, key) => {
          if (key === "oauth_token" || key === "oauth_verifier") add(key, value)
        })
        break
      }
      default:
        out["auth"] = `${scheme.toLowerCase()}:?`
    }
  }
  return out
}

const splitOnce = (text: string, separator: string): [string, string] => {
  const i = text.indexOf(separator)
  return i === -1 ? [text, ""] : [text.slice(0, i), text.slice(i + separator.length)]
}
