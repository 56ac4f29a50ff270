/**
 * The random values of an authorization: the PKCE verifier and its S256 challenge (RFC 7636), and
 * the `state` that ties a callback to the authorization that started it.
 */
import * as crypto from "node:crypto"

/** 32 random bytes (256 bits) in base64url: 43 characters, the shortest verifier RFC 7636 allows. */
export const makeCodeVerifier = (): string => crypto.randomBytes(32).toString("base64url")

/** `BASE64URL(SHA256(ASCII(verifier)))`, without padding. */
export const codeChallengeS256 = (verifier: string): string =>
  crypto.createHash("sha256").update(verifier, "ascii").digest("base64url")

/** 256 random bits in base64url (43 characters; WHOOP wants at least 8). */
export const makeState = (): string => crypto.randomBytes(32).toString("base64url")
