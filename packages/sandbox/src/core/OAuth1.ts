/**
 * OAuth 1.0a (RFC 5849) request signing as the Garmin simulator checks it: the signature base
 * string from method, base URI and every parameter (Authorization header, query, form body),
 * HMAC-SHA1 keyed by the consumer and token secrets. Written independently of the `oauth-1.0a`
 * package the adapter and tests sign with, so each checks the other.
 */
import * as crypto from "node:crypto"

/** RFC 3986 unreserved characters stay; everything else is %XX with upper-case hex. */
export const percentEncode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** Lower-case scheme and host, default port dropped, no query (RFC 5849 §3.4.1.2). */
export const normalizeBaseUri = (url: string): string => {
  const u = new URL(url)
  const scheme = u.protocol.toLowerCase()
  const defaultPort = (scheme === "http:" && u.port === "80") || (scheme === "https:" && u.port === "443")
  const port = u.port === "" || defaultPort ? "" : `:${u.port}`
  return `${scheme}//${u.hostname.toLowerCase()}${port}${u.pathname}`
}

export const signatureBaseString = (
  method: string,
  baseUri: string,
  params: ReadonlyArray<readonly [string, string]>
): string => {
  const pairs = params
    .map(([k, v]) => [percentEncode(k), percentEncode(v)] as const)
    .sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)
  const normalized = pairs.map(([k, v]) => `${k}=${v}`).join("&")
  return `${method.toUpperCase()}&${percentEncode(baseUri)}&${percentEncode(normalized)}`
}

export const hmacSha1Signature = (baseString: string, consumerSecret: string, tokenSecret: string): string =>
  crypto.createHmac("sha1", `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`).update(baseString).digest(
    "base64"
  )

export interface OAuth1Params {
  readonly consumerKey: string
  readonly token: string | undefined
  readonly verifier: string | undefined
  readonly nonce: string
  readonly timestamp: string
  readonly signature: string
  readonly callback: string | undefined
  /** Every protocol parameter seen, header first. */
  readonly all: ReadonlyMap<string, string>
}

/**
 * The protocol parameters of a request (header, else query or form as RFC 5849 allows), or why
 * they are unusable.
 */
export const readOAuth1 = (
  header: ReadonlyMap<string, string> | undefined,
  query: URLSearchParams,
  form: URLSearchParams
): OAuth1Params | string => {
  const all = new Map<string, string>(header ?? [])
  for (const source of [query, form]) {
    source.forEach((value, key) => {
      if (key.startsWith("oauth_") && !all.has(key)) all.set(key, value)
    })
  }
  const consumerKey = all.get("oauth_consumer_key")
  const nonce = all.get("oauth_nonce")
  const timestamp = all.get("oauth_timestamp")
  const signature = all.get("oauth_signature")
  const method = all.get("oauth_signature_method")
  const version = all.get("oauth_version")
  if (consumerKey === undefined || nonce === undefined || timestamp === undefined || signature === undefined) {
    return "Unable to read oAuth header: missing oauth_consumer_key, oauth_nonce, oauth_timestamp or oauth_signature"
  }
  if (method !== "HMAC-SHA1") return `Unsupported oauth_signature_method: ${method ?? "(none)"}`
  if (version !== undefined && version !== "1.0") return `Unsupported oauth_version: ${version}`
  if (!/^\d{1,12}$/.test(timestamp)) return "Invalid oauth_timestamp"
  if (nonce === "") return "Invalid oauth_nonce"
  return {
    consumerKey,
    token: all.get("oauth_token"),
    verifier: all.get("oauth_verifier"),
    nonce,
    timestamp,
    signature,
    callback: all.get("oauth_callback"),
    all
  }
}

/**
 * Whether the signature is right for any of `baseUris` (the configured B as written and
 * normalized: signers differ on normalizing). A parameter sent both in the header and the body
 * with the same value counts once, as the `oauth-1.0a` package signs it.
 */
export const signatureMatches = (input: {
  readonly method: string
  readonly baseUris: ReadonlyArray<string>
  readonly header: ReadonlyMap<string, string> | undefined
  readonly query: URLSearchParams
  readonly form: URLSearchParams
  readonly params: OAuth1Params
  readonly consumerSecret: string
  readonly tokenSecret: string
}): boolean => {
  const pairs: Array<readonly [string, string]> = []
  const header = input.header ?? new Map<string, string>()
  header.forEach((value, key) => {
    if (key !== "oauth_signature") pairs.push([key, value])
  })
  for (const source of [input.query, input.form]) {
    source.forEach((value, key) => {
      if (key === "oauth_signature") return
      if (header.get(key) === value) return
      pairs.push([key, value])
    })
  }
  const expected = Buffer.from(input.params.signature)
  return [...new Set(input.baseUris)].some((uri) => {
    const actual = Buffer.from(
      hmacSha1Signature(signatureBaseString(input.method, uri, pairs), input.consumerSecret, input.tokenSecret)
    )
    return actual.length === expected.length && crypto.timingSafeEqual(actual, expected)
  })
}
