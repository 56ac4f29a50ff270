/**
 * OAuth 1.0a request signing (RFC 5849, HMAC-SHA1) on top of the `oauth-1.0a` package: the
 * `Authorization` header of a request, signed with the consumer secret and, once there is one,
 * the token secret.
 */
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
// The package is CommonJS with `export =`: its constructor is only reachable as the default import.
import OAuth from "oauth-1.0a"
import type { ClientCredentials } from "../Adapter.js"

export interface SignedRequest {
  readonly method: "GET" | "POST" | "DELETE"
  /** Query parameters, if any, are signed with the rest. */
  readonly url: string
  readonly credentials: ClientCredentials
  /** The request token or access token and its secret; absent for the request-token leg. */
  readonly token?: { readonly key: string; readonly secret: Redacted.Redacted } | undefined
  /** Further protocol parameters sent in the header and signed, e.g. `oauth_verifier`. */
  readonly oauthParams?: Readonly<Record<`oauth_${string}`, string>> | undefined
}

const hmacSha1 = (baseString: string, key: string): string =>
  crypto.createHmac("sha1", key).update(baseString).digest("base64")

/** The `Authorization: OAuth ...` header value of a request. */
export const authorizationHeader = (request: SignedRequest): string => {
  const oauth = new OAuth({
    consumer: { key: request.credentials.clientId, secret: Redacted.value(request.credentials.clientSecret) },
    signature_method: "HMAC-SHA1",
    hash_function: hmacSha1
  })
  // The package draws nonces from Math.random; a nonce should not be guessable.
  oauth.getNonce = () => crypto.randomBytes(16).toString("hex")
  const extra = request.oauthParams ?? {}
  const token = request.token === undefined
    ? undefined
    : { key: request.token.key, secret: Redacted.value(request.token.secret) }
  const signed = oauth.authorize({ url: request.url, method: request.method, data: { ...extra } }, token)
  return oauth.toHeader({ ...signed, ...extra }).Authorization
}
