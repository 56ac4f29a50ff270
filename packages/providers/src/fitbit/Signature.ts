/**
 * The `X-HEALTHAPI-SIGNATURE` of Google Health API notifications, checked (pure, synchronous).
 *
 * Google's reference says only that every webhook request's JSON payload is signed with ECDSA on NIST P-256, the
 * signature in the `X-HEALTHAPI-SIGNATURE` header (a later revision of the client libraries names the header
 * `GOOGLE-HEALTH-API-SIGNATURE`), to be verified with "Google Health API's public key" (`EndpointAuthorization`,
 * health:v4). How is what open-source receivers do against the live API: the key is a Tink public keyset (JSON)
 * published at `https://www.gstatic.com/googlehealthapi/webhooks/webhooks_public_keyset.json`, rotated about every
 * 30 days; the header is the base64 of a Tink signature: one version byte (1) and the 4-byte big-endian id of the
 * signing key, then the DER ECDSA signature, with SHA-256, over the exact body bytes. The keyset's own parameters
 * (`EcdsaParams`: hash, curve, encoding; the key's output prefix) are read rather than assumed.
 *
 * A receiver is pure: the keyset comes in as text (configuration), never fetched here.
 */
import * as crypto from "node:crypto"

/** The header names Google has used for the signature, lower case. */
export const googleSignatureHeaders = ["x-healthapi-signature", "google-health-api-signature"] as const

interface VerifyingKey {
  readonly keyId: number
  readonly prefix: "TINK" | "LEGACY" | "RAW" | "CRUNCHY"
  readonly hash: "sha256" | "sha384" | "sha512"
  readonly encoding: "der" | "ieee-p1363"
  readonly key: crypto.KeyObject
}

/** Reads a protobuf message's fields (varints as numbers, length-delimited as bytes); throws when malformed. */
const protoFields = (bytes: Buffer): Map<number, number | Buffer> => {
  const fields = new Map<number, number | Buffer>()
  let pos = 0
  const varint = (): number => {
    let result = 0
    let shift = 0
    for (;;) {
      if (pos >= bytes.length || shift > 35) throw new Error("truncated varint")
      const byte = bytes[pos++]!
      result += (byte & 0x7f) * 2 ** shift
      if ((byte & 0x80) === 0) return result
      shift += 7
    }
  }
  while (pos < bytes.length) {
    const tag = varint()
    const field = Math.floor(tag / 8)
    switch (tag & 7) {
      case 0:
        fields.set(field, varint())
        break
      case 2: {
        const length = varint()
        if (pos + length > bytes.length) throw new Error("truncated field")
        fields.set(field, bytes.subarray(pos, pos + length))
        pos += length
        break
      }
      default:
        throw new Error("unsupported wire type")
    }
  }
  return fields
}

/** A P-256 coordinate as 32 bytes (Tink writes it as a big-endian integer, often with a leading zero). */
const coordinate = (value: number | Buffer | undefined): Buffer => {
  if (!Buffer.isBuffer(value)) throw new Error("missing coordinate")
  let v = value
  while (v.length > 32 && v[0] === 0) v = v.subarray(1)
  if (v.length > 32) throw new Error("coordinate too long")
  return Buffer.concat([Buffer.alloc(32 - v.length), v])
}

const hashes: Record<number, VerifyingKey["hash"]> = { 2: "sha384", 3: "sha256", 4: "sha512" }
const encodings: Record<number, VerifyingKey["encoding"]> = { 1: "ieee-p1363", 2: "der" }
const nistP256 = 2

/**
 * The enabled ECDSA P-256 keys of a Tink JSON public keyset. Keys of another kind or curve are skipped; text that
 * is not a keyset gives none (so nothing verifies).
 */
export const keysOfKeyset = (keysetJson: string): ReadonlyArray<VerifyingKey> => {
  let keyset: unknown
  try {
    keyset = JSON.parse(keysetJson)
  } catch {
    return []
  }
  const entries = (keyset as { key?: unknown })?.key
  if (!Array.isArray(entries)) return []
  const keys: Array<VerifyingKey> = []
  for (const entry of entries as ReadonlyArray<Record<string, any>>) {
    try {
      if (entry?.status !== "ENABLED" || typeof entry.keyId !== "number") continue
      if (entry.keyData?.typeUrl !== "type.googleapis.com/google.crypto.tink.EcdsaPublicKey") continue
      const prefix = entry.outputPrefixType as VerifyingKey["prefix"]
      if (!["TINK", "LEGACY", "RAW", "CRUNCHY"].includes(prefix)) continue
      const key = protoFields(Buffer.from(String(entry.keyData.value), "base64"))
      const params = protoFields(Buffer.isBuffer(key.get(2)) ? key.get(2) as Buffer : Buffer.alloc(0))
      const hash = hashes[Number(params.get(1))]
      const encoding = encodings[Number(params.get(3))]
      if (params.get(2) !== nistP256 || hash === undefined || encoding === undefined) continue
      const jwk = {
        kty: "EC",
        crv: "P-256",
        x: coordinate(key.get(3)).toString("base64url"),
        y: coordinate(key.get(4)).toString("base64url")
      }
      keys.push({
        keyId: entry.keyId >>> 0,
        prefix,
        hash,
        encoding,
        key: crypto.createPublicKey({ key: jwk, format: "jwk" })
      })
    } catch {
      // a key that does not read verifies nothing
    }
  }
  return keys
}

/** Whether `signature` (the header's base64) is a good signature of `body` by one of the keyset's keys. */
export const verifyGoogleSignature = (
  keys: ReadonlyArray<VerifyingKey>,
  body: string,
  signature: string | undefined
): boolean => {
  if (signature === undefined) return false
  const text = signature.trim()
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return false
  const signed = Buffer.from(text, text.includes("-") || text.includes("_") ? "base64url" : "base64")
  const data = Buffer.from(body, "utf8")
  return keys.some((k) => {
    let sig = signed
    let message = data
    if (k.prefix !== "RAW") {
      if (signed.length < 6 || signed[0] !== (k.prefix === "TINK" ? 1 : 0) || signed.readUInt32BE(1) !== k.keyId) {
        return false
      }
      sig = signed.subarray(5)
      // Tink's legacy keys sign the message with a zero byte appended
      if (k.prefix === "LEGACY") message = Buffer.concat([data, Buffer.from([0])])
    }
    try {
      return crypto.verify(k.hash, message, { key: k.key, dsaEncoding: k.encoding }, sig)
    } catch {
      return false
    }
  })
}

// ---- the sandbox simulator's key ----

/** The order of P-256's base point: a private scalar lies in 1..n-1. */
const p256Order = BigInt("0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

/**
 * The simulator's signing key, derived from the sandbox client's secret so that the server's sandbox
 * configuration and the simulator agree on it without passing it around: the private scalar is SHA-256 of a
 * label and the secret (again while it falls outside 1..n-1). The simulator makes the same key (sandbox package).
 */
export const sandboxSigningScalar = (clientSecret: string): Buffer => {
  let digest = crypto.createHash("sha256").update(`google-health-simulator-webhook-key:${clientSecret}`).digest()
  while (BigInt(`0x${digest.toString("hex")}`) === 0n || BigInt(`0x${digest.toString("hex")}`) >= p256Order) {
    digest = crypto.createHash("sha256").update(digest).digest()
  }
  return digest
}

/** A Tink JSON public keyset of one ECDSA P-256 SHA-256 DER key, as Google publishes its own. */
export const tinkPublicKeyset = (uncompressedPoint: Buffer, keyId: number): string => {
  const field = (n: number, bytes: Buffer) => Buffer.concat([Buffer.from([n * 8 + 2, bytes.length]), bytes])
  const params = Buffer.from([0x08, 0x03, 0x10, nistP256, 0x18, 0x02])
  const withZero = (b: Buffer) => Buffer.concat([Buffer.from([0]), b])
  const value = Buffer.concat([
    field(2, params),
    field(3, withZero(uncompressedPoint.subarray(1, 33))),
    field(4, withZero(uncompressedPoint.subarray(33, 65)))
  ])
  return JSON.stringify({
    primaryKeyId: keyId,
    key: [{
      keyData: {
        typeUrl: "type.googleapis.com/google.crypto.tink.EcdsaPublicKey",
        value: value.toString("base64"),
        keyMaterialType: "ASYMMETRIC_PUBLIC"
      },
      status: "ENABLED",
      keyId,
      outputPrefixType: "TINK"
    }]
  })
}

/** The key id of a public point: its SHA-256's first four bytes (Tink ids are random 32-bit numbers). */
export const keyIdOfPoint = (uncompressedPoint: Buffer): number =>
  crypto.createHash("sha256").update(uncompressedPoint).digest().readUInt32BE(0)

/** The public keyset of the sandbox simulator whose client has `clientSecret`. */
export const googleHealthSandboxKeyset = (clientSecret: string): string => {
  const ecdh = crypto.createECDH("prime256v1")
  ecdh.setPrivateKey(sandboxSigningScalar(clientSecret))
  const point = ecdh.getPublicKey()
  return tinkPublicKeyset(point, keyIdOfPoint(point))
}
